import type { LeaseRecord } from './session-lease.js';
import type { RequestRecord, SessionRecord, VerdictRecord } from './session-store.js';
import { MESSAGE_SELECT_COLUMNS, MESSAGE_VALUE_COLUMNS } from './sqlite-message-codec.js';
import { parseModelConfig } from './session-store-rules.js';

// SQL text and row mapping of the PostgreSQL store. Statements with a `name` are prepared once
// per connection by the driver; bigint columns arrive as numbers (see `postgres-session-store.ts`).

/** A named (prepared) statement. */
export interface NamedQuery {
  name: string;
  text: string;
}

const query = (name: string, text: string): NamedQuery => ({ name: `hermes_${name}`, text });

const SESSION_SELECT = `SELECT s.id, s.title, s.parent_session_id, s.created_at, s.updated_at, s.provider,
  s.model, s.base_url, s.api, s.model_config, s.version, s.message_count FROM sessions s`;

const VALUE_COLUMNS = MESSAGE_VALUE_COLUMNS.join(', ');

/** `INSERT INTO messages` for `rows` messages (placeholders numbered after the session id). */
export function insertMessagesText(rows: number): string {
  const width = MESSAGE_VALUE_COLUMNS.length + 1;
  const tuples: string[] = [];
  for (let row = 0; row < rows; row += 1) {
    const base = 1 + row * width;
    const placeholders = ['$1', ...Array.from({ length: width }, (_unused, column) => `$${base + column + 1}`)];
    tuples.push(`(${placeholders.join(', ')})`);
  }
  return `INSERT INTO messages (session_id, seq, ${VALUE_COLUMNS}) VALUES ${tuples.join(', ')}`;
}

/** Every statement the store runs. */
export const SQL = {
  sessionById: query('session_by_id', `${SESSION_SELECT} WHERE s.id = $1`),
  sessionsNewest: query(
    'sessions_newest',
    `${SESSION_SELECT} ORDER BY s.updated_at DESC, s.created_order DESC LIMIT $1`,
  ),
  /** Sessions whose id begins with the given `OWNER/` prefix (a gateway user's, store-users.ts). */
  ownedSessionsNewest: query(
    'owned_sessions_newest',
    `${SESSION_SELECT} WHERE left(s.id, length($2)) = $2 ORDER BY s.updated_at DESC, s.created_order DESC LIMIT $1`,
  ),
  childSessions: query(
    'child_sessions',
    `${SESSION_SELECT} WHERE s.parent_session_id = $1 ORDER BY s.created_at, s.created_order`,
  ),
  sessionExists: query('session_exists', 'SELECT 1 FROM sessions WHERE id = $1'),
  lockSession: query('lock_session', 'SELECT model_config, version FROM sessions WHERE id = $1 FOR UPDATE'),
  insertSession: query(
    'insert_session',
    `INSERT INTO sessions (id, title, parent_session_id, created_at, updated_at, provider, model, base_url, api, model_config)
     VALUES ($1, $2, $3, $4, $4, $5, $6, $7, $8, $9)`,
  ),
  updateSession: query(
    'update_session',
    `UPDATE sessions SET
       title = CASE WHEN $2 THEN $3 ELSE title END,
       provider = CASE WHEN $4 THEN $5 ELSE provider END,
       model = CASE WHEN $6 THEN $7 ELSE model END,
       base_url = CASE WHEN $8 THEN $9 ELSE base_url END,
       api = CASE WHEN $10 THEN $11 ELSE api END,
       updated_at = $12,
       version = version + 1
     WHERE id = $1`,
  ),
  // Every write to a session's row or messages goes through one of these three, so each one
  // moves the version on (SessionRecord.version).
  touchSession: query('touch_session', 'UPDATE sessions SET updated_at = $1, version = version + 1 WHERE id = $2'),
  deleteSession: query('delete_session', 'DELETE FROM sessions WHERE id = $1'),
  writeModelConfig: query(
    'write_model_config',
    'UPDATE sessions SET model_config = $1, updated_at = $2, version = version + 1 WHERE id = $3',
  ),
  nextSeq: query('next_seq', 'SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM messages WHERE session_id = $1'),
  copyMessages: query(
    'copy_messages',
    `INSERT INTO messages (session_id, seq, ${VALUE_COLUMNS})
     SELECT $1, seq, ${VALUE_COLUMNS} FROM messages WHERE session_id = $2 ORDER BY seq`,
  ),
  // The live history: archived rows (session-archive.ts) stay out, read through `messages_live`.
  listMessages: query(
    'list_messages',
    `SELECT ${MESSAGE_SELECT_COLUMNS}, seq FROM messages WHERE session_id = $1 AND archived IS NULL ORDER BY seq`,
  ),
  listAllMessages: query(
    'list_all_messages',
    `SELECT ${MESSAGE_SELECT_COLUMNS}, seq FROM messages WHERE session_id = $1 ORDER BY seq`,
  ),
  // `/undo` reads role and private keys only, then rewrites `extra` row by row (session-undo.ts).
  undoRows: query(
    'undo_rows',
    'SELECT seq, role, extra FROM messages WHERE session_id = $1 AND archived IS NULL ORDER BY seq',
  ),
  // In-place compaction reads what it decides on, then marks or removes rows (session-archive.ts).
  archiveRows: query('archive_rows', 'SELECT seq, archived, extra FROM messages WHERE session_id = $1 ORDER BY seq'),
  markArchived: query(
    'mark_archived',
    'UPDATE messages SET archived = $1 WHERE session_id = $2 AND seq = ANY($3::integer[])',
  ),
  deleteMessages: query('delete_messages', 'DELETE FROM messages WHERE session_id = $1 AND seq = ANY($2::integer[])'),
  searchMessages: query(
    'search_messages',
    `SELECT m.session_id, s.title, m.role, m.archived, m.timestamp, m.content, m.tool_calls, m.reasoning_content,
       m.reasoning,
       (SELECT COUNT(*) FROM messages x WHERE x.session_id = m.session_id AND x.seq < m.seq)::integer AS position
     FROM messages m JOIN sessions s ON s.id = m.session_id
     WHERE ($2::text IS NULL OR m.session_id = $2)
       AND (m.content ILIKE $1 ESCAPE '\\' OR m.tool_calls ILIKE $1 ESCAPE '\\'
         OR m.reasoning_content ILIKE $1 ESCAPE '\\' OR m.reasoning ILIKE $1 ESCAPE '\\')
     ORDER BY s.updated_at DESC, s.created_order DESC, m.seq LIMIT $3`,
  ),
  writeExtra: query('write_extra', 'UPDATE messages SET extra = $1 WHERE session_id = $2 AND seq = $3'),
  verdictLock: query('verdict_lock', 'SELECT pg_advisory_xact_lock($1, hashtext($2))'),
  verdictByKey: query('verdict_by_key', 'SELECT * FROM verdicts WHERE route_key = $1'),
  listVerdicts: query('list_verdicts', 'SELECT * FROM verdicts ORDER BY route_key COLLATE "C"'),
  upsertVerdict: query(
    'upsert_verdict',
    `INSERT INTO verdicts (route_key, provider, host, model, fields, first_seen, updated_at, error_text)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (route_key) DO UPDATE SET fields = excluded.fields, updated_at = excluded.updated_at,
       error_text = excluded.error_text`,
  ),
  forgetVerdict: query('forget_verdict', 'DELETE FROM verdicts WHERE route_key = $1'),
  forgetAllVerdicts: query('forget_all_verdicts', 'DELETE FROM verdicts'),
  insertRequest: query(
    'insert_request',
    'INSERT INTO requests (session_id, at, api, route_key, status, decisions, error) VALUES ($1, $2, $3, $4, $5, $6, $7)',
  ),
  listRequests: query('list_requests', 'SELECT * FROM requests WHERE session_id = $1 ORDER BY id'),
  leaseBySession: query('lease_by_session', 'SELECT * FROM session_leases WHERE session_id = $1'),
  writeLease: query(
    'write_lease',
    `INSERT INTO session_leases (session_id, lease_id, owner, pid, host, acquired_at, heartbeat_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (session_id) DO UPDATE SET lease_id = excluded.lease_id, owner = excluded.owner, pid = excluded.pid,
       host = excluded.host, acquired_at = excluded.acquired_at, heartbeat_at = excluded.heartbeat_at,
       expires_at = excluded.expires_at`,
  ),
  renewLease: query(
    'renew_lease',
    `UPDATE session_leases SET heartbeat_at = $1, expires_at = $2 WHERE session_id = $3 AND lease_id = $4
     RETURNING *`,
  ),
  releaseLease: query('release_lease', 'DELETE FROM session_leases WHERE session_id = $1 AND lease_id = $2'),
  listHandleKeys: query(
    'list_handle_keys',
    'SELECT id, secret, created_at FROM handle_keys ORDER BY created_at, id COLLATE "C"',
  ),
  addHandleKey: query(
    'add_handle_key',
    'INSERT INTO handle_keys (id, secret, created_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING',
  ),
  retireHandleKeys: query('retire_handle_keys', 'DELETE FROM handle_keys WHERE id <> $1'),
  addTurnFingerprint: query(
    'add_turn_fingerprint',
    'INSERT INTO turn_fingerprints (fingerprint, session_id, noted_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
  ),
  sessionsWithTurn: query(
    'sessions_with_turn',
    'SELECT session_id FROM turn_fingerprints WHERE fingerprint = $1 ORDER BY noted_at DESC, session_id COLLATE "C" LIMIT $2',
  ),
  sessionHoldsTurn: query(
    'session_holds_turn',
    'SELECT 1 FROM turn_fingerprints WHERE fingerprint = $1 AND session_id = $2',
  ),
} as const;

/** A session row with its message count. */
export interface PostgresSessionRow {
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

/** Maps a session row to the store record. */
export function sessionFromRow(row: PostgresSessionRow): SessionRecord {
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

/** Maps a verdict row. */
export function verdictFromRow(row: Record<string, unknown>): VerdictRecord {
  return {
    routeKey: row['route_key'] as string,
    provider: row['provider'] as string,
    host: row['host'] as string,
    model: row['model'] as string,
    fields: JSON.parse(row['fields'] as string) as string[],
    firstSeen: row['first_seen'] as number,
    updatedAt: row['updated_at'] as number,
    errorText: row['error_text'] as string,
  };
}

/** Maps a request row. */
export function requestFromRow(row: Record<string, unknown>): RequestRecord {
  return {
    id: row['id'] as number,
    sessionId: row['session_id'] as string,
    at: row['at'] as number,
    api: row['api'] as string,
    routeKey: row['route_key'] as string,
    status: row['status'] as number,
    decisions: JSON.parse(row['decisions'] as string) as RequestRecord['decisions'],
    ...(typeof row['error'] === 'string' ? { error: row['error'] } : {}),
  };
}

/** Maps a lease row. */
export function leaseFromRow(row: Record<string, unknown>): LeaseRecord {
  return {
    sessionId: row['session_id'] as string,
    leaseId: row['lease_id'] as string,
    owner: row['owner'] as string,
    pid: row['pid'] as number,
    host: row['host'] as string,
    acquiredAt: row['acquired_at'] as number,
    heartbeatAt: row['heartbeat_at'] as number,
    expiresAt: row['expires_at'] as number,
  };
}
