/**
 * SPEC §24.10 (§23.3 everywhere): the native encoders (Anthropic, Gemini, Responses) record a
 * decision for every carrier a message holds that their wire format does not read, including
 * foreign-origin blobs (`dropped codex_reasoning_items[0] (foreign origin, 2916 B)`), and name the
 * carriers they sent for the request log. One byte count per carrier, the same whether kept or
 * dropped: encrypted items count their `encrypted_content`, signed thinking its signature (or
 * redacted data) plus its text, Gemini thought parts their text plus signature, other entries
 * every string inside them. Pure.
 */
import { isJsonObject, type JsonObject } from '../core/json.js';
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

/** Bytes of a signed Anthropic block: signature (or redacted data) plus readable text. */
export function anthropicBlockBytes(block: JsonObject): number {
  return text(block['signature']) + text(block['data']) + text(block['thinking']);
}

/** Bytes of a stored Responses item: its `encrypted_content`, else every string in it. */
export function responsesItemBytes(item: JsonObject): number {
  const encrypted = item['encrypted_content'];
  return typeof encrypted === 'string' ? utf8ByteLength(encrypted) : jsonStringBytes(item);
}

function geminiPartBytes(part: JsonObject): number {
  return (part['thought'] === true ? text(part['text']) : 0) + text(part['thoughtSignature']);
}

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
      drop(`bedrock_content_blocks[${index}] (reasoningContent)`, jsonStringBytes(block));
  });
  (message.reasoning_details ?? []).forEach((entry, index) => {
    if (!isJsonObject(entry)) return;
    const type = String(entry['type']);
    if (api === 'anthropic_messages' && ANTHROPIC_THINKING.has(type)) return;
    // The Hermes record carries the Gemini message-level signature (SPEC §7.1, §11); a provider's
    // namespaced carrier (`google.native_assistant`, SPEC §24.11) is read by no native encoder.
    if (api === 'gemini' && type === NATIVE_RECORD_TYPE) return;
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
