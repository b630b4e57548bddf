import { MESSAGE_SELECT_COLUMNS, MESSAGE_VALUE_COLUMNS } from './sqlite-message-codec.js';
import { sqliteFailure } from './sqlite-errors.js';
import { DEFAULT_BUSY_TIMEOUT_MS, openSqliteDatabase } from './sqlite-open.js';
import { guardStore } from './storage-errors.js';
import { GATEWAY_USER_COLUMNS } from './store-users.js';
import {
  parentsFirst,
  type GatewayUserRow,
  type HandleKeyRow,
  type MessageRow,
  type RequestRow,
  type SessionRow,
  type StoreRows,
  type TurnFingerprintRow,
  type VerdictRow,
} from './store-rows.js';

/** Row access to a SQLite `state.db` (created and migrated when missing). */
export function openSqliteRows(path: string): StoreRows {
  const { database } = openSqliteDatabase(path);
  const columns = MESSAGE_VALUE_COLUMNS.join(', ');
  const placeholders = MESSAGE_VALUE_COLUMNS.map(() => '?').join(', ');
  const statements = {
    sessions: database.prepare<[], SessionRow>(
      `SELECT id, title, parent_session_id, created_at, updated_at, provider, model, base_url, api, model_config, version
       FROM sessions ORDER BY created_at, rowid`,
    ),
    messages: database
      .prepare<[string], MessageRow>(`SELECT ${MESSAGE_SELECT_COLUMNS} FROM messages WHERE session_id = ? ORDER BY seq`)
      .raw(true),
    requests: database.prepare<[string], RequestRow>(
      'SELECT at, api, route_key, status, decisions, error FROM requests WHERE session_id = ? ORDER BY id',
    ),
    verdicts: database.prepare<[], VerdictRow>(
      'SELECT route_key, provider, host, model, fields, first_seen, updated_at, error_text FROM verdicts ORDER BY route_key',
    ),
    upsertSession: database.prepare(
      `INSERT INTO sessions (id, title, parent_session_id, created_at, updated_at, provider, model, base_url, api, model_config, version)
       VALUES (@id, @title, @parent_session_id, @created_at, @updated_at, @provider, @model, @base_url, @api, @model_config, @version)
       ON CONFLICT (id) DO UPDATE SET title = excluded.title, updated_at = excluded.updated_at,
         provider = excluded.provider, model = excluded.model, base_url = excluded.base_url, api = excluded.api,
         model_config = excluded.model_config,
         version = MAX(excluded.version, sessions.version + 1)`,
    ),
    deleteMessages: database.prepare<[string]>('DELETE FROM messages WHERE session_id = ?'),
    insertMessage: database.prepare(
      `INSERT INTO messages (session_id, seq, ${columns}) VALUES (?, ?, ${placeholders})`,
    ),
    insertRequest: database.prepare<[string, number, string, string, number, string, string | null]>(
      'INSERT INTO requests (session_id, at, api, route_key, status, decisions, error) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    handleKeys: database.prepare<[], HandleKeyRow>(
      'SELECT id, secret, created_at FROM handle_keys ORDER BY created_at, id',
    ),
    users: database.prepare<[], GatewayUserRow>(`SELECT ${GATEWAY_USER_COLUMNS} FROM gateway_users ORDER BY name`),
    insertUser: database.prepare(
      `INSERT INTO gateway_users (${GATEWAY_USER_COLUMNS}) VALUES (@name, @key_hash, @requests_per_minute, @created_at, @revoked_at)
       ON CONFLICT (name) DO NOTHING`,
    ),
    insertHandleKey: database.prepare(
      'INSERT INTO handle_keys (id, secret, created_at) VALUES (@id, @secret, @created_at) ON CONFLICT (id) DO NOTHING',
    ),
    turnFingerprints: database.prepare<[string], TurnFingerprintRow>(
      'SELECT fingerprint, session_id, noted_at FROM turn_fingerprints WHERE session_id = ? ORDER BY noted_at, fingerprint',
    ),
    insertTurnFingerprint: database.prepare(
      'INSERT INTO turn_fingerprints (fingerprint, session_id, noted_at) VALUES (@fingerprint, @session_id, @noted_at) ON CONFLICT DO NOTHING',
    ),
    upsertVerdict: database.prepare(
      `INSERT INTO verdicts (route_key, provider, host, model, fields, first_seen, updated_at, error_text)
       VALUES (@route_key, @provider, @host, @model, @fields, @first_seen, @updated_at, @error_text)
       ON CONFLICT (route_key) DO UPDATE SET provider = excluded.provider, host = excluded.host,
         model = excluded.model, fields = excluded.fields, first_seen = excluded.first_seen,
         updated_at = excluded.updated_at, error_text = excluded.error_text`,
    ),
  };
  const writeSession = database.transaction(
    (
      session: SessionRow,
      messages: readonly MessageRow[],
      firstSeq: number,
      requests: readonly RequestRow[],
      replaceMessages: boolean,
    ) => {
      statements.upsertSession.run(session);
      if (replaceMessages) statements.deleteMessages.run(session.id);
      messages.forEach((row, index) => statements.insertMessage.run(session.id, firstSeq + index, ...row));
      for (const request of requests) {
        statements.insertRequest.run(
          session.id,
          request.at,
          request.api,
          request.route_key,
          request.status,
          request.decisions,
          request.error,
        );
      }
    },
  );
  const rows: StoreRows = {
    location: `sqlite:${path}`,
    sessions: async () => parentsFirst(statements.sessions.all()),
    messages: async (sessionId) => statements.messages.all(sessionId),
    requests: async (sessionId) => statements.requests.all(sessionId),
    verdicts: async () => statements.verdicts.all(),
    writeSession: async (session, messages, firstSeq, requests, replaceMessages = false) => {
      writeSession.immediate(session, messages, firstSeq, requests, replaceMessages);
    },
    writeVerdict: async (verdict) => {
      statements.upsertVerdict.run(verdict);
    },
    handleKeys: async () => statements.handleKeys.all(),
    writeHandleKey: async (key) => {
      statements.insertHandleKey.run(key);
    },
    turnFingerprints: async (sessionId) => statements.turnFingerprints.all(sessionId),
    writeTurnFingerprint: async (row) => {
      statements.insertTurnFingerprint.run(row);
    },
    users: async () => statements.users.all(),
    writeUser: async (user) => {
      statements.insertUser.run(user);
    },
    close: async () => {
      if (database.open) database.close();
    },
  };
  return guardStore(rows, (error) => sqliteFailure(error, path, DEFAULT_BUSY_TIMEOUT_MS));
}
