import type { McpToolFilter } from '../config/config-mcp.js';
import type { JsonObject } from '../core/json.js';
import { limitOutput } from '../tools/tool-limits.js';
import { abortReason, ToolError, type Tool } from '../tools/tool-types.js';
import type { McpConnection, McpListedTool } from './mcp-connection.js';

/**
 * A server's tools as Hermes tools, named `mcp__<server>__<tool>` (Claude Code's naming), offered
 * with the server's own description and input JSON schema, and run under the built-in tools'
 * rules (tool-registry.ts): approval unless the server is trusted, the server's `tool_timeout` as
 * the deadline (the turn's signal cancels the call on the server too), the 64 KiB output cap, and
 * every failure — a server error, an `isError` result, a server that went away — as a tool error
 * the model reads. A server that went away is started again on its next call (at most
 * `MAX_RESTARTS` times), with the tools it listed first.
 */

/** Longest tool name the provider APIs accept (Anthropic and OpenAI: 64). */
const MAX_TOOL_NAME = 64;

/** `mcp__<server>__<tool>`, with characters the provider APIs refuse in tool names replaced by `_`. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_TOOL_NAME);
}

/**
 * MCP tools offered in all, over every server: OpenAI and Gemini refuse a request with more than
 * 128 tools, other providers degrade long before, and the built-in tools need room too.
 */
export const MAX_MCP_TOOLS = 100;

/** What one server offers, and what it listed that is not offered. */
export interface McpServerTools {
  tools: Tool[];
  /** How many tools the server listed. */
  listed: number;
  /** Listed tools whose Hermes name another one took. */
  skipped: string[];
  /** How many `tools.include` / `tools.exclude` left out. */
  filteredOut: number;
  /** How many the cap ({@link MAX_MCP_TOOLS}) left out. */
  capped: number;
}

/**
 * The server's tools as Hermes tools: those its `tools.include` / `tools.exclude` choose (in the
 * server's order), at most `room` of them.
 */
export function mcpServerTools(connection: McpConnection, room: number = MAX_MCP_TOOLS): McpServerTools {
  const seen = new Set<string>();
  const result: McpServerTools = { tools: [], listed: connection.tools.length, skipped: [], filteredOut: 0, capped: 0 };
  const chosen = toolChooser(connection.settings.toolFilter);
  for (const listed of connection.tools) {
    if (!chosen(listed.name)) {
      result.filteredOut += 1;
      continue;
    }
    const name = mcpToolName(connection.settings.name, listed.name);
    if (seen.has(name)) {
      result.skipped.push(listed.name);
      continue;
    }
    seen.add(name);
    if (result.tools.length >= room) result.capped += 1;
    else result.tools.push(adaptTool(connection, listed, name));
  }
  return result;
}

/** Whether a tool name is offered under `filter`: included (every tool without `include`) and not excluded. */
export function toolChooser(filter: McpToolFilter | undefined): (name: string) => boolean {
  const include = filter?.include?.map(namePattern);
  const exclude = filter?.exclude?.map(namePattern) ?? [];
  return (name) =>
    (include === undefined || include.some((pattern) => pattern.test(name))) &&
    !exclude.some((pattern) => pattern.test(name));
}

/** A tool name with `*` matching any run of characters, the rest literal. */
function namePattern(text: string): RegExp {
  const literal = text
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${literal}$`);
}

function adaptTool(connection: McpConnection, listed: McpListedTool, name: string): Tool {
  const server = connection.settings.name;
  const deadlineMs = connection.settings.toolTimeoutMs;
  return {
    definition: {
      name,
      description: listed.description || `The "${listed.name}" tool of the MCP server "${server}".`,
      parameters: inputSchemaOf(listed),
    },
    needsApproval: !connection.settings.trust,
    deadlineMs,
    async run(args, context) {
      if (!connection.connected) {
        // A server that went away (crashed, its HTTP session ended) is started again for this call.
        const reason = connection.closedReason ?? 'not connected';
        try {
          await connection.restart();
        } catch (error) {
          const why = error instanceof Error ? error.message : String(error);
          throw new ToolError(`MCP server "${server}" is not running (${reason}) and could not be restarted: ${why}`);
        }
      }
      let result;
      try {
        // The SDK's own timeout stays past the tool deadline, so the deadline is what the model reads.
        result = await connection.client.callTool(
          { name: listed.name, arguments: args },
          { timeout: deadlineMs + 5_000, ...(context.signal ? { signal: context.signal } : {}) },
        );
      } catch (error) {
        if (context.signal?.aborted) throw abortReason(context.signal);
        const message = error instanceof Error ? error.message : String(error);
        throw new ToolError(`MCP server "${server}": ${message.split('\n')[0] ?? 'failed'}`);
      }
      const text = limitOutput(resultText(result));
      if (result.isError) throw new ToolError(text || `${name} reported an error`);
      return text;
    },
  };
}

/** MCP requires an object schema; a tool that sends none takes no arguments. */
function inputSchemaOf(listed: McpListedTool): JsonObject {
  const schema = listed.inputSchema;
  if (typeof schema !== 'object' || schema === null || schema['type'] !== 'object') {
    return { type: 'object', properties: {} };
  }
  return schema as JsonObject;
}

type ContentBlock = { type: string } & Record<string, unknown>;

/**
 * The text of a tool result: text blocks as they are, other blocks as one bracketed line each
 * (binary data is never pasted into the context), and `structuredContent` as JSON when the
 * result has no content blocks.
 */
export function resultText(result: { content?: unknown; structuredContent?: unknown }): string {
  const blocks = Array.isArray(result.content) ? (result.content as ContentBlock[]) : [];
  if (blocks.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return blocks.map(blockText).join('\n');
}

function blockText(block: ContentBlock): string {
  const text = (key: string) => (typeof block[key] === 'string' ? (block[key] as string) : '');
  switch (block.type) {
    case 'text':
      return text('text');
    case 'image':
    case 'audio':
      return `[${block.type} ${text('mimeType') || 'data'}, ${Math.floor((text('data').length * 3) / 4)} bytes]`;
    case 'resource': {
      const resource = (block['resource'] ?? {}) as Record<string, unknown>;
      if (typeof resource['text'] === 'string') return resource['text'];
      return `[resource ${String(resource['uri'] ?? '')}${resource['mimeType'] ? ` (${String(resource['mimeType'])})` : ''}]`;
    }
    case 'resource_link':
      return `[resource link ${text('uri')}${text('name') ? ` "${text('name')}"` : ''}]`;
    default:
      return `[${block.type} content]`;
  }
}
