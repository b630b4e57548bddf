import type Database from 'better-sqlite3';
import type { JsonObject } from '../core/json.js';
import type { RequestRecord, SessionRecord, VerdictRecord } from './session-store.js';
import type { LeaseColumns, LeaseRecord } from './session-lease.js';
import { MESSAGE_SELECT_COLUMNS, MESSAGE_VALUE_COLUMNS } from './sqlite-message-codec.js';
import type { EncodedMessage } from './sqlite-message-codec.js';
import { parseModelConfig, type HandleKeyRow } from './session-store-rules.js';
import type { SearchRow } from './session-search.js';

// Row shapes, row-to-record mapping and the prepared statements of the SQLite store.

/** A `sessions` row with its message count. */
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
  model_config: string | null;
  message_count: number;
  version: number;
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

/** A `requests` row. */
export interface RequestRow {
  id: number;
  session_id: string;
  at: number;
  api: string;
  route_key: string;
  status: number;
  decisions: string;
  error: string | null;
}

/** A `session_leases` row. */
export interface LeaseRow {
  session_id: string;
  lease_id: string;
  owner: string;
  pid: number;
  host: string;
  acquired_at: number;
  heartbeat_at: number;
  expires_at: number;
}

/**
 * The `turnWriteState` row as values (raw mode): the session's version, the next message seq,
 * then the lease columns in {@link LeaseRow} order, all NULL when the session holds no lease.
 */
export type TurnWriteStateValues =
  | [version: number, nextSeq: number, ...lease: LeaseValues]
  | [version: number, nextSeq: number, ...lease: [null, null, null, null, null, null, null, null]];

type LeaseValues = [
  sessionId: string,
  leaseId: string,
  owner: string,
  pid: number,
  host: string,
  acquiredAt: number,
  heartbeatAt: number,
  expiresAt: number,
];

/** The lease of a `turnWriteState` row, or null when it has none. */
export function leaseOfTurnWriteState(values: TurnWriteStateValues): LeaseRecord | null {
  const [, , sessionId, leaseId, owner, pid, host, acquiredAt, heartbeatAt, expiresAt] = values;
  if (leaseId === null) return null;
  return {
    sessionId,
    leaseId,
    owner,
    pid: Number(pid),
    host,
    acquiredAt: Number(acquiredAt),
    heartbeatAt: Number(heartbeatAt),
    expiresAt: Number(expiresAt),
  };
}

/** Maps a lease row to the store record. */
export function toLeaseRecord(row: LeaseRow): LeaseRecord {
  return {
    sessionId: row.session_id,
    leaseId: row.lease_id,
    owner: row.owner,
    pid: Number(row.pid),
    host: row.host,
    acquiredAt: Number(row.acquired_at),
    heartbeatAt: Number(row.heartbeat_at),
    expiresAt: Number(row.expires_at),
  };
}

// One row per session: the live message count is a column of the row, kept by the triggers of
// migration 12 (sqlite-schema.ts), never counted at read time.
const SESSION_SELECT = `SELECT s.id, s.title, s.parent_session_id, s.created_at, s.updated_at, s.provider,
  s.model, s.base_url, s.api, s.model_config, s.version, s.message_count FROM sessions s`;
// Ties on updated_at (same millisecond) go to the row written last.
const NEWEST_FIRST = 'ORDER BY s.updated_at DESC, s.rowid DESC';

/** Maps a session row to the store record (`model_config` parsed, invalid JSON as `{}`). */
export function toSessionRecord(row: SessionRow): SessionRecord {
  return {
    id: row.id,
    title: row.title,
    parentSessionId: row.parent_session_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    provider: row.provider,
    model: row.model,
    baseUrl: row.base_url,
    api: row.api,
    modelConfig: parseModelConfig(row.model_config),
    messageCount: row.message_count,
    version: row.version,
  };
}

/** Maps a verdict row to the store record. */
export function toVerdictRecord(row: VerdictRow): VerdictRecord {
  return {
    routeKey: row.route_key,
    provider: row.provider,
    host: row.host,
    model: row.model,
    fields: JSON.parse(row.fields) as string[],
    firstSeen: row.first_seen,
    updatedAt: row.updated_at,
    errorText: row.error_text,
  };
}

/** Maps a request row to the store record. */
export function toRequestRecord(row: RequestRow): RequestRecord {
  return {
    id: row.id,
    sessionId: row.session_id,
    at: row.at,
    api: row.api,
    routeKey: row.route_key,
    status: row.status,
    decisions: JSON.parse(row.decisions) as JsonObject[],
    ...(row.error !== null && row.error !== undefined ? { error: row.error } : {}),
  };
}

/** Rows one read of a stored history returns at most (sqlite-session-store.ts reads a long history a page at a time). */
export const MESSAGE_PAGE_ROWS = 1000;

/** Limits whose statements {@link limitedStatement} keeps at once (call sites use a few constants). */
const LIMITED_STATEMENTS_KEPT = 16;

/**
 * A statement that takes its LIMIT as a value written into its SQL, prepared once per value.
 * SQLite lets the planner see the LIMIT, so a LIMIT bound as a parameter marks the statement stale
 * each time it is bound and the next step compiles the whole statement again (sqlite3_prepare_v2:
 * a statement whose plan may depend on a bound value is recompiled after that value is bound).
 */
function limitedStatement<P extends unknown[], R>(
  database: Database.Database,
  sql: (limit: number) => string,
): (limit: number) => Database.Statement<P, R> {
  const prepared = new Map<number, Database.Statement<P, R>>();
  return (limit) => {
    if (!Number.isSafeInteger(limit)) throw new RangeError(`a row limit must be a whole number, not ${limit}`);
    let statement = prepared.get(limit);
    if (statement === undefined) {
      if (prepared.size >= LIMITED_STATEMENTS_KEPT) prepared.clear();
      statement = database.prepare<P, R>(sql(limit));
      prepared.set(limit, statement);
    }
    return statement;
  };
}

/** Builds every prepared statement once per connection. @internal (its inferred type is not declared in dist) */
export function prepareStatements(database: Database.Database) {
  const valuePlaceholders = MESSAGE_VALUE_COLUMNS.map(() => '?').join(', ');
  const valueColumns = MESSAGE_VALUE_COLUMNS.join(', ');
  return {
    sessionById: database.prepare<[string], SessionRow>(`${SESSION_SELECT} WHERE s.id = ?`),
    /** The newest sessions, at most a limit of them (-1: all). */
    sessionsNewest: limitedStatement<[], SessionRow>(
      database,
      (limit) => `${SESSION_SELECT} ${NEWEST_FIRST} LIMIT ${limit}`,
    ),
    /** Sessions whose id begins with the given `OWNER/` prefix (a gateway user's, store-users.ts). */
    ownedSessionsNewest: limitedStatement<[string, string], SessionRow>(
      database,
      (limit) => `${SESSION_SELECT} WHERE substr(s.id, 1, length(?)) = ? ${NEWEST_FIRST} LIMIT ${limit}`,
    ),
    childSessions: database.prepare<[string], SessionRow>(
      `${SESSION_SELECT} WHERE s.parent_session_id = ? ORDER BY s.created_at, s.rowid`,
    ),
    insertSession: database.prepare(
      `INSERT INTO sessions (id, title, parent_session_id, created_at, updated_at, provider, model, base_url, api, model_config)
       VALUES (@id, @title, @parentSessionId, @now, @now, @provider, @model, @baseUrl, @api, @modelConfig)`,
    ),
    updateSession: database.prepare(
      `UPDATE sessions SET
         title = CASE WHEN @setTitle THEN @title ELSE title END,
         provider = CASE WHEN @setProvider THEN @provider ELSE provider END,
         model = CASE WHEN @setModel THEN @model ELSE model END,
         base_url = CASE WHEN @setBaseUrl THEN @baseUrl ELSE base_url END,
         api = CASE WHEN @setApi THEN @api ELSE api END,
         updated_at = @now,
         version = version + 1
       WHERE id = @id`,
    ),
    // Every write to a session's row or messages goes through one of these three, so each one
    // moves the version on (SessionRecord.version).
    touchSession: database.prepare<[number, string]>(
      'UPDATE sessions SET updated_at = ?, version = version + 1 WHERE id = ?',
    ),
    // What a turn write checks before it writes, in one statement: the session's version, the
    // next message seq (over the (session_id, seq) index) and its lease (all NULL when none).
    // Values, not an object: every turn write reads it, and a row object is built property by
    // property (better-sqlite3 `.raw()`).
    turnWriteState: database
      .prepare<[string], TurnWriteStateValues>(
        `SELECT s.version,
           (SELECT COALESCE(MAX(m.seq), 0) + 1 FROM messages m WHERE m.session_id = s.id),
           l.session_id, l.lease_id, l.owner, l.pid, l.host, l.acquired_at, l.heartbeat_at, l.expires_at
         FROM sessions s LEFT JOIN session_leases l ON l.session_id = s.id WHERE s.id = ?`,
      )
      .raw(true),
    deleteSession: database.prepare<[string]>('DELETE FROM sessions WHERE id = ?'),
    modelConfig: database.prepare<[string], { model_config: string | null }>(
      'SELECT model_config FROM sessions WHERE id = ?',
    ),
    writeModelConfig: database.prepare<[string, number, string]>(
      'UPDATE sessions SET model_config = ?, updated_at = ?, version = version + 1 WHERE id = ?',
    ),
    nextSeq: database.prepare<[string], { next: number }>(
      'SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM messages WHERE session_id = ?',
    ),
    insertMessage: database.prepare<[string, number, ...EncodedMessage]>(
      `INSERT INTO messages (session_id, seq, ${valueColumns}) VALUES (?, ?, ${valuePlaceholders})`,
    ),
    // A branch copies rows as stored, column for column: nothing is decoded or re-encoded.
    copyMessages: database.prepare<[string, string]>(
      `INSERT INTO messages (session_id, seq, ${valueColumns})
       SELECT ?, seq, ${valueColumns} FROM messages WHERE session_id = ? ORDER BY seq`,
    ),
    // The live history, a page at a time (after a seq, at most a number of rows), so a long history
    // is read with the event loop free between pages (sqlite-session-store.ts). Archived rows
    // (session-archive.ts) stay out; the second read includes them.
    listMessagesPage: database
      .prepare<[string, number], unknown[]>(
        `SELECT ${MESSAGE_SELECT_COLUMNS}, seq FROM messages WHERE session_id = ? AND archived IS NULL AND seq > ? ORDER BY seq LIMIT ${MESSAGE_PAGE_ROWS}`,
      )
      .raw(true),
    listAllMessagesPage: database
      .prepare<[string, number], unknown[]>(
        `SELECT ${MESSAGE_SELECT_COLUMNS}, seq FROM messages WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ${MESSAGE_PAGE_ROWS}`,
      )
      .raw(true),
    // `/undo` reads role and private keys only, then rewrites `extra` row by row (session-undo.ts).
    undoRows: database.prepare<[string], { seq: number; role: string; extra: string | null }>(
      'SELECT seq, role, extra FROM messages WHERE session_id = ? AND archived IS NULL ORDER BY seq',
    ),
    // In-place compaction reads what it decides on, then marks or removes rows (session-archive.ts).
    archiveRows: database.prepare<[string], { seq: number; archived: number | null; extra: string | null }>(
      'SELECT seq, archived, extra FROM messages WHERE session_id = ? ORDER BY seq',
    ),
    markArchived: database.prepare<[number, string, number]>(
      'UPDATE messages SET archived = ? WHERE session_id = ? AND seq = ?',
    ),
    deleteMessage: database.prepare<[string, number]>('DELETE FROM messages WHERE session_id = ? AND seq = ?'),
    searchMessages: database.prepare<[{ pattern: string; session: string | null; limit: number }], SearchRow>(
      `SELECT m.session_id, s.title, m.role, m.archived, m.timestamp, m.content, m.tool_calls,
         m.reasoning_content, m.reasoning,
         (SELECT COUNT(*) FROM messages x WHERE x.session_id = m.session_id AND x.seq < m.seq) AS position
       FROM messages m JOIN sessions s ON s.id = m.session_id
       WHERE (@session IS NULL OR m.session_id = @session)
         AND (m.content LIKE @pattern ESCAPE '\\' OR m.tool_calls LIKE @pattern ESCAPE '\\'
           OR m.reasoning_content LIKE @pattern ESCAPE '\\' OR m.reasoning LIKE @pattern ESCAPE '\\')
       ${NEWEST_FIRST}, m.seq LIMIT @limit`,
    ),
    writeExtra: database.prepare<[string, string, number]>(
      'UPDATE messages SET extra = ? WHERE session_id = ? AND seq = ?',
    ),
    verdictByKey: database.prepare<[string], VerdictRow>('SELECT * FROM verdicts WHERE route_key = ?'),
    listVerdicts: database.prepare<[], VerdictRow>('SELECT * FROM verdicts ORDER BY route_key'),
    upsertVerdict: database.prepare(
      `INSERT INTO verdicts (route_key, provider, host, model, fields, first_seen, updated_at, error_text)
       VALUES (@routeKey, @provider, @host, @model, @fields, @firstSeen, @updatedAt, @errorText)
       ON CONFLICT (route_key) DO UPDATE SET fields = excluded.fields, updated_at = excluded.updated_at,
         error_text = excluded.error_text`,
    ),
    forgetVerdict: database.prepare<[string]>('DELETE FROM verdicts WHERE route_key = ?'),
    forgetAllVerdicts: database.prepare<[]>('DELETE FROM verdicts'),
    sessionExists: database.prepare<[string], { found: number }>('SELECT 1 AS found FROM sessions WHERE id = ?'),
    insertRequest: database.prepare<[string, number, string, string, number, string, string | null]>(
      'INSERT INTO requests (session_id, at, api, route_key, status, decisions, error) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    listRequests: database.prepare<[string], RequestRow>('SELECT * FROM requests WHERE session_id = ? ORDER BY id'),
    leaseBySession: database.prepare<[string], LeaseRow>('SELECT * FROM session_leases WHERE session_id = ?'),
    // Positional parameters: a turn writes its lease every time, and binding by name looks each
    // name up on the object (better-sqlite3 "Binding Parameters").
    writeLease: database.prepare<LeaseColumns>(
      `INSERT INTO session_leases (session_id, lease_id, owner, pid, host, acquired_at, heartbeat_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (session_id) DO UPDATE SET lease_id = excluded.lease_id, owner = excluded.owner,
         pid = excluded.pid, host = excluded.host, acquired_at = excluded.acquired_at,
         heartbeat_at = excluded.heartbeat_at, expires_at = excluded.expires_at`,
    ),
    renewLease: database.prepare<[number, number, string, string]>(
      'UPDATE session_leases SET heartbeat_at = ?, expires_at = ? WHERE session_id = ? AND lease_id = ?',
    ),
    releaseLease: database.prepare<[string, string]>(
      'DELETE FROM session_leases WHERE session_id = ? AND lease_id = ?',
    ),
    listHandleKeys: database.prepare<[], HandleKeyRow>(
      'SELECT id, secret, created_at FROM handle_keys ORDER BY created_at, id',
    ),
    addHandleKey: database.prepare<[string, string, number]>(
      'INSERT INTO handle_keys (id, secret, created_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING',
    ),
    retireHandleKeys: database.prepare<[string]>('DELETE FROM handle_keys WHERE id <> ?'),
    addTurnFingerprint: database.prepare<[string, string, number]>(
      'INSERT INTO turn_fingerprints (fingerprint, session_id, noted_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
    ),
    sessionsWithTurn: limitedStatement<[string], { session_id: string }>(
      database,
      (limit) =>
        `SELECT session_id FROM turn_fingerprints WHERE fingerprint = ? ORDER BY noted_at DESC, session_id LIMIT ${limit}`,
    ),
    sessionHoldsTurn: database.prepare<[string, string], { held: number }>(
      'SELECT 1 AS held FROM turn_fingerprints WHERE fingerprint = ? AND session_id = ?',
    ),
  };
}
