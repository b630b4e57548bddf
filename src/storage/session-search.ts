import { UsageError } from '../core/errors.js';
import type { Message } from '../core/message.js';

/**
 * `hermes sessions search TEXT` (docs/sessions.md "Search"): a case-insensitive substring search
 * over the stored messages of every session, live and archived alike. A substring, not words: the
 * things people look for in an agent session are identifiers (paths, hashes, error texts) that a
 * word tokenizer would split. Each store selects the candidate rows; this module decides which
 * field matched and cuts the snippet, so every store answers alike.
 */

/** Where a message matched. */
export type SearchField = 'content' | 'tool call' | 'reasoning';

/** Options of `SessionStore.searchMessages`. */
export interface MessageSearchOptions {
  /** Most hits returned (default 20). */
  limit?: number;
  /** Only this session's messages. */
  sessionId?: string;
}

/** One message that holds the text. */
export interface MessageSearchHit {
  sessionId: string;
  title: string | null;
  /** 0-based position among every stored message of the session (the number `sessions show` prints). */
  position: number;
  role: string;
  /** The compaction that archived the message, or null when it is live. */
  archived: number | null;
  timestamp: number | null;
  field: SearchField;
  /** The matched text with some context, whitespace collapsed, `…` where it was cut. */
  snippet: string;
  /** Where the match starts in `snippet`, and its length. */
  matchStart: number;
  matchLength: number;
}

/** Default number of hits. */
export const DEFAULT_SEARCH_LIMIT = 20;

/** The searchable text fields of one stored message, as the stores read them. */
export interface SearchableFields {
  content: unknown;
  toolCalls: unknown;
  reasoningContent: unknown;
  reasoning: unknown;
}

/** Validates the search text: one line, not blank. */
export function checkedSearchText(text: string): string {
  if (text.trim() === '') throw new UsageError('give the text to search for, e.g. hermes sessions search "ENOENT"');
  if (text.length > 1000) throw new UsageError('the search text is longer than 1,000 characters');
  return text;
}

/** A SQL `LIKE` pattern matching `text` anywhere, with `\` as the escape character. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/** The fields of a message as the search reads them (the memory store). */
export function searchableFieldsOf(message: Message): SearchableFields {
  return {
    content: message.content,
    toolCalls: message.role === 'assistant' && message.tool_calls ? JSON.stringify(message.tool_calls) : null,
    reasoningContent: message.role === 'assistant' ? message.reasoning_content : null,
    reasoning: message.role === 'assistant' ? message.reasoning : null,
  };
}

const CONTEXT_BEFORE = 60;
const CONTEXT_AFTER = 100;

/**
 * The field that holds `text` (content first, then tool calls, then reasoning) and its snippet;
 * null when none does.
 */
export function searchMatch(
  fields: SearchableFields,
  text: string,
): Pick<MessageSearchHit, 'field' | 'snippet' | 'matchStart' | 'matchLength'> | null {
  const needle = text.toLowerCase();
  const candidates: [SearchField, unknown][] = [
    ['content', fields.content],
    ['tool call', fields.toolCalls],
    ['reasoning', fields.reasoningContent],
    ['reasoning', fields.reasoning],
  ];
  for (const [field, value] of candidates) {
    if (typeof value !== 'string') continue;
    const at = value.toLowerCase().indexOf(needle);
    if (at < 0) continue;
    const start = Math.max(0, at - CONTEXT_BEFORE);
    const end = Math.min(value.length, at + text.length + CONTEXT_AFTER);
    const before = collapse(value.slice(start, at));
    const match = collapse(value.slice(at, at + text.length));
    const after = collapse(value.slice(at + text.length, end));
    const lead = start > 0 ? '…' : '';
    return {
      field,
      snippet: `${lead}${before}${match}${after}${end < value.length ? '…' : ''}`,
      matchStart: lead.length + before.length,
      matchLength: match.length,
    };
  }
  return null;
}

/** Whitespace runs as one space (a snippet is one line). */
function collapse(text: string): string {
  return text.replace(/\s+/g, ' ');
}

/** A candidate row as both SQL stores select it. */
export interface SearchRow {
  session_id: string;
  title: string | null;
  role: string;
  archived: number | null;
  timestamp: number | null;
  content: string | null;
  tool_calls: string | null;
  reasoning_content: string | null;
  reasoning: string | null;
  position: number;
}

/** The hits of candidate rows (a row whose match the store's `LIKE` found but this does not is left out). */
export function searchHitsOf(rows: readonly SearchRow[], text: string): MessageSearchHit[] {
  const hits: MessageSearchHit[] = [];
  for (const row of rows) {
    const match = searchMatch(
      {
        content: row.content,
        toolCalls: row.tool_calls,
        reasoningContent: row.reasoning_content,
        reasoning: row.reasoning,
      },
      text,
    );
    if (match === null) continue;
    hits.push({
      sessionId: row.session_id,
      title: row.title,
      position: Number(row.position),
      role: row.role,
      archived: row.archived === null ? null : Number(row.archived),
      timestamp: row.timestamp === null ? null : Number(row.timestamp),
      ...match,
    });
  }
  return hits;
}

/** The limit of a search: a positive whole number, default {@link DEFAULT_SEARCH_LIMIT}. */
export function searchLimit(options: MessageSearchOptions | undefined): number {
  const limit = options?.limit ?? DEFAULT_SEARCH_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError('the search limit must be a positive whole number');
  return limit;
}
