import { UsageError } from '../core/errors.js';
import type { JsonObject } from '../core/json.js';
import type { Message } from '../core/message.js';
import { isUndone } from './session-undo.js';

/**
 * In-place compaction (SPEC §26.6, docs/sessions.md "Compaction"): the compacted messages of a
 * session stay stored, archived. An archived message carries the private key `_archived: N`,
 * N the session's compaction that archived it (1 for the first). Private `_` keys are never
 * sent (SPEC §2), and `listMessages` leaves archived messages out of the history a request is
 * built from unless asked for them (`sessions show --archived`, export). SQLite and PostgreSQL
 * keep N in the `archived` column (the message codec maps the key to it), so a branch or
 * `sessions migrate` copies it with the row.
 */

/** The private key that marks a message archived by compaction N. */
export const ARCHIVED_KEY = '_archived';

/** The compaction that archived the message, or null when it is live. */
export function archivedBy(message: Message): number | null {
  const value = (message as unknown as Record<string, unknown>)[ARCHIVED_KEY];
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null;
}

/** The messages a listing returns: archived ones only when `includeArchived`. */
export function withoutArchived(messages: Message[], includeArchived: boolean | undefined): Message[] {
  return includeArchived ? messages : messages.filter((message) => archivedBy(message) === null);
}

/**
 * One in-place compaction write (`SessionStore.compactInPlace`). Positions count the history
 * `listMessages` returns by default: neither archived nor taken back by `/undo`.
 */
export interface InPlaceCompaction {
  /** Position of the first message summarised (the head before it stays as it is). */
  from: number;
  /** Position of the first message kept after the summary (the history's length when none is). */
  to: number;
  /**
   * What follows the head from now on: the summary, then the kept tail as it is to be stored.
   * The stored messages from `to` on are replaced by these copies.
   */
  messages: readonly Message[];
  /** Writes only while this lease holds the session (`SessionLeaseLostError` otherwise). */
  leaseId?: string | undefined;
  /** Writes only while the session's version is this one (`SessionChangedError` otherwise). */
  expectedVersion?: number | undefined;
  /** Merged into the session's model config in the same transaction (the compaction record). */
  modelConfig?: JsonObject | undefined;
}

/** What an in-place compaction did. */
export interface InPlaceCompactionResult {
  /** The compaction's number in the session (1 for the first): the mark its archived messages carry. */
  compaction: number;
  /** Messages it archived (the summarised ones, and messages `/undo` took back from the tail on). */
  archived: number;
  /** The session's version after the write. */
  version: number;
}

/** What an in-place compaction needs of one stored row, in stored order. */
export interface ArchiveCandidate {
  /** The row's key in its store (the SQL `seq`, or the index in the memory store). */
  key: number;
  archived: number | null;
  undone: boolean;
}

/** Which rows an in-place compaction archives and which it replaces by the new messages. */
export interface ArchivePlan {
  compaction: number;
  /** Rows marked archived by this compaction. */
  archive: number[];
  /** Live rows of the kept tail: removed, the new messages hold their copies. */
  replace: number[];
}

/**
 * The rows an in-place compaction touches (`rows` in stored order): every row not yet archived
 * from position `from` on is archived, except the live rows from position `to` on, which are
 * replaced by their copies among the new messages. Rows `/undo` took back past `to` are
 * archived too (they are not sent either way, and stay findable). Throws a `UsageError` when
 * the positions do not fit the history.
 */
export function archivePlan(rows: readonly ArchiveCandidate[], from: number, to: number): ArchivePlan {
  const visible = rows.filter((row) => row.archived === null && !row.undone);
  if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to < from || to > visible.length) {
    throw new UsageError(`cannot compact messages ${from}–${to} of a history of ${visible.length}`);
  }
  if (from === visible.length) throw new UsageError('nothing to compact: no message after the kept head');
  const compaction = rows.reduce((highest, row) => Math.max(highest, row.archived ?? 0), 0) + 1;
  const fromKey = (visible[from] as ArchiveCandidate).key;
  const toKey = visible[to]?.key ?? Infinity;
  const archive: number[] = [];
  const replace: number[] = [];
  for (const row of rows) {
    if (row.key < fromKey || row.archived !== null) continue;
    if (row.key >= toKey && !row.undone) replace.push(row.key);
    else archive.push(row.key);
  }
  return { compaction, archive, replace };
}

/** An `ArchiveCandidate` of a message in the memory store. */
export function archiveCandidateOf(message: Message, index: number): ArchiveCandidate {
  return { key: index, archived: archivedBy(message), undone: isUndone(message) };
}
