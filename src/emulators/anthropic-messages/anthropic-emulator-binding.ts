import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { compactionStateOf } from './anthropic-emulator-compaction.js';
import { openRedactedThinking, sealRedactedThinking } from './anthropic-emulator-signing.js';

/**
 * The Anthropic emulator's thinking-block binding (preserved thinking, `thinking-binding-controls-
 * 2026-08-01`; docs/wire.md "Thinking-block binding"), as the emulator reads Anthropic's docs. It
 * stands for the provider, so it keeps its own reading and shares no code with Hermes's replay:
 *
 * - A signed block records the model that wrote it and a hash of its prefix: the top-level
 *   `system`, the `tools`, every earlier message, and the blocks of its own message before it.
 * - A block read by another model is dropped without an error (`model_binding_mismatch`).
 * - A block whose prefix changed, and every later thinking block, fail the prefix check: a 400
 *   ("… The block is bound to a different conversation …") or, under `drop_block`, dropped
 *   (`prefix_binding_mismatch`). The request's own `thinking.block_binding.prefix_mismatch_behavior`
 *   wins over the mode, and needs the beta (else `thinking.adaptive.block_binding: Extra inputs are
 *   not permitted`).
 * - The prefix is compared as content: object keys in any order, `cache_control` markers ignored,
 *   a string `system` / `content` the same as its one text block. A dropped block stays part of
 *   the prefix of the blocks after it (they were bound to the request as it was sent).
 * - With the beta, every answer carries `input_transformations` (empty when nothing was dropped).
 */

/** What the emulator does with a block that fails the prefix check when the request says nothing. */
export type AnthropicBindingMode = 'error' | 'drop_block';

/** The beta that lets a request carry `thinking.block_binding`. */
export const BINDING_BETA = 'thinking-binding-controls-2026-08-01';

/** One `input_transformations` entry. */
export interface BindingTransformation {
  type: 'thinking_dropped';
  path: string;
  reason: 'prefix_binding_mismatch' | 'model_binding_mismatch';
}

type Json = unknown;
type Block = Record<string, unknown>;

function sortedJson(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object)
    .filter((key) => key !== 'cache_control' && object[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${sortedJson(object[key])}`).join(',')}}`;
}

function contentBlocks(value: Json): Json[] {
  if (typeof value === 'string') return value === '' ? [] : [{ type: 'text', text: value }];
  if (!Array.isArray(value)) return [];
  return value.map((block) => {
    const entry = block as Block;
    return entry?.['type'] === 'tool_result' && typeof entry['content'] === 'string'
      ? { ...entry, content: contentBlocks(entry['content']) }
      : block;
  });
}

function sha(...parts: (Buffer | string)[]): Buffer {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
}

/** The hash of `system` and `tools`: where every chain starts, and part of every block's prefix. */
function systemToolsHash(request: Block): Buffer {
  return sha(
    sortedJson({
      system: contentBlocks(request['system']),
      tools: Array.isArray(request['tools']) ? request['tools'] : [],
    }),
  );
}

/** One message into the chain. */
function step(state: Buffer, role: unknown, content: Json): Buffer {
  return sha(state, sortedJson({ role, content: contentBlocks(content) }));
}

/**
 * Where a request's message chain starts, and the first message it walks. A request led by a
 * compaction block starts where the block's compaction request ended (the API accepts the swap of
 * its own summary), unless that compaction ran on a model without preserved thinking or the first
 * kept message has the role of the last summarised one (it would be merged into it): then the
 * chain starts somewhere no earlier block was bound to.
 */
function chainStart(request: Block): { state: Buffer; from: number } {
  const messages = Array.isArray(request['messages']) ? (request['messages'] as Block[]) : [];
  const first = messages[0];
  const blocks = first ? contentBlocks(first['content']) : [];
  const leading = blocks[0] as Block | undefined;
  if (leading?.['type'] !== 'compaction') return { state: sha('chain', systemToolsHash(request)), from: 0 };
  const opened = compactionStateOf(leading);
  let state = opened ? opened.state : sha('unreadable compaction');
  const rest = blocks.slice(1);
  const next = rest.length > 0 ? first : messages[1];
  if (!opened?.preserved || (next !== undefined && next['role'] === opened.lastRole)) state = sha('unbound', state);
  if (rest.length > 0) state = step(state, first?.['role'], rest);
  return { state, from: 1 };
}

/** The chain state before message `messageIndex` (after every message when it is the length). */
export function emulatedChainBefore(request: Block, messageIndex: number): Buffer {
  const messages = Array.isArray(request['messages']) ? (request['messages'] as Block[]) : [];
  const start = chainStart(request);
  let state = start.state;
  for (let index = start.from; index < Math.min(messageIndex, messages.length); index += 1)
    state = step(state, messages[index]?.['role'], messages[index]?.['content']);
  return state;
}

/**
 * The hash of a block's prefix: `system`, `tools`, the messages before (a chain, so a compaction
 * block can stand for the messages it summarised), its own message's blocks before.
 */
export function emulatedPrefixHash(request: Block, messageIndex: number, blockIndex: number): Buffer {
  const messages = Array.isArray(request['messages']) ? (request['messages'] as Block[]) : [];
  const own = messages[messageIndex];
  const partial = own ? contentBlocks(own['content']).slice(0, blockIndex) : [];
  const chain = emulatedChainBefore(request, messageIndex);
  return sha(systemToolsHash(request), chain, sortedJson({ role: own?.['role'] ?? 'assistant', content: partial }));
}

/** The prefix hash of a new answer's block at `blockIndex`, after the whole request. */
export function emulatedAnswerPrefixHash(request: Block, answerBlocks: readonly Block[], blockIndex: number): Buffer {
  const messages = Array.isArray(request['messages']) ? (request['messages'] as Block[]) : [];
  const extended = { ...request, messages: [...messages, { role: 'assistant', content: [...answerBlocks] }] };
  return emulatedPrefixHash(extended, messages.length, blockIndex);
}

function modelHash(model: string): Buffer {
  return createHash('sha256').update(`model\0${model}`).digest().subarray(0, 16);
}

function textHash(text: string): Buffer {
  return createHash('sha256').update(`text\0${text}`).digest().subarray(0, 16);
}

function tag(secret: string, header: Buffer): Buffer {
  return createHmac('sha256', secret).update('bound\0').update(header).digest();
}

/** A bound signature: prefix hash (32) · model hash (16) · text hash (16) · HMAC (32), base64 (128 characters). */
export function signBoundThinking(secret: string, thinking: string, model: string, prefix: Buffer): string {
  const header = Buffer.concat([prefix, modelHash(model), textHash(thinking)]);
  return Buffer.concat([header, tag(secret, header)]).toString('base64');
}

/** Bound `redacted_thinking.data`: prefix hash · model hash · the sealed hidden text (sealed under the header). */
export function sealBoundRedacted(secret: string, hidden: string, model: string, prefix: Buffer): string {
  const header = Buffer.concat([prefix, modelHash(model)]);
  const sealed = Buffer.from(sealRedactedThinking(secret, hidden, header.toString('hex')), 'base64');
  return Buffer.concat([header, sealed]).toString('base64');
}

/** What a replayed signed block says about itself, once authenticated. */
interface OpenedBound {
  prefix: Buffer;
  model: Buffer;
  /** False when the readable text is not the text the block was issued with. */
  textIntact: boolean;
  /** The hidden text of a redacted block. */
  hidden?: string;
}

function openBound(secret: string, block: Block): OpenedBound | undefined {
  if (block['type'] === 'thinking') {
    const bytes = Buffer.from(String(block['signature'] ?? ''), 'base64');
    if (bytes.length !== 96) return undefined;
    const header = bytes.subarray(0, 64);
    if (!timingSafeEqual(tag(secret, header), bytes.subarray(64))) return undefined;
    const intact = timingSafeEqual(header.subarray(48, 64), textHash(String(block['thinking'] ?? '')));
    return { prefix: header.subarray(0, 32), model: header.subarray(32, 48), textIntact: intact };
  }
  const bytes = Buffer.from(String(block['data'] ?? ''), 'base64');
  if (bytes.length < 48 + 32) return undefined;
  const header = bytes.subarray(0, 48);
  const hidden = openRedactedThinking(secret, bytes.subarray(48).toString('base64'), header.toString('hex'));
  if (hidden === undefined) return undefined;
  return { prefix: header.subarray(0, 32), model: header.subarray(32, 48), textIntact: true, hidden };
}

/** Inputs of {@link checkBinding}. */
export interface BindingCheckOptions {
  secret: string;
  model: string;
  mode: AnthropicBindingMode;
  /** The request carried the binding beta (header, or Bedrock `anthropic_beta`). */
  beta: boolean;
  /** The request's framing: Bedrock takes no binding controls (no evidence it does). */
  bedrock: boolean;
}

/** The outcome for a request's thinking blocks. */
export type BindingOutcome =
  | { ok: false; message: string; bound: boolean }
  | {
      ok: true;
      /** `i.j` of every dropped block. */
      dropped: Set<string>;
      transformations: BindingTransformation[];
      /** Hidden text of each readable redacted block, by `i.j`. */
      hidden: Map<string, string>;
    };

/** The request's declared behaviour, or the rejection of its `thinking.block_binding`. */
function declaredBehaviour(request: Block, options: BindingCheckOptions): string | undefined | { error: string } {
  const thinking = request['thinking'] as Block | undefined;
  const binding = thinking?.['block_binding'];
  if (binding === undefined) return undefined;
  const where = `thinking.${String(thinking?.['type'] ?? 'adaptive')}.block_binding`;
  if (options.bedrock || !options.beta) return { error: `${where}: Extra inputs are not permitted` };
  const behaviour = (binding as Block | null)?.['prefix_mismatch_behavior'];
  if (behaviour !== undefined && behaviour !== 'error' && behaviour !== 'drop_block') {
    return { error: `${where}.prefix_mismatch_behavior: Input should be 'error' or 'drop_block'` };
  }
  return typeof behaviour === 'string' ? behaviour : 'error';
}

/** Error 2.6b in its binding wording (WIRE §8), naming what changed first. */
export function boundConversationMessage(messageIndex: number, blockIndex: number): string {
  return `messages.${messageIndex}.content.${blockIndex}: Invalid \`signature\` in \`thinking\` block. The block is bound to a different conversation. Remove the block, or set \`thinking.block_binding.prefix_mismatch_behavior\` to "drop_block". That setting requires the \`${BINDING_BETA}\` value in the \`anthropic-beta\` header.`;
}

/** WIRE §8: a modified block in the latest assistant message. */
export function modifiedThinkingMessage(messageIndex: number, blockIndex: number): string {
  return `messages.${messageIndex}.content.${blockIndex}: \`thinking\` or \`redacted_thinking\` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.`;
}

/** Checks every signed block of a request under the binding rules (see the file comment). */
export function checkBinding(request: Block, options: BindingCheckOptions): BindingOutcome {
  const declared = declaredBehaviour(request, options);
  if (typeof declared === 'object') return { ok: false, message: declared.error, bound: false };
  const behaviour = declared ?? options.mode;
  const messages = Array.isArray(request['messages']) ? (request['messages'] as Block[]) : [];
  let lastAssistant = -1;
  messages.forEach((message, index) => {
    if (message['role'] === 'assistant') lastAssistant = index;
  });
  const dropped = new Set<string>();
  const hidden = new Map<string, string>();
  const transformations: BindingTransformation[] = [];
  const model = modelHash(options.model);
  let prefixBroken = false;
  for (const [messageIndex, message] of messages.entries()) {
    if (message['role'] !== 'assistant' || !Array.isArray(message['content'])) continue;
    for (const [blockIndex, block] of (message['content'] as Block[]).entries()) {
      if (block['type'] !== 'thinking' && block['type'] !== 'redacted_thinking') continue;
      const key = `${messageIndex}.${blockIndex}`;
      const path = `messages.${messageIndex}.content.${blockIndex}`;
      const opened = openBound(options.secret, block);
      if (!opened) {
        return {
          ok: false,
          bound: false,
          message: `${path}: Invalid \`${block['type'] === 'thinking' ? 'signature' : 'data'}\` in \`${String(block['type'])}\` block`,
        };
      }
      if (!opened.textIntact) {
        const message =
          messageIndex === lastAssistant
            ? modifiedThinkingMessage(messageIndex, blockIndex)
            : `${path}: Invalid \`signature\` in \`thinking\` block`;
        return { ok: false, bound: false, message };
      }
      if (!opened.model.equals(model)) {
        dropped.add(key);
        transformations.push({ type: 'thinking_dropped', path, reason: 'model_binding_mismatch' });
        continue;
      }
      prefixBroken ||= !opened.prefix.equals(emulatedPrefixHash(request, messageIndex, blockIndex));
      if (prefixBroken) {
        if (behaviour !== 'drop_block') {
          return { ok: false, bound: true, message: boundConversationMessage(messageIndex, blockIndex) };
        }
        dropped.add(key);
        transformations.push({ type: 'thinking_dropped', path, reason: 'prefix_binding_mismatch' });
        continue;
      }
      if (opened.hidden !== undefined) hidden.set(key, opened.hidden);
    }
  }
  return { ok: true, dropped, transformations, hidden };
}
