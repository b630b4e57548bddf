import type { GatewayUserRow } from './store-users.js';
import { createHash } from 'node:crypto';
import { MESSAGE_VALUE_COLUMNS, decodeMessageRow, encodeMessage } from './sqlite-message-codec.js';

/**
 * Rows as a store holds them, for `hermes sessions migrate`: sessions with their times and
 * model config text, messages as their encoded column values (the codec of
 * `sqlite-message-codec.ts`, the same in SQLite and PostgreSQL), request records and verdicts.
 * Copying rows rather than going through `SessionStore` keeps every time, id link and stored
 * byte as it is.
 */

/** A `sessions` row. */
export interface SessionRow {
  id: string;
  title: string | null;
  parent_session_id: string | null;
  created_at: number;
  updated_at: number;
  provider: string | null;
  model: string | null;
  base_url: string | null;
  api: string | null;
  model_config: string;
  /** The session's write version (SessionRecord.version): copied, and moved on past the target's own. */
  version: number;
}

/** A message row: the values of {@link MESSAGE_VALUE_COLUMNS}, in that order. */
export type MessageRow = Array<string | number | null>;

/** A `requests` row without its id (the target numbers its own). */
export interface RequestRow {
  at: number;
  api: string;
  route_key: string;
  status: number;
  decisions: string;
  /** The provider's complaint of a failed request (null when it was answered). */
  error: string | null;
}

/** A `verdicts` row. */
export interface VerdictRow {
  route_key: string;
  provider: string;
  host: string;
  model: string;
  fields: string;
  first_seen: number;
  updated_at: number;
  error_text: string;
}

/** Everything one session holds. */
export interface SessionRows {
  session: SessionRow;
  messages: MessageRow[];
  requests: RequestRow[];
}

/** Row access to one store (SQLite file or PostgreSQL database). */
/** A `handle_keys` row. */
export type { GatewayUserRow };

export interface HandleKeyRow {
  id: string;
  secret: string;
  created_at: number;
}

/** A `turn_fingerprints` row (gateway-front-door-conversations.ts). */
export interface TurnFingerprintRow {
  fingerprint: string;
  session_id: string;
  noted_at: number;
}

export interface StoreRows {
  /** `sqlite:PATH` or the PostgreSQL URL without credentials. */
  readonly location: string;
  /** Every session row, parents before their children. */
  sessions(): Promise<SessionRow[]>;
  messages(sessionId: string): Promise<MessageRow[]>;
  requests(sessionId: string): Promise<RequestRow[]>;
  verdicts(): Promise<VerdictRow[]>;
  /**
   * In one transaction: inserts the session row when absent (else updates its title, route,
   * model config and times), then appends `messages` from `firstSeq` and `requests`. With
   * `replaceMessages` the session's stored messages are removed first (a session compacted in
   * place since the last copy, `session-migrate.ts`).
   */
  writeSession(
    session: SessionRow,
    messages: readonly MessageRow[],
    firstSeq: number,
    requests: readonly RequestRow[],
    replaceMessages?: boolean,
  ): Promise<void>;
  /** Inserts or replaces a verdict row. */
  writeVerdict(verdict: VerdictRow): Promise<void>;
  /** Every handle key row (SPEC §25.6), oldest first. */
  handleKeys(): Promise<HandleKeyRow[]>;
  /** Inserts a handle key row unless its id is there (a stored key is never replaced). */
  writeHandleKey(key: HandleKeyRow): Promise<void>;
  /** The turn fingerprints noted for a session. */
  turnFingerprints(sessionId: string): Promise<TurnFingerprintRow[]>;
  /** Inserts a turn fingerprint row unless the pair is there. */
  writeTurnFingerprint(row: TurnFingerprintRow): Promise<void>;
  /** Every gateway user row (SPEC §26.10: key hashes, never keys), by name. */
  users(): Promise<GatewayUserRow[]>;
  /** Inserts a gateway user row unless its name is there (a stored user is never replaced). */
  writeUser(user: GatewayUserRow): Promise<void>;
  close(): Promise<void>;
}

/** Position of the `archived` column (session-archive.ts) in a {@link MessageRow}. */
const ARCHIVED_COLUMN = MESSAGE_VALUE_COLUMNS.indexOf('archived');

/** The row's hash as if it were live: what an in-place compaction changes of a row it keeps is its mark. */
export function unarchivedRowHash(row: readonly unknown[]): string {
  const copy = row.slice(0, MESSAGE_VALUE_COLUMNS.length);
  if (ARCHIVED_COLUMN >= 0) copy[ARCHIVED_COLUMN] = null;
  return messageRowHash(copy);
}

/** The hash `sessions migrate` compares: SHA-256 of the message's stored column values. */
export function messageRowHash(row: readonly unknown[]): string {
  return createHash('sha256')
    .update(JSON.stringify(row.slice(0, MESSAGE_VALUE_COLUMNS.length)))
    .digest('hex');
}

/**
 * The row as the current codec writes it. A row written by this codec comes back identical; an
 * older row (a NUL inside a text column, which PostgreSQL text cannot hold) is re-encoded
 * losslessly. A row that cannot be decoded is kept as stored.
 */
export function canonicalMessageRow(row: readonly unknown[]): MessageRow {
  const stored = row.slice(0, MESSAGE_VALUE_COLUMNS.length) as MessageRow;
  try {
    return encodeMessage(decodeMessageRow(stored));
  } catch {
    return stored;
  }
}

/** Orders sessions so each parent comes before its children (creation time, then id). */
export function parentsFirst(rows: readonly SessionRow[]): SessionRow[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const ordered: SessionRow[] = [];
  const placed = new Set<string>();
  const place = (row: SessionRow, depth: number) => {
    if (placed.has(row.id) || depth > rows.length) return;
    const parent = row.parent_session_id === null ? undefined : byId.get(row.parent_session_id);
    if (parent) place(parent, depth + 1);
    placed.add(row.id);
    ordered.push(row);
  };
  const sorted = [...rows].sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const row of sorted) place(row, 0);
  return ordered;
}
