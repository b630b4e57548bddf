import { isJsonObject, type JsonObject, type JsonValue } from '../core/json.js';
import type { AssistantMessage, ToolCall } from '../core/message.js';
import { WIRE_APIS, type OriginStamp } from '../core/origin.js';

/**
 * What `providerMetadata.hermes` holds (output) and `providerOptions.hermes` gives back (input),
 * so an AI SDK app that stores `response.messages` or UI messages and sends them back gets the
 * stored assistant message Hermes captured, every reasoning carrier byte for byte with its
 * origin stamp (SPEC §2, §23.2): the replay engine then decides per route what goes on the wire,
 * exactly as for a stored session.
 *
 * - The part that carries a message's record (its reasoning part, else its first tool-call part,
 *   else its text part) holds `{ v, origin, message }`: `message` is every field of the stored
 *   assistant message except what the AI SDK parts themselves carry (text, tool calls, reasoning
 *   text), private `_` keys and metadata never sent (SPEC §2).
 * - Each tool-call part holds `{ call }`: the call's own carriers (Responses `call_id` and item
 *   id, Gemini `extra_content`, Copilot's per-call `thought_signature`) and the exact argument text.
 */

/** Version of the metadata shape. */
export const HERMES_METADATA_VERSION = 1;

/** The key under `providerMetadata` / `providerOptions`. */
export const HERMES_METADATA_KEY = 'hermes';

/** Assistant message keys the AI SDK parts carry, or that never travel (SPEC §2). */
const NOT_IN_RECORD = new Set([
  'role',
  'content',
  'tool_calls',
  'reasoning',
  'origin',
  'timestamp',
  'platform_message_id',
  'effect_disposition',
]);

/** The carriers of a stored assistant message: every key the parts do not carry (JSON copy). */
export function carrierRecord(message: AssistantMessage): JsonObject {
  const record: JsonObject = {};
  for (const [key, value] of Object.entries(message)) {
    if (NOT_IN_RECORD.has(key) || key.startsWith('_') || value === undefined) continue;
    record[key] = structuredClone(value) as JsonValue;
  }
  return record;
}

/** The record metadata of a message: origin and carriers, plus the text or reasoning the parts could not hold exactly. */
export function recordMetadata(
  message: AssistantMessage,
  exact: { reasoning?: string | undefined; content?: string | null | undefined } = {},
): JsonObject {
  const record = carrierRecord(message);
  // An empty or null reasoning is kept as such: the parts cannot tell it from no reasoning.
  if (message.reasoning === '' || message.reasoning === null) record['reasoning'] = message.reasoning;
  if (exact.reasoning !== undefined) record['reasoning'] = exact.reasoning;
  if (exact.content !== undefined) record['content'] = exact.content;
  const metadata: JsonObject = { v: HERMES_METADATA_VERSION, message: record };
  if (message.origin) metadata['origin'] = { ...message.origin };
  return metadata;
}

/** A tool call's own carriers and its exact argument text. */
export function callMetadata(call: ToolCall): JsonObject {
  const own: JsonObject = { arguments: call.function.arguments };
  if (call.call_id !== undefined) own['call_id'] = call.call_id;
  if (call.response_item_id !== undefined) own['response_item_id'] = call.response_item_id;
  if (call.extra_content !== undefined) own['extra_content'] = structuredClone(call.extra_content);
  if (call.function.thought_signature !== undefined) own['thought_signature'] = call.function.thought_signature;
  return { call: own };
}

/** The `hermes` entry of a part's provider options, when it is an object. */
export function hermesOptionsOf(part: {
  providerOptions?: Record<string, unknown> | undefined;
}): JsonObject | undefined {
  const value = part.providerOptions?.[HERMES_METADATA_KEY];
  return isJsonObject(value) ? value : undefined;
}

/** The origin stamp of record metadata, when it is well-formed (SPEC §23.2); anything else: none. */
export function originOf(metadata: JsonObject): OriginStamp | undefined {
  const origin = metadata['origin'];
  if (!isJsonObject(origin)) return undefined;
  const { api, provider, host, model } = origin;
  if (typeof api !== 'string' || !(WIRE_APIS as readonly string[]).includes(api)) return undefined;
  if (typeof provider !== 'string' || typeof host !== 'string' || typeof model !== 'string') return undefined;
  return { api: api as OriginStamp['api'], provider, host, model };
}

/**
 * A tool call rebuilt from an AI SDK tool-call part: the stored argument text when it still
 * says what the part's input says (the app did not change it), else the input as JSON.
 */
export function toolCallFrom(
  part: { toolCallId: string; toolName: string; input: unknown },
  call: JsonObject | undefined,
): ToolCall {
  const stored = typeof call?.['arguments'] === 'string' ? call['arguments'] : undefined;
  const input = typeof part.input === 'string' ? parsedOrText(part.input) : part.input;
  const args = stored !== undefined && sameJson(parsedOrText(stored), input) ? stored : JSON.stringify(input ?? {});
  const toolCall: ToolCall = {
    id: part.toolCallId,
    type: 'function',
    function: { name: part.toolName, arguments: args },
  };
  if (typeof call?.['call_id'] === 'string') toolCall.call_id = call['call_id'];
  if (typeof call?.['response_item_id'] === 'string') toolCall.response_item_id = call['response_item_id'];
  if (isJsonObject(call?.['extra_content'])) toolCall.extra_content = structuredClone(call['extra_content']);
  if (typeof call?.['thought_signature'] === 'string') toolCall.function.thought_signature = call['thought_signature'];
  return toolCall;
}

function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function sameJson(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}
