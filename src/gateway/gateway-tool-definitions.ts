import type { JsonObject } from '../core/json.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { deepFreeze } from './gateway-json-pieces.js';

/**
 * The tool definitions of a client's repeated tools, made once. Clients resend their tools with
 * every request (Claude Code's are tens of kilobytes); a tool the conversation's last body held in
 * the same bytes is the same frozen object again (gateway-json-pieces.ts), and its definition —
 * which a door makes from that object alone — is kept with it, frozen. Every cache keyed by the
 * definition then hits from one request to the next: the encoders' wire objects and their
 * serialized bytes (transports/shared/request-tool-cache.ts) and the tools' token estimate
 * (runtime/runtime-kept-prices.ts). A tool that is not frozen gets a definition of its own.
 */
const definitions = new WeakMap<JsonObject, ToolDefinition>();

/** `make(tool)`, kept for a frozen `tool`; `make` must read nothing but `tool`. */
export function keptToolDefinition(tool: JsonObject, make: (tool: JsonObject) => ToolDefinition): ToolDefinition {
  if (!Object.isFrozen(tool)) return make(tool);
  let definition = definitions.get(tool);
  if (definition === undefined) {
    definition = deepFreeze(make(tool));
    definitions.set(tool, definition);
  }
  return definition;
}
