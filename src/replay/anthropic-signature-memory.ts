/**
 * Rejected-signature memory (SPEC §9.4), as pure functions. The runtime, on a 400 whose body
 * matches {@link isThinkingSignatureError} on a signed-replay route, fingerprints the signed blocks
 * of the rejected body, merges them into the session model config key
 * {@link ANTHROPIC_REJECTED_THINKING_KEY}, and retries once with
 * `TransportRequest.rejectedThinkingFingerprints` set; when nothing was fingerprintable it retries
 * once with `stripAllThinking` instead and persists nothing.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../core/json.js';
import { condemnedPositions } from './anthropic-body-repairs.js';
import { sha256Hex } from './anthropic-sha256.js';

/** Session `model_config` key holding the sorted fingerprint list. */
export const ANTHROPIC_REJECTED_THINKING_KEY = '_anthropic_rejected_thinking';

// Anthropic: "messages.1.content.0: Invalid `signature` in `thinking` block" (WIRE.md §2.6b), and
// the 2026-09 variant "… The block is bound to a different conversation …". Quotes vary by proxy
// (backticks, none, escaped JSON), so they are optional.
const SIGNATURE_ERROR_PATTERNS = [
  /invalid\s*\\?[`'"]?signature\\?[`'"]?\s*in\s*\\?[`'"]?thinking\\?[`'"]?\s*block/i,
  /bound to a different conversation/i,
];

/** True when a provider error body says a thinking signature was rejected. */
export function isThinkingSignatureError(body: string): boolean {
  return SIGNATURE_ERROR_PATTERNS.some((pattern) => pattern.test(body));
}

/** True for the thinking-binding variant: "The block is bound to a different conversation" (SPEC §26.4). */
export function isBoundConversationError(body: string): boolean {
  return /bound to a different conversation/i.test(body);
}

/**
 * WIRE §8: "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be
 * modified. These blocks must remain as they were in the original response."
 */
export function isThinkingModifiedError(body: string): boolean {
  return /blocks in the latest assistant message cannot be modified/i.test(body);
}

/**
 * Fingerprints of the signed blocks a binding or "cannot be modified" 400 condemns: the block
 * its path names and every later one (sorted, unique). Earlier blocks stay valid (Anthropic's
 * preserved-thinking docs) and keep travelling.
 */
export function fingerprintCondemnedBlocks(body: JsonObject, errorText: string): string[] {
  const messages = Array.isArray(body['messages']) ? body['messages'] : [];
  const found = new Set<string>();
  for (const [messageIndex, blockIndex] of condemnedPositions(body, errorText)) {
    const message = messages[messageIndex];
    const content = isJsonObject(message) && Array.isArray(message['content']) ? message['content'] : [];
    const block = content[blockIndex];
    const fingerprint = isJsonObject(block) ? fingerprintOfBlock(block) : null;
    if (fingerprint !== null) found.add(fingerprint);
  }
  return [...found].sort();
}

/** Fingerprint of one signed block: SHA-256 hex of `type\0signature-or-data`. */
export function fingerprintOf(type: 'thinking' | 'redacted_thinking', signatureOrData: string): string {
  return sha256Hex(`${type}\0${signatureOrData}`);
}

/** Fingerprint of a block when it is signed (`thinking` with a signature, `redacted_thinking` with data). */
export function fingerprintOfBlock(block: JsonObject): string | null {
  if (block['type'] === 'thinking' && typeof block['signature'] === 'string' && block['signature'] !== '') {
    return fingerprintOf('thinking', block['signature']);
  }
  if (block['type'] === 'redacted_thinking' && typeof block['data'] === 'string' && block['data'] !== '') {
    return fingerprintOf('redacted_thinking', block['data']);
  }
  return null;
}

function collectFrom(value: JsonValue | undefined, into: Set<string>): void {
  if (!Array.isArray(value)) return;
  for (const entry of value) {
    if (!isJsonObject(entry)) continue;
    const fingerprint = fingerprintOfBlock(entry);
    if (fingerprint !== null) into.add(fingerprint);
  }
}

/**
 * Fingerprints every signed block of a rejected request body (sorted, unique). Block sources are
 * the wire `messages[].content[]` plus, so the same function works on stored history shapes,
 * `reasoning_details`, `anthropic_content_blocks` and `_anthropic_content_blocks`.
 */
export function fingerprintSignedBlocks(body: JsonObject): string[] {
  const found = new Set<string>();
  const messages = body['messages'];
  if (Array.isArray(messages)) {
    for (const message of messages) {
      if (!isJsonObject(message)) continue;
      collectFrom(message['content'], found);
      collectFrom(message['reasoning_details'], found);
      collectFrom(message['anthropic_content_blocks'], found);
      collectFrom(message['_anthropic_content_blocks'], found);
    }
  }
  return [...found].sort();
}

/**
 * Reads the remembered fingerprints from a session model config: the current sorted-list format,
 * or the older `{"fingerprints": [...], "strip_all": bool}` (SPEC §22.9; `strip_all` is ignored
 * because "strip everything" now applies to one retry only).
 */
export function readRejectedThinking(modelConfig: JsonObject | null | undefined): string[] {
  const value = modelConfig?.[ANTHROPIC_REJECTED_THINKING_KEY];
  const list = Array.isArray(value) ? value : isJsonObject(value) ? value['fingerprints'] : undefined;
  if (!Array.isArray(list)) return [];
  return [...new Set(list.filter((entry): entry is string => typeof entry === 'string'))].sort();
}

/** Merges new fingerprints into remembered ones: sorted, unique (the persisted format). */
export function mergeRejectedThinking(remembered: readonly string[], added: readonly string[]): string[] {
  return [...new Set([...remembered, ...added])].sort();
}

/**
 * Returns a copy of `modelConfig` with the merged fingerprint list under
 * {@link ANTHROPIC_REJECTED_THINKING_KEY} (older dict format is rewritten as the sorted list).
 */
export function withRejectedThinking(modelConfig: JsonObject | null | undefined, added: readonly string[]): JsonObject {
  const merged = mergeRejectedThinking(readRejectedThinking(modelConfig), added);
  return { ...(modelConfig ?? {}), [ANTHROPIC_REJECTED_THINKING_KEY]: merged };
}
