import { isJsonObject, type JsonObject } from '../core/json.js';
import type { AssistantMessage } from '../core/message.js';
import type { ReasoningEffort, ReasoningOptions } from '../core/reasoning-options.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { badRequest, echoed } from './gateway-errors.js';
import { addClientSystemText, type ClientHistory, type EchoedReasoning } from './gateway-front-door-handles.js';
import { omittedBlockText } from './gateway-messages-request.js';
import { parseResponsesTools, upstreamToolName, type ResponsesToolName } from './gateway-responses-tools.js';

/**
 * Reading an OpenAI Responses request (`POST /v1/responses`, WIRE §5.1) into canonical history
 * (SPEC §2). The client holds the conversation (`store: false` is what Codex sends) and sends
 * all of it as `input` items every turn:
 *
 * - `instructions` is the first system message; `system` / `developer` messages are read by
 *   `addClientSystemText` (system messages before the first turn, user text after it).
 * - The assistant items of one turn — `reasoning` items, `message`s, `function_call`s,
 *   `custom_tool_call`s, in any order (SPEC §26.3) — are one assistant message, until a user
 *   message, a tool output or a system note ends the turn. A reasoning
 *   item's `encrypted_content` is the echoed handle, its summary (and `content`) text the readable
 *   reasoning; `null`s (Codex) and missing `id`s (opencode) are fine.
 * - `function_call_output` / `custom_tool_call_output` are tool messages.
 * - `tools` are read by gateway-responses-tools.ts (custom tools, namespaces, hosted tools left
 *   out); a call of a namespaced tool (`namespace` set) is that tool's upstream name.
 * - `previous_response_id` and `item_reference` need responses stored on the server, which the
 *   gateway does not keep: a 400 saying to send the items (`store: false`) instead.
 * - `reasoning.effort` sets the turn's effort (`none` turns reasoning off); `include` is
 *   accepted (the reasoning item always carries `encrypted_content`).
 */

/** A parsed Responses request. */
export interface ResponsesRequest {
  model: string | undefined;
  stream: boolean;
  history: ClientHistory;
  tools: ToolDefinition[];
  /** Upstream tool name → how the answer names its calls (custom tools, namespaces). */
  toolNames: Map<string, ResponsesToolName>;
  /** Hosted tools the client offered that the route is not given (`web_search`, …). */
  omittedTools: string[];
  reasoning: Partial<ReasoningOptions> | undefined;
}

/** Parses and validates the body; throws a 400 naming the bad field. */
export function parseResponsesRequest(body: unknown): ResponsesRequest {
  if (!isJsonObject(body)) throw badRequest('the request body must be a JSON object with an "input"');
  if (body['previous_response_id'] !== undefined && body['previous_response_id'] !== null) {
    throw badRequest(
      'previous_response_id is not supported: the gateway keeps no responses on the server; send the whole conversation as "input" items (with "store": false)',
      'previous_response_id',
      'unsupported_parameter',
    );
  }
  const model = body['model'];
  if (model !== undefined && typeof model !== 'string') throw badRequest('"model" must be a string', 'model');
  const history: ClientHistory = { messages: [], echoes: new Map() };
  const instructions = body['instructions'];
  if (typeof instructions === 'string' && instructions !== '') {
    history.messages.push({ role: 'system', content: instructions });
  }
  const input = body['input'];
  if (typeof input === 'string') history.messages.push({ role: 'user', content: input });
  else if (Array.isArray(input)) new TurnBuilder(history).addAll(input);
  else throw badRequest('"input" must be a string or an array of items', 'input');
  if (!history.messages.some((message) => message.role !== 'system')) {
    throw badRequest('"input" holds no message', 'input');
  }
  const { tools, names, omitted } = parseResponsesTools(body['tools'], body['tool_choice']);
  return {
    model,
    stream: body['stream'] === true,
    history,
    tools,
    toolNames: names,
    omittedTools: omitted,
    reasoning: parseEffort(body),
  };
}

/** Groups input items into canonical messages. */
class TurnBuilder {
  private current: { message: AssistantMessage; reasoning: EchoedReasoning[]; items: JsonObject[] } | null = null;
  private texts: string[] = [];

  constructor(private readonly history: ClientHistory) {}

  addAll(items: readonly unknown[]): void {
    items.forEach((item, index) => {
      if (!isJsonObject(item)) throw badRequest(`input[${index}] must be an object`, 'input');
      this.add(item, index);
    });
    this.close();
  }

  private add(item: JsonObject, index: number): void {
    const type = item['type'] ?? (item['role'] !== undefined ? 'message' : undefined);
    switch (type) {
      case 'message':
        return this.message(item, index);
      case 'reasoning':
        return this.reasoning(item, index);
      case 'function_call':
      case 'custom_tool_call':
        return this.call(item, index, type === 'custom_tool_call');
      case 'function_call_output':
      case 'custom_tool_call_output':
        this.close();
        this.history.messages.push({
          role: 'tool',
          tool_call_id: String(item['call_id'] ?? ''),
          content: outputText(item['output']),
        });
        return;
      case 'item_reference':
        throw badRequest(
          `input[${index}] is an item_reference: the gateway keeps no items on the server; send the item itself`,
          'input',
          'unsupported_parameter',
        );
      default:
        throw badRequest(
          `input[${index}] has type "${echoed(String(type))}", which the gateway does not take`,
          'input',
        );
    }
  }

  private message(item: JsonObject, index: number): void {
    const role = item['role'];
    const text = contentText(item['content']);
    if (role === 'assistant') {
      const turn = this.turn();
      this.texts.push(text);
      turn.message.content = this.texts.join('');
      return;
    }
    this.close();
    if (role === 'user') this.history.messages.push({ role: 'user', content: text });
    else if (role === 'system' || role === 'developer') addClientSystemText(this.history, text);
    else throw badRequest(`input[${index}].role must be user, assistant, system or developer`, 'input');
  }

  private reasoning(item: JsonObject, index: number): void {
    const turn = this.turn();
    const summary = Array.isArray(item['summary']) ? item['summary'] : [];
    const content = Array.isArray(item['content']) ? item['content'] : [];
    const text = [...summary, ...content]
      .filter(isJsonObject)
      .map((part) => (typeof part['text'] === 'string' ? part['text'] : ''))
      .filter((part) => part !== '')
      .join('\n\n');
    turn.reasoning.push({ field: `input[${index}].encrypted_content`, value: item['encrypted_content'], text });
    turn.items.push(reasoningInputItem(item));
  }

  private call(item: JsonObject, index: number, custom: boolean): void {
    const callId = item['call_id'];
    if (typeof callId !== 'string' || typeof item['name'] !== 'string') {
      throw badRequest(`input[${index}]: a ${echoed(String(item['type']))} needs "call_id" and "name"`, 'input');
    }
    const args = custom ? JSON.stringify({ input: String(item['input'] ?? '') }) : String(item['arguments'] ?? '{}');
    const turn = this.turn();
    (turn.message.tool_calls ??= []).push({
      id: callId,
      type: 'function',
      function: { name: upstreamToolName(item['name'], item['namespace']), arguments: args },
    });
  }

  /**
   * The assistant turn an item joins: the current one until a user message, a tool output or a
   * system note ends it. A reasoning item belongs to its turn wherever it stands in it (SPEC
   * §26.3: Codex may send it after the text).
   */
  private turn() {
    const current = this.current;
    if (current) return current;
    const message: AssistantMessage = { role: 'assistant', content: null };
    this.current = { message, reasoning: [], items: [] };
    this.texts = [];
    return this.current;
  }

  private close(): void {
    const current = this.current;
    this.current = null;
    // Reasoning items alone (no message, no call) have no turn to ride on (the provider would refuse them too).
    if (!current || (current.message.content === null && !current.message.tool_calls)) return;
    const index = this.history.messages.length;
    this.history.messages.push(current.message);
    if (current.reasoning.length > 0) {
      this.history.echoes.set(index, {
        reasoning: current.reasoning,
        native: { api: 'codex_responses', key: 'codex_reasoning_items', entries: current.items },
      });
    }
  }
}

/** A reasoning item as the Responses input schema takes it back (SPEC §24.4: input keys only). */
function reasoningInputItem(item: JsonObject): JsonObject {
  const kept: JsonObject = { type: 'reasoning' };
  for (const key of ['id', 'summary', 'encrypted_content', 'content']) {
    if (item[key] !== undefined && item[key] !== null) kept[key] = item[key];
  }
  return kept;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isJsonObject)
    .map((part) => {
      const type = String(part['type'] ?? '');
      if (typeof part['text'] === 'string') return part['text'];
      if (typeof part['refusal'] === 'string') return part['refusal'];
      return omittedBlockText(type.replace(/^input_/, '') || 'part');
    })
    .join('\n');
}

function outputText(output: unknown): string {
  return typeof output === 'string' ? output : contentText(output);
}

const EFFORTS: Readonly<Record<string, ReasoningEffort>> = {
  minimal: 'minimal',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'max',
};

function parseEffort(body: JsonObject): Partial<ReasoningOptions> | undefined {
  const reasoning = body['reasoning'];
  if (!isJsonObject(reasoning)) return undefined;
  const effort = reasoning['effort'];
  if (effort === 'none') return { enabled: false };
  const mapped = typeof effort === 'string' ? EFFORTS[effort] : undefined;
  return mapped ? { enabled: true, effort: mapped } : undefined;
}
