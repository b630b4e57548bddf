import { isJsonObject, type JsonObject } from '../core/json.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { keptToolDefinition } from './gateway-tool-definitions.js';
import { badRequest, echoed } from './gateway-errors.js';

/**
 * The client's tools of a Responses request (`tools`, WIRE §5.1), as the route gets them and as
 * the answer names their calls back:
 *
 * - `function` tools pass through; `custom` (free-form) tools go upstream as a function taking
 *   one string, `input`, and their calls come back as `custom_tool_call`s.
 * - A `namespace` groups function and custom tools (Codex sends its sub-agent tools as
 *   `multi_agent_v1`). Providers know no namespaces, so each member goes upstream as
 *   `NAMESPACE__NAME` with the namespace's description before its own, and its calls come back
 *   as the member's `name` with `namespace` set, the shape the client echoes on the next turn.
 * - Hosted tools (`web_search`, `file_search`, `computer_use_preview`, `code_interpreter`,
 *   `image_generation`, `mcp`, `local_shell`, any other type) run on OpenAI's servers, which a
 *   route cannot do. Codex offers `web_search` on every request whatever its settings, so they
 *   are left out of the upstream request (the model answers without them) and named in
 *   `omitted`; a `tool_choice` that forces one is a 400, since that request cannot be honoured.
 */

/** How the answer names a call of an upstream tool. */
export interface ResponsesToolName {
  /** The tool's name as the client declared it. */
  name: string;
  /** The client's namespace of the tool, when it declared one. */
  namespace?: string;
  /** A free-form tool: its call is a `custom_tool_call` with `input`. */
  custom: boolean;
}

/** The parsed `tools`. */
export interface ResponsesTools {
  tools: ToolDefinition[];
  /** Upstream tool name → how the client names it. */
  names: Map<string, ResponsesToolName>;
  /** Hosted tools left out of the upstream request (`web_search`, …). */
  omitted: string[];
}

/** The parameters a custom tool's upstream function takes. */
export const CUSTOM_TOOL_PARAMETERS: JsonObject = {
  type: 'object',
  properties: { input: { type: 'string', description: 'The whole input of the tool, as free-form text.' } },
  required: ['input'],
  additionalProperties: false,
};

/** The upstream name of a client tool: namespace members are `NAMESPACE__NAME`. */
export function upstreamToolName(name: string, namespace: unknown): string {
  return typeof namespace === 'string' && namespace !== '' ? `${namespace}__${name}` : name;
}

/** Parses `tools` (and checks `tool_choice` against what the route is offered). */
export function parseResponsesTools(tools: unknown, toolChoice: unknown): ResponsesTools {
  const parsed: ResponsesTools = { tools: [], names: new Map(), omitted: [] };
  if (tools !== undefined && tools !== null) {
    if (!Array.isArray(tools)) throw badRequest('"tools" must be an array', 'tools');
    tools.forEach((tool, index) => addTool(parsed, tool, `tools[${index}]`, undefined));
  }
  checkToolChoice(toolChoice, parsed.omitted);
  return parsed;
}

function addTool(parsed: ResponsesTools, tool: unknown, path: string, namespace: JsonObject | undefined): void {
  if (!isJsonObject(tool)) throw badRequest(`${path} must be an object`, 'tools');
  const type = String(tool['type'] ?? 'function');
  const name = tool['name'];
  if (type === 'namespace' && namespace === undefined) {
    if (typeof name !== 'string' || name === '') throw badRequest(`${path} (a namespace) needs a "name"`, 'tools');
    const members = tool['tools'];
    if (!Array.isArray(members)) throw badRequest(`${path}.tools must be an array of tools`, 'tools');
    members.forEach((member, index) => addTool(parsed, member, `${path}.tools[${index}]`, tool));
    return;
  }
  if (type !== 'function' && type !== 'custom') {
    parsed.omitted.push(typeof name === 'string' ? `${echoed(name)} (${echoed(type)})` : echoed(type));
    return;
  }
  if (typeof name !== 'string' || name === '') throw badRequest(`${path} needs a "name"`, 'tools');
  const space = namespace === undefined ? undefined : String(namespace['name']);
  const upstream = upstreamToolName(name, space);
  if (parsed.names.has(upstream))
    throw badRequest(`${path}: the tool name "${echoed(upstream)}" is declared twice`, 'tools');
  const custom = type === 'custom';
  parsed.names.set(upstream, space === undefined ? { name, custom } : { name, namespace: space, custom });
  // A namespace member's definition reads its namespace too: only a top-level tool's is kept.
  parsed.tools.push(
    namespace === undefined
      ? keptToolDefinition(tool, (own) => responsesToolDefinition(own, upstream, undefined))
      : responsesToolDefinition(tool, upstream, namespace),
  );
}

function responsesToolDefinition(
  tool: JsonObject,
  upstream: string,
  namespace: JsonObject | undefined,
): ToolDefinition {
  const own = typeof tool['description'] === 'string' ? tool['description'] : '';
  const description = namespaceDescription(namespace, own);
  if (tool['type'] === 'custom') {
    return {
      name: upstream,
      description: customDescription(description, tool['format']),
      parameters: CUSTOM_TOOL_PARAMETERS,
    };
  }
  const parameters = isJsonObject(tool['parameters']) ? tool['parameters'] : { type: 'object', properties: {} };
  return { name: upstream, description, parameters };
}

/** A member's description after its namespace's, so the model sees what the group is for. */
function namespaceDescription(namespace: JsonObject | undefined, description: string): string {
  const group = namespace?.['description'];
  if (typeof group !== 'string' || group === '') return description;
  return description === '' ? group : `${group}\n\n${description}`;
}

/** A custom tool's description, with its grammar when it has one (the model must follow it in `input`). */
function customDescription(description: string, format: unknown): string {
  if (!isJsonObject(format) || format['type'] !== 'grammar' || typeof format['definition'] !== 'string') {
    return description;
  }
  return `${description}\n\nThe input must follow this ${String(format['syntax'] ?? '')} grammar:\n${format['definition']}`;
}

/** `tool_choice` forcing a hosted tool (`{"type": "web_search"}`) cannot be honoured: a 400 naming it. */
function checkToolChoice(toolChoice: unknown, omitted: readonly string[]): void {
  if (!isJsonObject(toolChoice)) return;
  const type = toolChoice['type'];
  if (typeof type !== 'string' || ['function', 'custom', 'allowed_tools'].includes(type)) return;
  throw badRequest(
    `tool_choice forces the hosted tool ${echoed(type)}, which the gateway cannot run: the route only calls tools the client runs${omitted.length > 0 ? ` (left out: ${omitted.join(', ')})` : ''}`,
    'tool_choice',
    'unsupported_tool',
  );
}
