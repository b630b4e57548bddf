/**
 * Per-message Anthropic block building (SPEC §9.3, first half): the `anthropic_content_blocks`
 * sidecar is authoritative and whitelisted; otherwise blocks are rebuilt from `reasoning_details`,
 * text and `tool_calls`; remembered rejected fingerprints (SPEC §9.4) are dropped; an unsigned
 * thinking block is synthesised from `reasoning_content` only when no thinking block exists.
 * Route treatment happens later in `anthropic-replay.ts`.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../core/json.js';
import type { AssistantMessage } from '../core/message.js';
import { type BlockBinding, blockBindingOf, type SystemBinding, systemBindingOf } from './anthropic-block-binding.js';
import { fingerprintOfBlock } from './anthropic-signature-memory.js';
import type { CarrierDecision } from './replay-types.js';

/** What the route treatment needs to know about a thinking or redacted_thinking block. */
export interface ThinkingMeta {
  /** Carries a signature (thinking) or data (redacted_thinking). */
  signed: boolean;
  /** Readable thinking text ("" for redacted or display-omitted blocks). */
  readable: string;
  /** Synthesised from `reasoning_content` (never had a block). */
  synthesized: boolean;
  /** The model and prefix the signed block is bound to, when Hermes captured them (SPEC §26.4). */
  binding?: BlockBinding;
  /** The model and system prompt the signed block was produced under, when Hermes kept them. */
  systemBinding?: SystemBinding;
}

/** One block on its way to the wire, with where it came from. */
export interface DraftBlock {
  block: JsonObject;
  historyIndex: number;
  /**
   * The immutable stored object `block` was derived from, and that alone (a message, a content
   * part, a sidecar block, a tool call): the key its prefix-digest element is cached under.
   */
  source?: object;
  /** Present on thinking and redacted_thinking blocks. */
  thinking?: ThinkingMeta;
  /** The source message's signature no longer verifies (`_thinking_signature_invalidated`). */
  invalidated?: boolean;
  /** The block came from the second of two merged same-role messages. */
  mergedSecond?: boolean;
  /** Every tool call of the block's turn was orphaned: its plan never ran (SPEC §24.3). */
  allOrphaned?: boolean;
}

/** Server-tool result block types replayed verbatim beside their `server_tool_use`. */
const SERVER_RESULT_TYPES = new Set([
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
]);

function pick(block: JsonObject, keys: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const key of keys) if (block[key] !== undefined) out[key] = block[key];
  return out;
}

function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

/**
 * Whitelist sanitisation: only known block types and fields survive. `cache_control` is removed
 * from thinking blocks (Anthropic does not accept it there) and kept on text and tool_use.
 */
export function sanitizeBlock(block: JsonObject): JsonObject | null {
  switch (block['type']) {
    case 'thinking':
      return typeof block['thinking'] === 'string' ? pick(block, ['type', 'thinking', 'signature']) : null;
    case 'redacted_thinking':
      return typeof block['data'] === 'string' && block['data'] !== '' ? pick(block, ['type', 'data']) : null;
    case 'text':
      return typeof block['text'] === 'string' ? pick(block, ['type', 'text', 'citations', 'cache_control']) : null;
    case 'tool_use':
      return pick(block, ['type', 'id', 'name', 'input', 'cache_control']);
    case 'server_tool_use':
      return pick(block, ['type', 'id', 'name', 'input']);
    default:
      return typeof block['type'] === 'string' && SERVER_RESULT_TYPES.has(block['type'])
        ? pick(block, ['type', 'tool_use_id', 'content'])
        : null;
  }
}

function parseArguments(text: string): JsonObject | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return isJsonObject(parsed) ? (parsed as JsonObject) : null;
  } catch {
    return null;
  }
}

function thinkingMetaOf(block: JsonObject, synthesized = false): ThinkingMeta | undefined {
  if (block['type'] === 'thinking') {
    const signature = block['signature'];
    return {
      signed: typeof signature === 'string' && signature !== '',
      readable: typeof block['thinking'] === 'string' ? block['thinking'] : '',
      synthesized,
    };
  }
  if (block['type'] === 'redacted_thinking') return { signed: true, readable: '', synthesized };
  return undefined;
}

function anthropicReasoningDetails(message: AssistantMessage): JsonObject[] {
  return (message.reasoning_details ?? []).filter(
    (entry) =>
      (entry['type'] === 'thinking' && typeof entry['thinking'] === 'string') ||
      (entry['type'] === 'redacted_thinking' && typeof entry['data'] === 'string' && entry['data'] !== ''),
  );
}

/** A block to replay with the binding context its sidecar entry carried (SPEC §26.4). */
interface SourceBlock {
  block: JsonObject;
  binding?: BlockBinding | undefined;
  systemBinding?: SystemBinding | undefined;
  source: object;
}

/** The raw (unsanitised) block list of an assistant message before fingerprint filtering. */
function sourceBlocks(message: AssistantMessage, historyIndex: number, decisions: CarrierDecision[]): SourceBlock[] {
  const sidecar = message.anthropic_content_blocks ?? [];
  const details = anthropicReasoningDetails(message);
  if (sidecar.length > 0) {
    const redactedFallback = details.filter((entry) => entry['type'] === 'redacted_thinking');
    const out: SourceBlock[] = [];
    for (const raw of sidecar) {
      if (!isJsonObject(raw)) continue;
      if (raw['type'] === 'redacted_thinking' && (typeof raw['data'] !== 'string' || raw['data'] === '')) {
        // SPEC §9.3: a redacted block without data is dropped; conversion falls back to reasoning_details.
        const fallback = redactedFallback.shift();
        if (fallback) out.push({ block: fallback, source: fallback });
        else
          decisions.push({
            messageIndex: historyIndex,
            field: 'redacted_thinking',
            action: 'dropped',
            reason: 'no data',
          });
        continue;
      }
      const clean = sanitizeBlock(raw);
      if (clean)
        out.push({ block: clean, binding: blockBindingOf(raw), systemBinding: systemBindingOf(raw), source: raw });
      else
        decisions.push({
          messageIndex: historyIndex,
          field: String(raw['type']),
          action: 'dropped',
          reason: 'unknown block type',
        });
    }
    return out;
  }
  const out: SourceBlock[] = details.map((entry) => ({
    block:
      entry['type'] === 'thinking'
        ? pick(entry, ['type', 'thinking', 'signature'])
        : { type: 'redacted_thinking', data: entry['data'] ?? '' },
    source: entry,
  }));
  const text = message.api_content ?? message.content;
  if (typeof text === 'string' && text !== '') out.push({ block: { type: 'text', text }, source: message });
  for (const call of message.tool_calls ?? []) {
    out.push({ block: { type: 'tool_use', id: call.id, name: call.function.name, input: {} }, source: call });
  }
  return out;
}

/**
 * Builds the draft blocks of one assistant message. Drops remembered rejected fingerprints (and
 * with them a `reasoning_content` equal to their "\n\n"-joined readable mirror, SPEC §9.4), then
 * synthesises an unsigned thinking block from `reasoning_content` when no thinking block exists.
 */
export function assistantDraftBlocks(
  message: AssistantMessage,
  historyIndex: number,
  rejectedFingerprints: ReadonlySet<string>,
  decisions: CarrierDecision[],
): DraftBlock[] {
  const invalidated = message['_thinking_signature_invalidated'] === true;
  const argumentsById = new Map<string, JsonObject>();
  for (const call of message.tool_calls ?? []) {
    const parsed = parseArguments(call.function.arguments);
    if (parsed) argumentsById.set(call.id, parsed);
  }

  const drafts: DraftBlock[] = [];
  const droppedMirror: string[] = [];
  const seenToolUse = new Set<string>();
  for (const { block, binding, systemBinding, source } of sourceBlocks(message, historyIndex, decisions)) {
    const fingerprint = fingerprintOfBlock(block);
    if (fingerprint !== null && rejectedFingerprints.has(fingerprint)) {
      const readable = typeof block['thinking'] === 'string' ? block['thinking'] : '';
      if (readable !== '') droppedMirror.push(readable);
      decisions.push({
        messageIndex: historyIndex,
        field: String(block['type']),
        action: 'dropped',
        reason: 'fingerprint rejected',
        bytes: byteLength(String(block['signature'] ?? block['data'] ?? '')),
      });
      continue;
    }
    if (block['type'] === 'tool_use' && typeof block['id'] === 'string') {
      seenToolUse.add(block['id']);
      // SPEC §9.3: tool_use.input is re-sourced from the stored tool call's arguments.
      const input = argumentsById.get(block['id']);
      drafts.push({
        block: { ...block, input: input ?? (isJsonObject(block['input']) ? block['input'] : {}) },
        historyIndex,
        source,
      });
      continue;
    }
    const meta = thinkingMetaOf(block);
    if (meta && binding && meta.signed) meta.binding = binding;
    if (meta && systemBinding && meta.signed) meta.systemBinding = systemBinding;
    drafts.push(meta ? { block, historyIndex, thinking: meta, invalidated, source } : { block, historyIndex, source });
  }
  // Tool calls the sidecar did not carry still go out (their results follow in history).
  for (const call of message.tool_calls ?? []) {
    if (seenToolUse.has(call.id)) continue;
    drafts.push({
      block: { type: 'tool_use', id: call.id, name: call.function.name, input: argumentsById.get(call.id) ?? {} },
      historyIndex,
      source: call,
    });
  }

  if (!drafts.some((draft) => draft.thinking)) {
    const reasoningContent = message.reasoning_content;
    const mirror = droppedMirror.join('\n\n');
    if (typeof reasoningContent === 'string' && reasoningContent.trim() !== '') {
      if (droppedMirror.length > 0 && reasoningContent === mirror) {
        decisions.push({
          messageIndex: historyIndex,
          field: 'reasoning_content',
          action: 'dropped',
          reason: 'mirror of a rejected block',
          bytes: byteLength(reasoningContent),
        });
      } else {
        const block: JsonObject = { type: 'thinking', thinking: reasoningContent };
        drafts.unshift({
          block,
          historyIndex,
          thinking: { signed: false, readable: reasoningContent, synthesized: true },
        });
      }
    }
  }
  return drafts;
}

/** Builds the draft blocks of a user message (text parts become text blocks; other parts verbatim). */
export function userDraftBlocks(
  content: string | readonly JsonValue[],
  historyIndex: number,
  message?: object,
): DraftBlock[] {
  if (typeof content === 'string') {
    if (content === '') return [];
    const draft: DraftBlock = { block: { type: 'text', text: content }, historyIndex };
    if (message) draft.source = message;
    return [draft];
  }
  const drafts: DraftBlock[] = [];
  for (const part of content) {
    if (!isJsonObject(part)) continue;
    if (part['type'] === 'text' && typeof part['text'] === 'string') {
      if (part['text'] !== '') drafts.push({ block: { type: 'text', text: part['text'] }, historyIndex, source: part });
    } else drafts.push({ block: part, historyIndex, source: part });
  }
  return drafts;
}

/** UTF-8 byte size, shared with the turn assembler for decisions. */
export { byteLength as anthropicByteLength };
