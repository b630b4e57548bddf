import { isJsonObject, type JsonObject, type JsonValue } from '../core/json.js';
import type { AssistantMessage, ToolCall } from '../core/message.js';
import type { CarrierDecision } from './replay-types.js';
import { utf8ByteLength } from './replay-utf8.js';

/**
 * Tool calls and the native sidecars that name them stay in step (SPEC §2, §9.3, §10, §11). An
 * assistant message names its calls twice: in `tool_calls` and, for the native APIs, in the
 * ordered sidecar of the turn (`anthropic_content_blocks` tool_use blocks,
 * `bedrock_content_blocks` toolUse blocks, `gemini_content_parts` functionCall parts). When a
 * call leaves the message (a duplicate the model emitted twice, a call over a limit), the sidecars
 * lose the same call, so no sidecar ever names a call the message no longer has: replaying one
 * sends a tool use without a result, which Converse rejects ("Expected toolResult blocks at
 * messages.N.content for the following Ids", WIRE.md §3) and Anthropic would answer with an
 * orphan. Every other sidecar block stays where it was, in order. Pure; never edits its input.
 *
 * Two entries: {@link removeToolCalls} for whoever drops a call (the runtime's de-duplication,
 * {@link withoutDuplicateToolCalls}), and {@link syncToolCallSidecars} for the encoders, which
 * also repair a stored message whose calls were dropped before its sidecars were kept in step.
 */

/** What keeping the sidecars in step changed, for the encoder's decisions (SPEC §23.3, §24.10). */
export interface ToolCallSyncResult {
  /** The message with its calls and sidecars in step (the same object when nothing changed). */
  message: AssistantMessage;
  /** One `dropped` decision per call or sidecar block left out. */
  decisions: CarrierDecision[];
}

const NO_CALL = 'tool call no longer in the message';
const NAMED_TWICE = 'tool call named twice';

/**
 * The message with `tool_calls` de-duplicated by id (the first of two calls with one id stays:
 * a provider cannot tell their results apart) and every sidecar block that names a call the
 * message does not have, or names a call an earlier block already named, removed. A message
 * without a `tool_calls` key is returned as is: nothing was removed from it, so its sidecars
 * stay authoritative (SPEC §9.3, §10).
 */
export function syncToolCallSidecars(message: AssistantMessage, messageIndex: number): ToolCallSyncResult {
  const calls = message.tool_calls;
  if (calls === undefined) return { message, decisions: [] };
  const decisions: CarrierDecision[] = [];
  const drop = (field: string, reason: string, bytes?: number) => {
    const decision: CarrierDecision = { messageIndex, field, action: 'dropped', reason };
    if (bytes !== undefined) decision.bytes = bytes;
    decisions.push(decision);
  };

  const seenIds = new Set<string>();
  const kept = calls.filter((call, index) => {
    if (!seenIds.has(call.id)) {
      seenIds.add(call.id);
      return true;
    }
    drop(`tool_calls[${index}]`, 'duplicate call id');
    return false;
  });

  const anthropic = syncById(message.anthropic_content_blocks, seenIds, (block) =>
    block['type'] === 'tool_use' ? stringOr(block['id']) : undefined,
  );
  anthropic.dropped.forEach(({ index, reason }) => drop(`anthropic_content_blocks[${index}] (tool_use)`, reason));

  const bedrock = syncById(message.bedrock_content_blocks, seenIds, (block) =>
    isJsonObject(block['toolUse']) ? (stringOr(block['toolUse']['toolUseId']) ?? '') : undefined,
  );
  bedrock.dropped.forEach(({ index, reason }) => drop(`bedrock_content_blocks[${index}] (toolUse)`, reason));

  const gemini = syncGeminiParts(message.gemini_content_parts, kept);
  gemini.dropped.forEach(({ index, reason, bytes }) =>
    drop(`gemini_content_parts[${index}] (functionCall)`, reason, bytes),
  );

  if (kept.length === calls.length && !anthropic.changed && !bedrock.changed && !gemini.changed) {
    return { message, decisions };
  }
  const synced: AssistantMessage = { ...message, tool_calls: kept };
  if (anthropic.changed) synced.anthropic_content_blocks = anthropic.blocks;
  if (bedrock.changed) synced.bedrock_content_blocks = bedrock.blocks;
  if (gemini.changed) synced.gemini_content_parts = gemini.blocks;
  return { message: synced, decisions };
}

/**
 * The message without the calls `drop` selects, its sidecars losing the same calls (the entry
 * for the runtime when it removes a duplicate or an over-limit call).
 */
export function removeToolCalls(
  message: AssistantMessage,
  drop: (call: ToolCall, index: number) => boolean,
): AssistantMessage {
  const calls = message.tool_calls;
  if (calls === undefined) return message;
  const kept = calls.filter((call, index) => !drop(call, index));
  if (kept.length === calls.length) return message;
  return syncToolCallSidecars({ ...message, tool_calls: kept }, 0).message;
}

/**
 * The message with each repeated (name, arguments) call of the turn removed, the first kept, and
 * its sidecars in step: a model that emits the same call twice gets it run once.
 */
export function withoutDuplicateToolCalls(message: AssistantMessage): AssistantMessage {
  const seen = new Set<string>();
  return removeToolCalls(message, (call) => {
    const key = JSON.stringify([call.function.name, call.function.arguments]);
    if (seen.has(key)) return true;
    seen.add(key);
    return false;
  });
}

interface SidecarSync {
  blocks: JsonObject[];
  changed: boolean;
  dropped: { index: number; reason: string; bytes?: number }[];
}

function unchanged(blocks: JsonObject[] | undefined): SidecarSync {
  return { blocks: blocks ?? [], changed: false, dropped: [] };
}

/** Keeps the blocks naming a call of `ids` once; `idOf` is undefined for a block naming no call. */
function syncById(
  blocks: JsonObject[] | undefined,
  ids: ReadonlySet<string>,
  idOf: (block: JsonObject) => string | undefined,
): SidecarSync {
  if (!Array.isArray(blocks)) return unchanged(blocks);
  const named = new Set<string>();
  const result: SidecarSync = { blocks: [], changed: false, dropped: [] };
  blocks.forEach((block, index) => {
    const id = isJsonObject(block) ? idOf(block) : undefined;
    if (id === undefined) {
      result.blocks.push(block);
      return;
    }
    if (!ids.has(id) || named.has(id)) {
      result.changed = true;
      result.dropped.push({ index, reason: ids.has(id) ? NAMED_TWICE : NO_CALL });
      return;
    }
    named.add(id);
    result.blocks.push(block);
  });
  return result.changed ? result : unchanged(blocks);
}

/**
 * Gemini functionCall parts carry an id only when the model issued one (SPEC §11); otherwise a
 * part is matched, in order, to the first call not yet matched with the same name and arguments.
 * Parts that are no more than the calls and name no unknown or repeated id are left alone (the
 * encoder compares them with the calls itself). A dropped part's signature is dropped with it:
 * a signature is bound to the part it came on (WIRE.md §4).
 */
function syncGeminiParts(parts: JsonObject[] | undefined, calls: readonly ToolCall[]): SidecarSync {
  if (!Array.isArray(parts)) return unchanged(parts);
  const callParts = parts.filter((part) => isJsonObject(part) && isJsonObject(part['functionCall']));
  if (callParts.length <= calls.length && idsConsistent(callParts, calls)) return unchanged(parts);
  const used = new Set<number>();
  const result: SidecarSync = { blocks: [], changed: false, dropped: [] };
  parts.forEach((part, index) => {
    const functionCall = isJsonObject(part) ? part['functionCall'] : undefined;
    if (!isJsonObject(functionCall)) {
      result.blocks.push(part);
      return;
    }
    const id = stringOr(functionCall['id']);
    const names = (call: ToolCall) => (id !== undefined ? call.id === id : sameCall(call, functionCall));
    const match = calls.findIndex((call, position) => !used.has(position) && names(call));
    if (match >= 0) {
      used.add(match);
      result.blocks.push(part);
      return;
    }
    result.changed = true;
    const named = calls.some(names);
    const signature = part['thoughtSignature'];
    const entry: SidecarSync['dropped'][number] = { index, reason: named ? NAMED_TWICE : NO_CALL };
    if (typeof signature === 'string' && signature !== '') entry.bytes = utf8ByteLength(signature);
    result.dropped.push(entry);
  });
  return result.changed ? result : unchanged(parts);
}

function sameCall(call: ToolCall, functionCall: JsonObject): boolean {
  return (
    call.function.name === functionCall['name'] && sameGeminiArguments(functionCall['args'], call.function.arguments)
  );
}

/** Every part id names a call, and no id is named twice. */
function idsConsistent(callParts: readonly JsonObject[], calls: readonly ToolCall[]): boolean {
  const ids = new Set(calls.map((call) => call.id));
  const named = new Set<string>();
  for (const part of callParts) {
    const id = stringOr((part['functionCall'] as JsonObject)['id']);
    if (id === undefined) continue;
    if (!ids.has(id) || named.has(id)) return false;
    named.add(id);
  }
  return true;
}

function stringOr(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * Tool-call arguments as a Gemini `functionCall.args` object: the parsed JSON object, a non-object
 * value wrapped as `{value}`, a malformed string as `{arguments: text}` (`args` must be an object).
 */
export function geminiCallArguments(text: string): JsonObject {
  try {
    const value: unknown = JSON.parse(text === '' ? '{}' : text);
    return isJsonObject(value) ? value : { value: value as JsonValue };
  } catch {
    return { arguments: text };
  }
}

/** Whether a Gemini `functionCall.args` holds the same arguments as a tool call's argument text (key order aside). */
export function sameGeminiArguments(args: JsonValue | undefined, argumentsText: string): boolean {
  return canonicalJson(args ?? {}) === canonicalJson(geminiCallArguments(argumentsText));
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
