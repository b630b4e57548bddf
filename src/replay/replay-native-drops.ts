/**
 * SPEC §24.10 (§23.3 everywhere): the native encoders (Anthropic, Gemini, Responses) record a
 * decision for every carrier a message holds that their wire format does not read, including
 * foreign-origin blobs (`dropped codex_reasoning_items[0] (foreign origin, 2916 B)`), and name the
 * carriers they sent for the request log. One byte count per carrier, the same whether kept or
 * dropped, and each carrier counted once even when the message stores it twice (SPEC §25.5): a
 * carrier holding an opaque value (a signature, redacted data, a thought signature, encrypted
 * content) counts that value's bytes, one holding only readable text counts the text, other
 * entries every string inside them; a `reasoning_details` entry that mirrors a content-block
 * sidecar (the same signature or data) is not reported a second time. Pure.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../core/json.js';
import type { AssistantMessage } from '../core/message.js';
import { NATIVE_RECORD_TYPE } from './replay-carrier-record.js';
import type { CarrierDecision } from './replay-types.js';
import { jsonStringBytes, utf8ByteLength } from './replay-utf8.js';

/** The native wire APIs that report their unread carriers. */
export type NativeReplayApi = 'anthropic_messages' | 'gemini' | 'codex_responses';

const ANTHROPIC_THINKING = new Set(['thinking', 'redacted_thinking']);

function text(value: unknown): number {
  return typeof value === 'string' ? utf8ByteLength(value) : 0;
}

function opaque(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The opaque value of an Anthropic block: its signature or redacted data. */
function anthropicOpaque(block: JsonObject): string | undefined {
  return opaque(block['signature']) ?? opaque(block['data']);
}

/** Bytes of an Anthropic thinking block (SPEC §25.5): its signature or redacted data, else its text. */
export function anthropicBlockBytes(block: JsonObject): number {
  const value = anthropicOpaque(block);
  return value !== undefined ? utf8ByteLength(value) : text(block['thinking']);
}

/** Bytes of a stored Responses item: its `encrypted_content`, else every string in it. */
export function responsesItemBytes(item: JsonObject): number {
  const encrypted = item['encrypted_content'];
  return typeof encrypted === 'string' ? utf8ByteLength(encrypted) : jsonStringBytes(item);
}

/** Bytes of a Gemini part: its thought signature, else a thought's text (0 for plain text). */
function geminiPartBytes(part: JsonObject): number {
  const signature = opaque(part['thoughtSignature']);
  if (signature !== undefined) return utf8ByteLength(signature);
  return part['thought'] === true ? text(part['text']) : 0;
}

/** The opaque value of a Converse `reasoningContent` block: redacted content or the text's signature. */
function bedrockOpaque(block: JsonObject): string | undefined {
  const reasoning = block['reasoningContent'];
  if (!isJsonObject(reasoning)) return undefined;
  const readable = reasoning['reasoningText'];
  return opaque(reasoning['redactedContent']) ?? (isJsonObject(readable) ? opaque(readable['signature']) : undefined);
}

/** Bytes of a Converse `reasoningContent` block (SPEC §25.5): its opaque value, else its text. */
function bedrockBlockBytes(block: JsonObject): number {
  const value = bedrockOpaque(block);
  if (value !== undefined) return utf8ByteLength(value);
  const readable = (block['reasoningContent'] as JsonObject)['reasoningText'];
  return isJsonObject(readable) ? text(readable['text']) : jsonStringBytes(block);
}

/** Every opaque string inside a value (signatures, data, thought signatures, opaque blobs). */
function opaqueStrings(value: JsonValue | undefined, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) opaqueStrings(item, found);
  else if (isJsonObject(value)) {
    for (const [key, inner] of Object.entries(value)) {
      if (typeof inner === 'string') {
        if (OPAQUE_KEYS.has(key) && inner !== '') found.push(inner);
      } else opaqueStrings(inner, found);
    }
  }
  return found;
}

/** Keys whose string values are opaque carrier bytes in any stored shape (SPEC §2, §23.5). */
const OPAQUE_KEYS = new Set([
  'signature',
  'data',
  'encrypted_content',
  'reasoning_opaque',
  'thought_signature',
  'thoughtSignature',
  'redactedContent',
]);

/**
 * The opaque bytes an assistant message keeps (SPEC §23.5, §25.5): every distinct opaque value
 * counted once, however many places store it (an Anthropic signature sits in both
 * `anthropic_content_blocks` and `reasoning_details`, a Gemini thought signature in a part, the
 * tool call and the carrier record). Readable text never counts.
 */
export function opaqueCarrierBytes(message: AssistantMessage): number {
  const fields = message as unknown as Record<string, JsonValue | undefined>;
  const values = new Set<string>();
  for (const key of OPAQUE_CARRIER_FIELDS) for (const value of opaqueStrings(fields[key])) values.add(value);
  let total = 0;
  for (const value of values) total += utf8ByteLength(value);
  return total;
}

/** Assistant-message fields that can hold opaque bytes, every carrier kind (SPEC §2). */
const OPAQUE_CARRIER_FIELDS = [
  'reasoning_details',
  'anthropic_content_blocks',
  'bedrock_content_blocks',
  'codex_reasoning_items',
  'tool_calls',
  'gemini_content_parts',
] as const;

/**
 * Decisions for the carriers of `message` that `api` does not read. `reasoning_content` and
 * `reasoning` are reported only for a message from another wire API (on a message of the route's
 * own API they mirror the native carrier, which has its own decision).
 */
export function unreadCarrierDecisions(
  message: AssistantMessage,
  messageIndex: number,
  api: NativeReplayApi,
): CarrierDecision[] {
  const decisions: CarrierDecision[] = [];
  const foreign = message.origin !== undefined && message.origin.api !== api;
  const reason = foreign ? 'foreign origin' : `not read by ${api}`;
  const drop = (field: string, bytes: number) =>
    decisions.push({ messageIndex, field, action: 'dropped', reason, bytes });
  // Opaque values a sidecar already reported (or the route reads there): a mirror of one in
  // `reasoning_details` is the same carrier, counted once (SPEC §25.5).
  const sidecarValues = new Set<string>();
  for (const block of message.anthropic_content_blocks ?? []) {
    const value = isJsonObject(block) ? anthropicOpaque(block) : undefined;
    if (value !== undefined) sidecarValues.add(value);
  }
  for (const block of message.bedrock_content_blocks ?? []) {
    const value = isJsonObject(block) ? bedrockOpaque(block) : undefined;
    if (value !== undefined) sidecarValues.add(value);
  }
  for (const part of message.gemini_content_parts ?? []) {
    const value = isJsonObject(part) ? opaque(part['thoughtSignature']) : undefined;
    if (value !== undefined) sidecarValues.add(value);
  }
  const mirrorsSidecar = (entry: JsonObject) => {
    const values = opaqueStrings(entry);
    return values.length > 0 && values.every((value) => sidecarValues.has(value));
  };

  if (api !== 'codex_responses') {
    (message.codex_reasoning_items ?? []).forEach((item, index) => {
      if (isJsonObject(item)) drop(`codex_reasoning_items[${index}]`, responsesItemBytes(item));
    });
  }
  if (api !== 'anthropic_messages') {
    (message.anthropic_content_blocks ?? []).forEach((block, index) => {
      if (isJsonObject(block) && ANTHROPIC_THINKING.has(String(block['type'])))
        drop(`anthropic_content_blocks[${index}] (${String(block['type'])})`, anthropicBlockBytes(block));
    });
  }
  if (api !== 'gemini') {
    (message.gemini_content_parts ?? []).forEach((part, index) => {
      if (isJsonObject(part) && geminiPartBytes(part) > 0)
        drop(`gemini_content_parts[${index}]`, geminiPartBytes(part));
    });
  }
  (message.bedrock_content_blocks ?? []).forEach((block, index) => {
    if (isJsonObject(block) && block['reasoningContent'] !== undefined)
      drop(`bedrock_content_blocks[${index}] (reasoningContent)`, bedrockBlockBytes(block));
  });
  (message.reasoning_details ?? []).forEach((entry, index) => {
    if (!isJsonObject(entry)) return;
    const type = String(entry['type']);
    if (api === 'anthropic_messages' && ANTHROPIC_THINKING.has(type)) return;
    // The Hermes record carries the Gemini message-level signature (SPEC §7.1, §11); a provider's
    // namespaced carrier (`google.native_assistant`, SPEC §24.11) is read by no native encoder.
    if (api === 'gemini' && type === NATIVE_RECORD_TYPE) return;
    if (mirrorsSidecar(entry)) return;
    drop(`reasoning_details[${index}] (${type})`, jsonStringBytes(entry));
  });
  if (foreign) {
    // Anthropic synthesises unsigned thinking from reasoning_content (SPEC §9.3): not a drop there.
    if (
      api !== 'anthropic_messages' &&
      typeof message.reasoning_content === 'string' &&
      message.reasoning_content.trim()
    )
      drop('reasoning_content', utf8ByteLength(message.reasoning_content));
    const reasoning = message.reasoning;
    if (typeof reasoning === 'string' && reasoning.trim() && reasoning !== message.reasoning_content)
      drop('reasoning', utf8ByteLength(reasoning));
  }
  return decisions;
}

/**
 * The carriers a request actually sent, from its decisions (for the request log line): the
 * fields of every `kept` decision without their `[i]` index or `(type)` note.
 */
export function nativeCarriersSent(decisions: readonly CarrierDecision[]): string[] {
  const sent = new Set<string>();
  for (const decision of decisions) {
    if (decision.action !== 'kept') continue;
    sent.add(decision.field.replace(/\s*\(.*\)$/, '').replace(/\[\d+\]/g, ''));
  }
  return [...sent];
}
