import { isJsonObject, type JsonObject } from '../core/json.js';
import type { AssistantMessage, ToolCall } from '../core/message.js';
import type { CarrierDecision } from '../runtime/runtime-client-turn.js';
import type { HandleKeyring } from './gateway-handle-keys.js';
import {
  describeHandleFailure,
  openParsedHandle,
  parseHandle,
  sealHandle,
  type HandleFailure,
  type HandleKey,
  type HandlePurpose,
} from './gateway-handle-seal.js';

/**
 * What a sealed handle holds and how an echoed assistant turn gets it back (SPEC §25.6).
 *
 * A handle holds the carriers of one stored assistant message exactly as the engine stores them
 * (SPEC §2): every key but the visible turn itself (`role`, `content`, the calls) and per-message
 * metadata — `reasoning`, `reasoning_content`, `reasoning_details`, the native block lists, the
 * Gemini issuer, the Responses items, the finish reason, the origin stamp (SPEC §23.2), private
 * engine flags — plus, per tool call, its ids and sidecars (`call_id`, `response_item_id`,
 * `extra_content`, `function.thought_signature`). The client's echo supplies the visible turn;
 * the handle supplies the rest, so an opened handle replays exactly like stored history.
 *
 * A handle is bound to its turn by the ids of the turn's tool calls: a handle echoed on a turn
 * whose calls differ (moved from another turn) is dropped like one that does not open.
 */

/** Keys of a stored assistant message that are the visible turn or metadata, never sealed. */
const NOT_SEALED = new Set(['role', 'content', 'tool_calls', 'timestamp', 'platform_message_id', 'effect_disposition']);

/**
 * Private keys that describe the request, not the message: `_usage` anchors estimates (SPEC §15),
 * `_input_transformations` lists what the provider dropped from that request (SPEC §26.4).
 */
const NOT_SEALED_PRIVATE = new Set(['_usage', '_input_transformations']);

/** Keys that alone do not make a message worth a handle (they travel with carriers, not instead). */
const STAMP_KEYS = new Set(['origin', 'finish_reason']);

/** The per-call part of a handle. */
interface SealedCall {
  id: string;
  call_id?: string;
  response_item_id?: string;
  extra_content?: JsonObject;
  thought_signature?: string;
}

/** The plaintext of a handle. */
export interface SealedCarriers {
  /** Carrier keys of the message. */
  m: JsonObject;
  /** Per-call ids and sidecars, in call order. */
  c: SealedCall[];
}

/**
 * The handle plaintext for `message`, or null when it has no carrier at all (no reasoning, no
 * native blocks, no call sidecars): such a turn replays the same from the client's echo alone.
 */
export function sealedCarriersOf(message: AssistantMessage): string | null {
  const carriers = carriersOf(message);
  return carriers === null ? null : JSON.stringify(carriers);
}

/** The carriers a handle of `message` would hold, or null when it has none (see {@link sealedCarriersOf}). */
export function carriersOf(message: AssistantMessage): SealedCarriers | null {
  const carriers: JsonObject = {};
  let worthSealing = false;
  for (const [key, value] of Object.entries(message)) {
    if (value === undefined || value === null || NOT_SEALED.has(key) || NOT_SEALED_PRIVATE.has(key)) continue;
    carriers[key] = value as JsonObject[string];
    if (!STAMP_KEYS.has(key)) worthSealing = true;
  }
  const calls: SealedCall[] = (message.tool_calls ?? []).map((call) => {
    const sealed: SealedCall = { id: call.id };
    if (call.call_id !== undefined) sealed.call_id = call.call_id;
    if (call.response_item_id !== undefined) sealed.response_item_id = call.response_item_id;
    if (call.extra_content !== undefined) sealed.extra_content = call.extra_content;
    if (call.function.thought_signature !== undefined) sealed.thought_signature = call.function.thought_signature;
    if (Object.keys(sealed).length > 1) worthSealing = true;
    return sealed;
  });
  if (!worthSealing) return null;
  return { m: carriers, c: calls };
}

/** Seals the carriers of `message` for `purpose`, or returns null when it has none. */
export async function sealMessage(
  message: AssistantMessage,
  purpose: HandlePurpose,
  keyring: HandleKeyring,
): Promise<string | null> {
  const plaintext = sealedCarriersOf(message);
  if (plaintext === null) return null;
  return sealCarriers(plaintext, purpose, await keyring.sealingKey(), keyring);
}

/**
 * Seals a handle plaintext (what {@link sealedCarriersOf} gives) with `key`, and lets `keyring`
 * recall what it opens to: the client echoes the handle with its next request, which then opens
 * it without decrypting, as it would after a first {@link openHandle}.
 */
export function sealCarriers(
  plaintext: string,
  purpose: HandlePurpose,
  key: HandleKey,
  keyring: HandleKeyring,
): string {
  const handle = sealHandle(plaintext, purpose, key);
  // Read back from the plaintext, not taken from the message: the kept carriers share nothing
  // with objects the turn may still change, exactly as a decrypted handle would.
  const carriers = parseCarriers(plaintext);
  if (carriers) {
    const opened: OpenedHandle = { ok: true, keyId: key.id, carriers };
    keyring.remember(handle, purpose, key.id, opened);
  }
  return handle;
}

/** An echoed handle after opening: the carriers, or why they were dropped. */
export type OpenedHandle = { ok: true; keyId: string; carriers: SealedCarriers } | { ok: false; reason: string };

/** Opens one echoed value (`null`, `""`, foreign or tampered values give the reason they were dropped). */
export async function openHandle(
  value: unknown,
  purpose: HandlePurpose,
  keyring: HandleKeyring,
): Promise<OpenedHandle> {
  const recalled = typeof value === 'string' ? (keyring.recall(value, purpose) as OpenedHandle | undefined) : undefined;
  if (recalled) return recalled;
  const parsed = parseHandle(value);
  if (typeof parsed === 'string') return failed(parsed);
  const key = await keyring.openingKey(parsed.keyId);
  if (!key) return failed('unknown-key');
  const opened = openParsedHandle(parsed, purpose, key);
  if (opened === 'tampered') return failed('tampered');
  const carriers = parseCarriers(opened.plaintext);
  // Authenticated but unreadable: only a gateway with this key could have sealed it, so this is
  // a gateway of another version; dropped like any handle that does not open.
  if (!carriers) return failed('malformed');
  const result: OpenedHandle = { ok: true, keyId: parsed.keyId, carriers };
  // The carriers are shared by later requests that echo this handle: the request builders never
  // change a history they are given (TransportRequest.history), and stores copy what they append.
  keyring.remember(value as string, purpose, parsed.keyId, result);
  return result;
}

/**
 * The echoed assistant turn with the carriers of its handle restored, or the reason the handle
 * does not belong to this turn (its tool call ids differ).
 */
export function restoreCarriers(
  echoed: AssistantMessage,
  carriers: SealedCarriers,
): { message: AssistantMessage } | { mismatch: string } {
  const echoedIds = (echoed.tool_calls ?? []).map((call) => call.id);
  const sealedIds = carriers.c.map((call) => call.id);
  if (echoedIds.length !== sealedIds.length || echoedIds.some((id) => !sealedIds.includes(id))) {
    return { mismatch: 'belongs to another turn (its tool calls differ)' };
  }
  const restored = { ...carriers.m, ...echoed } as AssistantMessage;
  const byId = new Map(carriers.c.map((call) => [call.id, call]));
  if (echoed.tool_calls) restored.tool_calls = echoed.tool_calls.map((call) => withSealedCall(call, byId.get(call.id)));
  return { message: restored };
}

/** The field of a handle decision: `handle <where it came in>` (what `replay preview --explain` lists). */
export function handleField(field: string): string {
  return `handle ${field}`;
}

/** The decision recorded for a handle that opened (SPEC §23.3: sizes, never values). */
export function openedDecision(messageIndex: number, field: string, keyId: string, bytes: number): CarrierDecision {
  return { messageIndex, field: handleField(field), action: 'kept', reason: `opened (key ${keyId})`, bytes };
}

/** The decision recorded for a handle that was dropped. */
export function droppedDecision(messageIndex: number, field: string, reason: string, value: unknown): CarrierDecision {
  const decision: CarrierDecision = { messageIndex, field: handleField(field), action: 'dropped', reason };
  if (typeof value === 'string' && value !== '') decision.bytes = Buffer.byteLength(value, 'utf8');
  return decision;
}

function withSealedCall(call: ToolCall, sealed: SealedCall | undefined): ToolCall {
  if (!sealed) return call;
  const restored: ToolCall = { ...call, function: { ...call.function } };
  if (sealed.call_id !== undefined) restored.call_id = sealed.call_id;
  if (sealed.response_item_id !== undefined) restored.response_item_id = sealed.response_item_id;
  if (sealed.extra_content !== undefined) restored.extra_content = sealed.extra_content;
  if (sealed.thought_signature !== undefined) restored.function.thought_signature = sealed.thought_signature;
  return restored;
}

function failed(failure: HandleFailure): OpenedHandle {
  return { ok: false, reason: describeHandleFailure(failure) };
}

function parseCarriers(plaintext: string): SealedCarriers | null {
  try {
    const value: unknown = JSON.parse(plaintext);
    if (!isJsonObject(value) || !isJsonObject(value['m']) || !Array.isArray(value['c'])) return null;
    const calls = value['c'].filter(
      (call): call is JsonObject => isJsonObject(call) && typeof call['id'] === 'string',
    ) as unknown as SealedCall[];
    return { m: value['m'], c: calls };
  } catch {
    return null;
  }
}
