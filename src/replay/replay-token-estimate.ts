import type { JsonObject, JsonValue } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import type { Message } from '../core/message.js';
import type { WireApi } from '../core/origin.js';
import type { Carrier } from './replay-types.js';

/**
 * Rough token accounting (SPEC §14–§15). Preflight ({@link estimateRequestTokens}) and the
 * compressor's tail walk ({@link estimateMessageTokens}) share ONE pricing function, so they can
 * never disagree (the prior art's compaction loops, issues #51800, #80246, #45485, #71058, #55572,
 * came from exactly that disagreement). Opaque bytes (signatures, redacted `data`, encrypted
 * content) cost zero: they are not model-visible text.
 */

/** Fixed framing cost of one message (role markers, separators). */
export const MESSAGE_FRAMING_TOKENS = 4;
/** Fixed cost of a non-text user content part (images and other native parts). */
export const NON_TEXT_PART_TOKENS = 85;

/** Options of {@link estimateMessageTokens}. */
export interface MessageEstimateOptions {
  /** Charge reasoning text of assistant messages older than the newest one (SPEC §14). */
  chargeStaleThinking: boolean;
  /** This is the newest assistant message: its reasoning is always charged. */
  newestAssistant: boolean;
}

// eslint-disable-next-line no-control-regex
const NOT_ASCII = /[^\x00-\x7f]/;

/**
 * `ceil(utf8_bytes / 4)` for non-CJK text plus one token per CJK character (SPEC §15).
 */
export function estimateTextTokens(text: string): number {
  // ASCII only (most text): one byte per character, found by a native scan.
  if (!NOT_ASCII.test(text)) return Math.ceil(text.length / 4);
  let cjk = 0;
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (isCjk(code)) cjk += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      // A surrogate pair is one 4-byte code point; CJK extension planes (U+20000–U+3FFFF) count as CJK.
      const next = text.charCodeAt(index + 1);
      const codePoint = (code - 0xd800) * 0x400 + (next - 0xdc00) + 0x10000;
      if (codePoint >= 0x20000 && codePoint <= 0x3ffff) cjk += 1;
      else bytes += 4;
      index += 1;
    } else bytes += 3;
  }
  return cjk + Math.ceil(bytes / 4);
}

function isCjk(code: number): boolean {
  return (
    (code >= 0x3040 && code <= 0x30ff) || // Hiragana, Katakana
    (code >= 0x3400 && code <= 0x4dbf) || // CJK Extension A
    (code >= 0x4e00 && code <= 0x9fff) || // CJK Unified Ideographs
    (code >= 0xac00 && code <= 0xd7af) || // Hangul syllables
    (code >= 0xf900 && code <= 0xfaff) // CJK Compatibility Ideographs
  );
}

function isNonBlank(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/** Readable text of `reasoning_details` entries (`thinking` / `text` / `summary`); never signatures or data. */
function reasoningDetailsText(details: readonly JsonObject[]): number {
  let tokens = 0;
  for (const detail of details) {
    for (const key of ['thinking', 'text', 'summary'] as const) {
      const value = detail[key];
      if (typeof value === 'string') tokens += estimateTextTokens(value);
    }
  }
  return tokens;
}

/** A Responses reasoning item priced without its encrypted payload (SPEC §15). */
function codexItemTokens(item: JsonObject): number {
  let tokens = 0;
  const visit = (value: JsonValue | undefined, key: string): void => {
    if (key === 'encrypted_content' || value === undefined || value === null) return;
    if (typeof value === 'string') tokens += estimateTextTokens(value);
    else if (Array.isArray(value)) for (const entry of value) visit(entry, '');
    else if (isJsonObject(value)) for (const [childKey, child] of Object.entries(value)) visit(child, childKey);
  };
  visit(item, '');
  return tokens;
}

/**
 * SPEC §15: one message's token cost. Content (or its `api_content` sidecar) plus framing, tool
 * call names and arguments, `codex_reasoning_items` without encrypted bytes, and reasoning text
 * when the message is the newest assistant or stale thinking is charged: `reasoning_content`
 * when non-blank, else `reasoning`, else readable `reasoning_details` text.
 */
export function estimateMessageTokens(message: Message, options: MessageEstimateOptions): number {
  let tokens = MESSAGE_FRAMING_TOKENS;
  const apiContent = message.role === 'assistant' ? message.api_content : undefined;
  const content = apiContent ?? message.content;
  if (typeof content === 'string') tokens += estimateTextTokens(content);
  else if (Array.isArray(content)) {
    for (const part of content) {
      tokens += typeof part.text === 'string' ? estimateTextTokens(part.text) : NON_TEXT_PART_TOKENS;
    }
  }
  if (message.role !== 'assistant') return tokens;
  for (const call of message.tool_calls ?? []) {
    tokens += estimateTextTokens(call.function.name) + estimateTextTokens(call.function.arguments);
  }
  for (const item of message.codex_reasoning_items ?? []) tokens += codexItemTokens(item);
  if (!options.newestAssistant && !options.chargeStaleThinking) return tokens;
  if (isNonBlank(message.reasoning_content)) tokens += estimateTextTokens(message.reasoning_content);
  else if (isNonBlank(message.reasoning)) tokens += estimateTextTokens(message.reasoning);
  else if (message.reasoning_details) tokens += reasoningDetailsText(message.reasoning_details);
  return tokens;
}

/** SPEC §15 preflight: exactly the sum of {@link estimateMessageTokens} over the request. */
export function estimateRequestTokens(messages: readonly Message[], options: { chargeStaleThinking: boolean }): number {
  let newest = -1;
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]?.role === 'assistant') {
      newest = index;
      break;
    }
  }
  let total = 0;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index];
    if (!message) continue;
    total += estimateMessageTokens(message, {
      chargeStaleThinking: options.chargeStaleThinking,
      newestAssistant: index === newest,
    });
  }
  return total;
}

/** Inputs of {@link staleThinkingReachesWire}. */
export interface StaleThinkingInput {
  /** Wire API of the route; undefined behaves like "needs reasoning echo" (SPEC §14). */
  api: WireApi | undefined;
  /** Must-echo or opt-in padding is active (SPEC §6.1). */
  pad: boolean;
  /** Chat-completions carriers, or null for non-chat wire APIs (SPEC §6.1 step 2). */
  carriers: readonly Carrier[] | null;
  /** Anthropic route whose model preserves prior thinking and whose route replays it. */
  anthropicReplaysPriorThinking?: boolean;
}

/** SPEC §14: whether old assistant reasoning text travels on this route (and so is charged). */
export function staleThinkingReachesWire(input: StaleThinkingInput): boolean {
  if (input.api === 'anthropic_messages' && input.anthropicReplaysPriorThinking) return true;
  if (input.api === undefined) return input.pad;
  if (input.carriers === null) return input.api !== 'codex_responses' && input.pad;
  return input.carriers.includes('reasoning_content') || input.carriers.includes('reasoning');
}
