import type { Message } from '../core/message.js';

/**
 * `/undo` (docs/sessions.md): the last exchange, its user message and every message after it,
 * is taken back. The messages stay stored, each marked with the private key `_undone: true`
 * (private `_` keys are never sent, SPEC §2); `listMessages` leaves marked messages out of the
 * history a request is built from unless asked to include them (`sessions show`). The mark is
 * kept in the message itself (the codec's `extra` column in SQLite and PostgreSQL), so a branch
 * or `sessions migrate` copies it with the row and no schema change is needed.
 */

/** The private key that marks a message as taken back by `/undo`. */
export const UNDONE_KEY = '_undone';

/** True when the message was taken back by `/undo`. */
export function isUndone(message: Message): boolean {
  return (message as unknown as Record<string, unknown>)[UNDONE_KEY] === true;
}

/** The history a request sees: every message not taken back, or all of them when `includeUndone`. */
export function visibleMessages(messages: Message[], includeUndone: boolean | undefined): Message[] {
  return includeUndone ? messages : messages.filter((message) => !isUndone(message));
}

/** What the undo rule needs of one stored message. */
export interface UndoCandidate {
  role: string;
  undone: boolean;
}

/**
 * Index of the first message the next `/undo` marks: the last user message not yet undone.
 * Every message from there on that is not marked yet gets marked. -1 when no exchange is left.
 */
export function undoStart(messages: readonly UndoCandidate[]): number {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message && message.role === 'user' && !message.undone) return index;
  }
  return -1;
}

/** A stored row's `role`, sequence number and `extra` JSON text (the codec's column for private keys). */
export interface UndoRow {
  seq: number;
  role: string;
  extra: string | null;
}

/** Parses a row's `extra` column; null for text that is not a JSON object (a damaged row, left as it is). */
function parseExtra(text: string | null): Record<string, unknown> | null {
  if (text === null) return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** True when a row's `extra` column marks it taken back by `/undo`. */
export function isUndoneExtra(extra: string | null): boolean {
  return parseExtra(extra)?.[UNDONE_KEY] === true;
}

/**
 * The rows an `/undo` rewrites in a SQL store, with the new `extra` text of each (the stored
 * private keys plus `_undone: true`). Empty when no exchange is left.
 */
export function undoRowUpdates(rows: readonly UndoRow[]): { seq: number; extra: string }[] {
  const parsed = rows.flatMap((row) => {
    const extra = parseExtra(row.extra);
    return extra === null ? [] : [{ row, extra }];
  });
  const start = undoStart(parsed.map(({ row, extra }) => ({ role: row.role, undone: extra[UNDONE_KEY] === true })));
  if (start < 0) return [];
  return parsed
    .slice(start)
    .filter(({ extra }) => extra[UNDONE_KEY] !== true)
    .map(({ row, extra }) => ({ seq: row.seq, extra: JSON.stringify({ ...extra, [UNDONE_KEY]: true }) }));
}
