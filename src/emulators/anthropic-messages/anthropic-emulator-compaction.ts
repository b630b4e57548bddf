import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendJson } from '../shared/emulator-http-server.js';
import { EmulatorSseWriter } from '../shared/emulator-sse-writer.js';
import { emulatedModelCompactsOnDemand, emulatedModelPreservesThinking } from './anthropic-emulator-models.js';

/**
 * The Anthropic emulator's on-demand compaction (beta `compact-2026-09-04`; Anthropic's pages
 * "Compaction on demand", "Compaction that keeps recent turns", "Compaction and preserved
 * thinking"), as the emulator reads them. It stands for the provider and shares no code with Hermes:
 *
 * - A request with `compaction: {"type": "summarize"}` (and the beta) gets one signed `compaction`
 *   block and `stop_reason: "compaction"`, no reply. Refused: without the beta, on Bedrock, with
 *   `context_management`, on a model the pages do not list, or when the last assistant turn ends
 *   in a tool call with no result.
 * - A later request carries exactly one block, first in `messages`, exactly as returned, with the
 *   beta; otherwise a 400 (`compaction_block_misplaced`, `compaction_signature_invalid`,
 *   `compaction_content_mismatch`, or the validation error of an unknown block type).
 * - The block's signature records where the prefix chain stood after the summarised messages
 *   (anthropic-emulator-binding.ts), whether the compaction ran on a model with preserved thinking,
 *   and the role of the last summarised message. The binding check continues the chain from there,
 *   so the thinking in kept turns stays valid exactly while the pages' conditions hold.
 */

/** The on-demand compaction beta. */
export const COMPACTION_BETA = 'compact-2026-09-04';

type Block = Record<string, unknown>;

/** A rejection, as the emulator's request rules return it. */
export interface CompactionRejection {
  ok: false;
  status: number;
  message: string;
}

const reject = (message: string): CompactionRejection => ({ ok: false, status: 400, message });

/** What the leading block of a request says about the chain, read from its signature. */
export interface CompactionState {
  /** Prefix-chain state after the summarised messages. */
  state: Buffer;
  /** The compaction request ran on a model with preserved thinking. */
  preserved: boolean;
  /** Role of the last summarised message. */
  lastRole: string;
}

function contentHash(content: string): Buffer {
  return createHash('sha256').update(`compaction\0${content}`).digest().subarray(0, 16);
}

function tag(secret: string, header: Buffer): Buffer {
  return createHmac('sha256', secret).update('compaction\0').update(header).digest();
}

/** Signature: chain state (32) · flags (1) · content hash (16) · HMAC (32), base64. */
export function signCompaction(
  secret: string,
  content: string,
  state: Buffer,
  preserved: boolean,
  lastRole: string,
): string {
  const flags = Buffer.from([(preserved ? 1 : 0) | (lastRole === 'assistant' ? 2 : 0)]);
  const header = Buffer.concat([state, flags, contentHash(content)]);
  return Buffer.concat([header, tag(secret, header)]).toString('base64');
}

/** The state a block's signature records (not authenticated: {@link checkCompactionBlocks} does that). */
export function compactionStateOf(block: Block): CompactionState | undefined {
  const bytes = Buffer.from(String(block['signature'] ?? ''), 'base64');
  if (bytes.length !== 81) return undefined;
  const flags = bytes[32] ?? 0;
  return { state: bytes.subarray(0, 32), preserved: (flags & 1) === 1, lastRole: flags & 2 ? 'assistant' : 'user' };
}

function blocksOf(content: unknown): Block[] {
  return Array.isArray(content)
    ? (content as Block[]).filter((block) => typeof block === 'object' && block !== null)
    : [];
}

/** True when the request carries the compaction beta (header only: Bedrock does not offer it). */
export function compactionBetaSent(header: string | string[] | undefined): boolean {
  return (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .some((beta) => beta.trim() === COMPACTION_BETA);
}

/** Inputs of {@link checkCompaction}. */
export interface CompactionCheckOptions {
  secret: string;
  model: string;
  beta: boolean;
  bedrock: boolean;
}

/**
 * Checks a request's compaction parameter and blocks (see the file comment); `summarize` is true
 * for a compaction request.
 */
export function checkCompaction(
  request: Block,
  options: CompactionCheckOptions,
): CompactionRejection | { ok: true; summarize: boolean } {
  const messages = Array.isArray(request['messages']) ? (request['messages'] as Block[]) : [];
  const found: string[] = [];
  for (const [messageIndex, message] of messages.entries()) {
    for (const [blockIndex, block] of blocksOf(message['content']).entries()) {
      if (block['type'] === 'compaction') found.push(`${messageIndex}.${blockIndex}`);
    }
  }
  if (found.length > 0) {
    const first = found[0] ?? '0.0';
    if (!options.beta || options.bedrock) {
      return reject(
        `messages.${first.replace('.', '.content.')}.type: Input tag 'compaction' found using 'type' does not match any of the expected tags`,
      );
    }
    if (found.length > 1) return reject('messages: a request can carry only one `compaction` block; send the newest');
    if (first !== '0.0') {
      return reject(
        `messages.${first.replace('.', '.content.')}: summarized messages remain in front of the \`compaction\` block (compaction_block_misplaced)`,
      );
    }
    const block = blocksOf(messages[0]?.['content'])[0] ?? {};
    const extra = Object.keys(block).filter((key) => !['type', 'content', 'signature', 'cache_control'].includes(key));
    if (extra.length > 0) return reject(`messages.0.content.0.compaction.${extra[0]}: Extra inputs are not permitted`);
    const bytes = Buffer.from(String(block['signature'] ?? ''), 'base64');
    if (bytes.length !== 81 || !timingSafeEqual(tag(options.secret, bytes.subarray(0, 49)), bytes.subarray(49))) {
      return reject('messages.0.content.0: the `compaction` block signature is invalid (compaction_signature_invalid)');
    }
    if (!bytes.subarray(33, 49).equals(contentHash(String(block['content'] ?? '')))) {
      return reject('messages.0.content.0: the `compaction` block content was changed (compaction_content_mismatch)');
    }
  }
  const parameter = request['compaction'];
  if (parameter === undefined) return { ok: true, summarize: false };
  if (options.bedrock) return reject('compaction: Extra inputs are not permitted');
  if (!options.beta)
    return reject(`compaction: the \`compaction\` parameter requires anthropic-beta: ${COMPACTION_BETA}`);
  if ((parameter as Block | null)?.['type'] !== 'summarize')
    return reject("compaction.type: Input should be 'summarize'");
  if (request['context_management'] !== undefined) {
    return reject('compaction: `compaction` cannot be combined with `context_management`');
  }
  if (!emulatedModelCompactsOnDemand(options.model)) {
    return reject(`compaction: on-demand compaction is not supported on ${options.model}`);
  }
  const unanswered = lastCallUnanswered(messages);
  if (unanswered >= 0) {
    return reject(
      `messages.${unanswered}: the last assistant turn ends in a tool call with no result; send its tool results, then compact`,
    );
  }
  if (messages.length === 0) return reject('messages: nothing to summarize (compaction_nothing_to_summarize)');
  return { ok: true, summarize: true };
}

function lastCallUnanswered(messages: readonly Block[]): number {
  const last = messages.length - 1;
  const message = messages[last];
  if (message?.['role'] !== 'assistant') return -1;
  return blocksOf(message['content']).some((block) => block['type'] === 'tool_use') ? last : -1;
}

/** The summary the emulated summariser writes: the user requests it saw, in order. */
export function emulatedSummary(request: Block): string {
  const messages = Array.isArray(request['messages']) ? (request['messages'] as Block[]) : [];
  const asked: string[] = [];
  for (const message of messages) {
    if (message['role'] !== 'user') continue;
    const content = message['content'];
    const text =
      typeof content === 'string'
        ? content
        : blocksOf(content)
            .filter((block) => block['type'] === 'text')
            .map((block) => String(block['text']))
            .join(' ');
    if (text.trim() !== '') asked.push(text.trim().slice(0, 200));
  }
  return `Summary of the conversation (${messages.length} messages). The user asked: ${asked.join(' | ') || 'nothing yet'}.`;
}

/** The compaction block for a request whose chain ends at `state`. */
export function issueCompaction(secret: string, request: Block, model: string, state: Buffer): Block {
  const messages = Array.isArray(request['messages']) ? (request['messages'] as Block[]) : [];
  const content = emulatedSummary(request);
  const lastRole = String(messages[messages.length - 1]?.['role'] ?? 'user');
  return {
    type: 'compaction',
    content,
    signature: signCompaction(secret, content, state, emulatedModelPreservesThinking(model), lastRole),
  };
}

/** What {@link sendCompaction} answers with. */
export interface CompactionAnswer {
  id: string;
  model: string;
  block: Block;
  requestId: string;
  streamed: boolean;
}

/**
 * The answer to a compaction request: the block alone, `stop_reason: "compaction"`, zero top-level
 * usage (the summarisation call is reported in `usage.iterations`). Streamed, the block arrives
 * whole in one `content_block_start`, with no deltas. Returns the status sent.
 */
export function sendCompaction(response: ServerResponse, answer: CompactionAnswer): number {
  const usage = {
    input_tokens: 0,
    output_tokens: 0,
    iterations: [{ type: 'compaction', input_tokens: 1, output_tokens: 1 }],
  };
  const message = {
    id: answer.id,
    type: 'message',
    role: 'assistant',
    model: answer.model,
    content: [answer.block],
    stop_reason: 'compaction',
    stop_sequence: null,
    usage,
  };
  if (!answer.streamed) return sendJson(response, 200, message, { 'request-id': answer.requestId });
  const writer = new EmulatorSseWriter(response);
  writer.start(200, { 'request-id': answer.requestId });
  const events: Block[] = [
    { type: 'message_start', message: { ...message, content: [], stop_reason: null } },
    { type: 'ping' },
    { type: 'content_block_start', index: 0, content_block: answer.block },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'compaction', stop_sequence: null }, usage },
    { type: 'message_stop' },
  ];
  for (const event of events) writer.data(event, String(event['type']));
  writer.end();
  return 200;
}
