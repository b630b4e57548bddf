import type { AssistantMessage } from '../core/message.js';
import { redactUrl } from '../core/redact.js';
import type { SessionStore } from '../storage/session-store.js';
import { isUndone } from '../storage/session-undo.js';
import { archivedBy } from '../storage/session-archive.js';
import { compactionLines } from './sessions-compaction-view.js';
import { unansweredQuestion } from '../runtime/runtime-history.js';
import { formatTime } from './cli-output.js';
import { opaqueCarrierBytes } from '../replay/replay-native-drops.js';
import {
  describeProviderDrops,
  droppedTransformations,
  storedInputTransformations,
} from '../replay/replay-recovery.js';

/** UTF-8 bytes of a string. */
function bytes(text: unknown): number {
  return typeof text === 'string' ? new TextEncoder().encode(text).length : 0;
}

/** Carrier keys present on an assistant message, for the readable view. */
export function carriersOf(message: AssistantMessage): string[] {
  const present: string[] = [];
  if (typeof message.reasoning_content === 'string')
    present.push(`reasoning_content(${bytes(message.reasoning_content)} B)`);
  if (message.reasoning) present.push(`reasoning(${bytes(message.reasoning)} B)`);
  if (message.reasoning_details?.length) {
    const record = message.reasoning_details.some((entry) => String(entry['type'] ?? '').endsWith('.native_assistant'));
    present.push(`reasoning_details(${message.reasoning_details.length}${record ? ', carrier record' : ''})`);
  }
  if (message.anthropic_content_blocks?.length)
    present.push(`anthropic_content_blocks(${message.anthropic_content_blocks.length})`);
  if (message.bedrock_content_blocks?.length)
    present.push(`bedrock_content_blocks(${message.bedrock_content_blocks.length})`);
  if (message.codex_reasoning_items?.length)
    present.push(`codex_reasoning_items(${message.codex_reasoning_items.length})`);
  if (message.codex_message_items?.length) present.push(`codex_message_items(${message.codex_message_items.length})`);
  if (message.gemini_content_parts?.length)
    present.push(`gemini_content_parts(${message.gemini_content_parts.length})`);
  return present;
}

/** How many reasoning lines the plain view prints per assistant turn without `--full`. */
export const REASONING_PREVIEW_LINES = 3;

/** Options of the readable view. */
export interface DescribeOptions {
  /** Every reasoning line, and the whole system prompt (default: the first lines). */
  full?: boolean;
  /** Dim the reasoning text (a terminal). */
  color?: boolean;
  /** Also list the messages compaction archived (default: one line per archived run). */
  archived?: boolean;
}

/**
 * The readable reasoning of an assistant turn: the extracted text, else the raw
 * `reasoning_content`, else the text of native thinking blocks or parts (Anthropic, Converse,
 * Gemini) or Responses summaries. Empty when the turn kept only opaque reasoning.
 */
export function reasoningTextOf(message: AssistantMessage): string {
  if (message.reasoning?.trim()) return message.reasoning;
  if (message.reasoning_content?.trim()) return message.reasoning_content;
  const texts: string[] = [];
  for (const block of message.anthropic_content_blocks ?? []) {
    if (block['type'] === 'thinking' && typeof block['thinking'] === 'string') texts.push(block['thinking']);
  }
  for (const block of message.bedrock_content_blocks ?? []) {
    const text = (block['reasoningContent'] as { reasoningText?: { text?: unknown } } | undefined)?.reasoningText?.text;
    if (typeof text === 'string') texts.push(text);
  }
  for (const part of message.gemini_content_parts ?? []) {
    if (part['thought'] === true && typeof part['text'] === 'string') texts.push(part['text']);
  }
  for (const item of message.codex_reasoning_items ?? []) {
    for (const summary of (item['summary'] as Record<string, unknown>[] | undefined) ?? []) {
      if (typeof summary['text'] === 'string') texts.push(summary['text']);
    }
  }
  return texts.join('\n').trim() ? texts.join('\n') : '';
}

/** Reasoning lines for the plain view: indented, the first {@link REASONING_PREVIEW_LINES} unless `full`. */
function reasoningLines(text: string, options: DescribeOptions): string[] {
  const all = text.trim().split(/\r?\n/);
  const shown = options.full ? all : all.slice(0, REASONING_PREVIEW_LINES);
  const dim = (line: string) => (options.color ? `\x1b[2m${line}\x1b[22m` : line);
  const lines = shown.map((line, index) => dim(`          ${index === 0 ? 'reasoning: ' : '           '}${line}`));
  if (shown.length < all.length) {
    lines.push(dim(`                     … ${all.length - shown.length} more lines (sessions show --full)`));
  }
  return lines;
}

/** The readable `sessions show` text. */
export async function describeSession(store: SessionStore, id: string, options: DescribeOptions = {}): Promise<string> {
  const session = await store.getSession(id);
  if (!session) return '';
  // Every stored message, so each keeps its number (the one `sessions search` prints).
  const stored = await store.listMessages(id, { includeUndone: true, includeArchived: true });
  const live = stored.filter((message) => archivedBy(message) === null);
  const archivedCount = stored.length - live.length;
  const undone = live.filter(isUndone).length;
  const children = await store.childSessions(id);
  const assistants = live.filter((message): message is AssistantMessage => message.role === 'assistant');
  const hasRecord = assistants.some((message) =>
    message.reasoning_details?.some((entry) => String(entry['type'] ?? '').endsWith('.native_assistant')),
  );
  const turns = live.filter((message) => message.role === 'user').length;
  const archivedNote = archivedCount ? `; ${archivedCount} archived by compaction` : '';
  const lines = [
    `session   ${session.id}${session.title ? `  "${session.title}"` : ''}`,
    `provider  ${session.provider ?? '-'}   model ${session.model ?? '-'}   api ${session.api ?? '-'}`,
    `base url  ${session.baseUrl === null ? '(provider default)' : redactUrl(session.baseUrl)}`,
    `turns     ${turns} user turns, ${live.length} messages${undone ? ` (${undone} undone)` : ''}${archivedNote}; carrier record: ${hasRecord ? 'yes' : 'no'}`,
    `created   ${formatTime(session.createdAt)}   updated ${formatTime(session.updatedAt)}`,
    `lineage   parent ${session.parentSessionId ?? '-'}; children ${children.map((child) => child.id).join(', ') || '-'}`,
    ...compactionLines(session.modelConfig, session.id),
  ];
  const verdicts = session.modelConfig['reasoning_rejected_carriers'];
  if (Array.isArray(verdicts) && verdicts.length) lines.push(`verdicts  ${JSON.stringify(verdicts)}`);
  // SPEC §26.4: reasoning the provider dropped (input_transformations) is never silent.
  const dropped = assistants.reduce(
    (count, message) => count + droppedTransformations(storedInputTransformations(message)).length,
    0,
  );
  if (dropped > 0) {
    lines.push(`dropped   ${dropped} thinking block(s) dropped by the provider (input_transformations; see below)`);
  }
  lines.push('');
  let hiddenFrom = -1;
  const closeHidden = (end: number) => {
    if (hiddenFrom < 0) return;
    const range = end - 1 === hiddenFrom ? `${hiddenFrom}` : `${hiddenFrom}–${end - 1}`;
    const how = `hermes sessions show ${session.id} --archived`;
    lines.push(`${range.padStart(4)} (${end - hiddenFrom} archived by compaction; ${how})`);
    hiddenFrom = -1;
  };
  stored.forEach((message, index) => {
    const archivedIn = archivedBy(message);
    if (archivedIn !== null && !options.archived) {
      if (hiddenFrom < 0) hiddenFrom = index;
      return;
    }
    closeHidden(index);
    const text =
      typeof message.content === 'string' ? message.content : message.content ? JSON.stringify(message.content) : '';
    // A message `/undo` took back or compaction archived is kept and shown, marked; requests no longer send it.
    const marks = `${archivedIn !== null ? `(archived #${archivedIn}) ` : ''}${isUndone(message) ? '(undone) ' : ''}`;
    const preview = `${marks}${text.replace(/\s+/g, ' ').slice(0, 90)}`;
    if (message.role === 'assistant') {
      const calls = message.tool_calls?.map((call) => `${call.function.name}(${call.function.arguments})`).join(', ');
      // SPEC §23.5, §25.5: each opaque carrier once, as it travels (the count --explain reports).
      const opaque = opaqueCarrierBytes(message);
      lines.push(`${String(index).padStart(4)} assistant ${preview}${calls ? ` → ${calls}` : ''}`);
      const carriers = carriersOf(message);
      if (carriers.length || opaque) {
        lines.push(`          carriers: ${carriers.join(', ') || 'none'}; opaque bytes kept: ${opaque}`);
      }
      const providerDrops = describeProviderDrops(storedInputTransformations(message));
      if (providerDrops) lines.push(`          ${providerDrops}`);
      const reasoning = reasoningTextOf(message);
      if (reasoning) lines.push(...reasoningLines(reasoning, options));
    } else if (message.role === 'system' && options.full) {
      lines.push(`${String(index).padStart(4)} system`);
      lines.push(
        ...message.content
          .trimEnd()
          .split('\n')
          .map((line) => `          ${line}`),
      );
    } else {
      lines.push(`${String(index).padStart(4)} ${message.role.padEnd(9)} ${preview}`);
    }
  });
  closeHidden(stored.length);
  if (unansweredQuestion(live.filter((message) => !isUndone(message)))) {
    lines.push(`          no answer yet (interrupted): hermes chat --resume ${id}, then /retry`);
  }
  return `${lines.join('\n')}\n`;
}
