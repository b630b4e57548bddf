import { isJsonObject, type JsonObject } from '../core/json.js';
import type { Message, ToolMessage, UserMessage, ContentPart } from '../core/message.js';
import type { OriginStamp } from '../core/origin.js';
import { bindToUnknownPrefix } from '../replay/anthropic-binding-capture.js';
import { hostnameOf } from '../replay/replay-host.js';
import { assembleAnthropicMessage } from '../transports/anthropic-messages/anthropic-messages-decode.js';
import {
  badRecord,
  countSkipped,
  epochOf,
  titleOf,
  type ImportedSession,
  type JsonLine,
} from './sessions-import-records.js';

/**
 * A Claude Code transcript (`~/.claude/projects/<project>/<session>.jsonl`) as a Hermes session.
 * Records are `user` / `assistant` turns whose `message` is in Anthropic Messages shape, plus
 * bookkeeping (`summary`, `system`, `file-history-snapshot`, …) the model never saw. Claude Code
 * writes each content block of one API response as its own `assistant` record with the same
 * `message.id`; they are joined back into one assistant message, so its blocks (signed
 * `thinking`, `redacted_thinking`, `text`, `tool_use`) are stored exactly as Anthropic returned
 * them in `anthropic_content_blocks`, stamped with the Anthropic origin (api.anthropic.com and the
 * message's model), which is what lets the same issuer verify them on resume (SPEC §9, §23.2).
 * Sub-agent records (`isSidechain`) belong to another conversation and are left out.
 */

/** Where the transcript's responses came from (default: the Anthropic API). */
export interface ClaudeImportOptions {
  file: string;
  /** The endpoint Claude Code used (`ANTHROPIC_BASE_URL`), when not api.anthropic.com. */
  baseUrl?: string | undefined;
}

/** The Anthropic API host Claude Code calls by default. */
const ANTHROPIC_HOST = 'api.anthropic.com';

interface AssistantDraft {
  kind: 'assistant';
  id: string;
  model: string;
  blocks: JsonObject[];
  stopReason: string | null;
  timestamp: number | undefined;
}

type Entry = AssistantDraft | { kind: 'message'; message: Message };

/** Reads the transcript's records; the first record that cannot be used fails the import. */
export function importClaudeTranscript(lines: readonly JsonLine[], options: ClaudeImportOptions): ImportedSession {
  const { file } = options;
  const entries: Entry[] = [];
  const toolNames = new Map<string, string>();
  const skipped: Record<string, number> = {};
  let summary: string | undefined;
  let firstUserText: string | undefined;
  let workspace: string | null = null;
  let sessionId: string | null = null;
  let version: string | null = null;

  for (const { line, record } of lines) {
    const type = record['type'];
    if (typeof type !== 'string') badRecord(file, line, 'the record has no "type"');
    if (type === 'session_meta' || type === 'response_item' || type === 'turn_context') {
      badRecord(file, line, `a Codex rollout record ("${type}"): import this file with --from codex`);
    }
    if (type === 'summary') {
      if (typeof record['summary'] === 'string') summary = record['summary'];
      continue;
    }
    if (type !== 'user' && type !== 'assistant') {
      countSkipped(skipped, type);
      continue;
    }
    if (record['isSidechain'] === true) {
      countSkipped(skipped, 'sidechain');
      continue;
    }
    workspace ??= typeof record['cwd'] === 'string' ? record['cwd'] : null;
    sessionId ??= typeof record['sessionId'] === 'string' ? record['sessionId'] : null;
    version ??= typeof record['version'] === 'string' ? record['version'] : null;
    const message = record['message'];
    if (!isJsonObject(message)) badRecord(file, line, `a "${type}" record without a "message" object`);
    const timestamp = epochOf(record['timestamp']);
    if (type === 'user') {
      const added = userMessages(message, timestamp, toolNames, (what) => badRecord(file, line, what));
      entries.push(...added.map((item) => ({ kind: 'message' as const, message: item })));
      const text = added.find((item): item is UserMessage => item.role === 'user' && typeof item.content === 'string');
      firstUserText ??= typeof text?.content === 'string' ? text.content : undefined;
      continue;
    }
    if (message['model'] === '<synthetic>') {
      // Claude Code's own notes ("API Error: …", "No response requested."): never a model answer.
      countSkipped(skipped, 'synthetic assistant note');
      continue;
    }
    addAssistantRecord(entries, message, timestamp, toolNames, (what) => badRecord(file, line, what));
  }

  const host = options.baseUrl ? hostnameOf(options.baseUrl) : ANTHROPIC_HOST;
  const kept = { signed_thinking: 0, redacted_thinking: 0, encrypted_reasoning: 0 };
  let model = '';
  const messages = entries.map((entry): Message => {
    if (entry.kind === 'message') return entry.message;
    model = entry.model;
    for (const block of entry.blocks) {
      if (block['type'] === 'thinking') kept.signed_thinking += 1;
      if (block['type'] === 'redacted_thinking') kept.redacted_thinking += 1;
    }
    const origin: OriginStamp = { api: 'anthropic_messages', provider: 'anthropic', host, model: entry.model };
    // SPEC §26.4: Claude Code sent its own system prompt and tools before these blocks; Hermes
    // never saw that prefix, so a model that checks it gets the blocks left out, explained.
    const assembled = bindToUnknownPrefix(
      assembleAnthropicMessage(entry.blocks, entry.stopReason, origin),
      entry.model,
      'claude-code import',
    );
    return entry.timestamp === undefined ? assembled : { ...assembled, timestamp: entry.timestamp };
  });
  if (!messages.some((message) => message.role === 'assistant')) {
    badRecord(file, lines.at(-1)?.line ?? 1, 'no assistant turn in the transcript (nothing to continue)');
  }
  return {
    source: { tool: 'claude-code', session_id: sessionId, file, version },
    messages,
    title: summary ?? (firstUserText === undefined ? null : (titleOf(firstUserText) ?? null)),
    workspace,
    provider: 'anthropic',
    model,
    api: 'anthropic_messages',
    baseUrl: options.baseUrl ?? null,
    kept,
    skipped,
  };
}

/**
 * Adds one `assistant` record's blocks: to the response it continues (same `message.id`, with
 * only that response's tool results stored since), or as a new response.
 */
function addAssistantRecord(
  entries: Entry[],
  message: JsonObject,
  timestamp: number | undefined,
  toolNames: Map<string, string>,
  fail: (what: string) => never,
): void {
  const content = message['content'];
  if (!Array.isArray(content)) fail('an assistant message without a "content" list');
  const blocks = content.map((block, index) => checkedBlock(block, index, fail));
  const id = typeof message['id'] === 'string' ? message['id'] : '';
  const model = message['model'];
  if (typeof model !== 'string' || model === '') fail('an assistant message without a "model"');
  const stopReason = typeof message['stop_reason'] === 'string' ? message['stop_reason'] : null;
  let index = entries.length - 1;
  while (
    index >= 0 &&
    entries[index]?.kind === 'message' &&
    (entries[index] as { message: Message }).message.role === 'tool'
  ) {
    index -= 1;
  }
  const open = entries[index];
  const draft =
    open?.kind === 'assistant' && id !== '' && open.id === id
      ? open
      : (entries[
          entries.push({ kind: 'assistant', id, model, blocks: [], stopReason: null, timestamp }) - 1
        ] as AssistantDraft);
  // A record that repeats the blocks already read (a cumulative snapshot) adds only the rest.
  const repeats = draft.blocks.length > 0 && draft.blocks.every((block, at) => sameJson(block, blocks[at]));
  for (const block of repeats ? blocks.slice(draft.blocks.length) : blocks) {
    draft.blocks.push(block);
    if (block['type'] === 'tool_use') toolNames.set(String(block['id']), String(block['name']));
  }
  if (stopReason !== null) draft.stopReason = stopReason;
}

/** A content block as Anthropic defines it; the ones Hermes replays must be complete. */
function checkedBlock(block: unknown, index: number, fail: (what: string) => never): JsonObject {
  if (!isJsonObject(block) || typeof block['type'] !== 'string') fail(`content block ${index} has no "type"`);
  const type = block['type'];
  const text = (key: string) => typeof block[key] === 'string';
  if (type === 'thinking' && (!text('thinking') || !text('signature'))) {
    fail(`thinking block ${index} without its "thinking" text and "signature"`);
  }
  if (type === 'redacted_thinking' && !text('data')) fail(`redacted_thinking block ${index} without its "data"`);
  if (type === 'text' && !text('text')) fail(`text block ${index} without its "text"`);
  if (type === 'tool_use' && (!text('id') || !text('name') || !isJsonObject(block['input']))) {
    fail(`tool_use block ${index} without "id", "name" and an "input" object`);
  }
  return block;
}

/** A `user` record: its tool results (first, as Anthropic orders them), then what the user wrote. */
function userMessages(
  message: JsonObject,
  timestamp: number | undefined,
  toolNames: ReadonlyMap<string, string>,
  fail: (what: string) => never,
): Message[] {
  const content = message['content'];
  const stamp = timestamp === undefined ? {} : { timestamp };
  if (typeof content === 'string') return [{ role: 'user', content, ...stamp }];
  if (!Array.isArray(content)) fail('a user message whose "content" is neither text nor a list of blocks');
  const results: ToolMessage[] = [];
  const parts: ContentPart[] = [];
  content.forEach((block, index) => {
    if (!isJsonObject(block) || typeof block['type'] !== 'string') fail(`content block ${index} has no "type"`);
    if (block['type'] !== 'tool_result') {
      parts.push(block);
      return;
    }
    const callId = block['tool_use_id'];
    if (typeof callId !== 'string' || !toolNames.has(callId)) {
      fail(
        `tool_result for ${typeof callId === 'string' ? `"${callId}", a tool_use not seen before` : 'no tool_use_id'}`,
      );
    }
    results.push({
      role: 'tool',
      tool_call_id: callId,
      tool_name: toolNames.get(callId) as string,
      content: toolResultText(block['content']),
      ...stamp,
    });
  });
  if (parts.length === 0) return results;
  const onlyText = parts.length === 1 && parts[0]?.type === 'text' && typeof parts[0]['text'] === 'string';
  const user: UserMessage = { role: 'user', content: onlyText ? String(parts[0]?.['text']) : parts, ...stamp };
  return [...results, user];
}

/** A tool result's text: text blocks joined; images and documents as one bracketed line each. */
function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) => {
      if (!isJsonObject(block)) return '';
      if (block['type'] === 'text' && typeof block['text'] === 'string') return block['text'];
      return `[${String(block['type'])} content]`;
    })
    .join('\n');
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
