import { MESSAGE_SELECT_COLUMNS, MESSAGE_VALUE_COLUMNS } from './sqlite-message-codec.js';
import { postgresFailure, redactDatabaseUrl } from './postgres-errors.js';
import { createPostgresPool } from './postgres-pool.js';
import { insertMessagesText } from './postgres-statements.js';
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

/** Messages per INSERT statement (65,535 parameters per statement at most). */
const INSERT_BATCH = 500;

/** Row access to a PostgreSQL database (migrated when empty). */
export function openPostgresRows(url: string): StoreRows {
  const location = redactDatabaseUrl(url);
  const { pool, ready, transaction } = createPostgresPool(url, location, 4);
  const query = async <Row extends object>(text: string, values: unknown[] = []) => {
    await ready();
    return (await pool.query<Row>(text, values)).rows;
  };
  const rows: StoreRows = {
    location,
    sessions: async () =>
      parentsFirst(
        await query<SessionRow>(
          `SELECT id, title, parent_session_id, created_at, updated_at, provider, model, base_url, api, model_config, version
           FROM sessions ORDER BY created_at, created_order`,
        ),
      ),
    messages: async (sessionId) => {
      await ready();
      const result = await pool.query<MessageRow>({
        text: `SELECT ${MESSAGE_SELECT_COLUMNS} FROM messages WHERE session_id = $1 ORDER BY seq`,
        values: [sessionId],
        rowMode: 'array',
      });
      return result.rows;
    },
    requests: async (sessionId) =>
      query<RequestRow>(
        'SELECT at, api, route_key, status, decisions, error FROM requests WHERE session_id = $1 ORDER BY id',
        [sessionId],
      ),
    verdicts: async () =>
      query<VerdictRow>(
        `SELECT route_key, provider, host, model, fields, first_seen, updated_at, error_text
         FROM verdicts ORDER BY route_key COLLATE "C"`,
      ),
    writeSession: async (session, messages, firstSeq, requests, replaceMessages = false) =>
      transaction(async (client) => {
        await client.query(
          `INSERT INTO sessions (id, title, parent_session_id, created_at, updated_at, provider, model, base_url, api, model_config, version)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
           ON CONFLICT (id) DO UPDATE SET title = excluded.title, updated_at = excluded.updated_at,
             provider = excluded.provider, model = excluded.model, base_url = excluded.base_url, api = excluded.api,
             model_config = excluded.model_config,
             version = GREATEST(excluded.version, sessions.version + 1)`,
          [
            session.id,
            session.title,
            session.parent_session_id,
            session.created_at,
            session.updated_at,
            session.provider,
            session.model,
            session.base_url,
            session.api,
            session.model_config,
            session.version,
          ],
        );
        if (replaceMessages) await client.query('DELETE FROM messages WHERE session_id = $1', [session.id]);
        let seq = firstSeq;
        for (let start = 0; start < messages.length; start += INSERT_BATCH) {
          const batch = messages.slice(start, start + INSERT_BATCH);
          const values: unknown[] = [session.id];
          for (const row of batch) values.push(seq++, ...row.slice(0, MESSAGE_VALUE_COLUMNS.length));
          await client.query(insertMessagesText(batch.length), values);
        }
        for (const request of requests) {
          await client.query(
            'INSERT INTO requests (session_id, at, api, route_key, status, decisions, error) VALUES ($1, $2, $3, $4, $5, $6, $7)',
            [session.id, request.at, request.api, request.route_key, request.status, request.decisions, request.error],
          );
        }
      }),
    writeVerdict: async (verdict) => {
      await query(
        `INSERT INTO verdicts (route_key, provider, host, model, fields, first_seen, updated_at, error_text)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (route_key) DO UPDATE SET provider = excluded.provider, host = excluded.host,
           model = excluded.model, fields = excluded.fields, first_seen = excluded.first_seen,
           updated_at = excluded.updated_at, error_text = excluded.error_text`,
        [
          verdict.route_key,
          verdict.provider,
          verdict.host,
          verdict.model,
          verdict.fields,
          verdict.first_seen,
          verdict.updated_at,
          verdict.error_text,
        ],
      );
    },
    handleKeys: async () =>
      (
        await query<HandleKeyRow>('SELECT id, secret, created_at FROM handle_keys ORDER BY created_at, id COLLATE "C"')
      ).map((row) => ({ ...row, created_at: Number(row.created_at) })),
    writeHandleKey: async (key) => {
      await query('INSERT INTO handle_keys (id, secret, created_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING', [
        key.id,
        key.secret,
        key.created_at,
      ]);
    },
    turnFingerprints: async (sessionId) =>
      (
        await query<TurnFingerprintRow>(
          'SELECT fingerprint, session_id, noted_at FROM turn_fingerprints WHERE session_id = $1 ORDER BY noted_at, fingerprint COLLATE "C"',
          [sessionId],
        )
      ).map((row) => ({ ...row, noted_at: Number(row.noted_at) })),
    writeTurnFingerprint: async (row) => {
      await query(
        'INSERT INTO turn_fingerprints (fingerprint, session_id, noted_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
        [row.fingerprint, row.session_id, row.noted_at],
      );
    },
    users: async () =>
      query<GatewayUserRow>(`SELECT ${GATEWAY_USER_COLUMNS} FROM gateway_users ORDER BY name COLLATE "C"`),
    writeUser: async (user) => {
      await query(
        `INSERT INTO gateway_users (${GATEWAY_USER_COLUMNS}) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name) DO NOTHING`,
        [user.name, user.key_hash, user.requests_per_minute, user.created_at, user.revoked_at],
      );
    },
    close: async () => {
      if (!pool.ended) await pool.end();
    },
  };
  return guardStore(rows, (error) => postgresFailure(error, location));
}
