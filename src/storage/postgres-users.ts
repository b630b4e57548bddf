import type { PoolClient, QueryResult } from 'pg';
import type { NamedQuery } from './postgres-statements.js';
import {
  duplicateUserError,
  GATEWAY_USER_COLUMNS,
  gatewayUserFromRow,
  RATE_WINDOW_MS,
  rateAdmission,
  rateRetryAfterMs,
  rateWindowStart,
  validGatewayUser,
  type GatewayUserRow,
  type GatewayUserStore,
} from './store-users.js';

const query = (name: string, text: string): NamedQuery => ({ name: `hermes_${name}`, text });
const USER_COLUMNS = GATEWAY_USER_COLUMNS;

const USER_SQL = {
  byName: query('user_by_name', `SELECT ${USER_COLUMNS} FROM gateway_users WHERE name = $1 FOR UPDATE`),
  byKeyHash: query('user_by_key_hash', `SELECT ${USER_COLUMNS} FROM gateway_users WHERE key_hash = $1`),
  list: query('users_by_name', `SELECT ${USER_COLUMNS} FROM gateway_users ORDER BY name`),
  upsert: query(
    'upsert_user',
    `INSERT INTO gateway_users (${USER_COLUMNS}) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (name) DO UPDATE SET key_hash = $2, requests_per_minute = $3, created_at = $4, revoked_at = $5`,
  ),
  revoke: query('revoke_user', 'UPDATE gateway_users SET revoked_at = $1 WHERE name = $2 AND revoked_at IS NULL'),
  windowCounts: query(
    'rate_window_counts',
    'SELECT window_start, count FROM gateway_rate_windows WHERE user_name = $1 AND window_start IN ($2, $3)',
  ),
  // Counts the request only while the window stays under its cap: concurrent gateways of a
  // fleet serialize on the row, and a refused request changes nothing.
  countRequest: query(
    'count_rate_request',
    `INSERT INTO gateway_rate_windows AS w (user_name, window_start, count) VALUES ($1, $2, 1)
     ON CONFLICT (user_name, window_start) DO UPDATE SET count = w.count + 1 WHERE w.count < $3
     RETURNING count`,
  ),
  pruneWindows: query(
    'prune_rate_windows',
    'DELETE FROM gateway_rate_windows WHERE user_name = $1 AND window_start < $2',
  ),
};

/** How the store runs a statement (after its migration) and a transaction. */
export interface PostgresRunner {
  run<Row extends object>(statement: NamedQuery, values: unknown[], client?: PoolClient): Promise<QueryResult<Row>>;
  transaction<T>(body: (client: PoolClient) => Promise<T>): Promise<T>;
}

/**
 * The gateway users of the PostgreSQL store (`store-users.ts`), shared by every gateway of a
 * fleet: a key added on one host opens on all of them at once, and each user's requests are
 * counted in one row per minute whichever gateway serves them.
 */
export function postgresGatewayUsers({ run, transaction }: PostgresRunner): GatewayUserStore {
  return {
    addGatewayUser: async (user) => {
      const valid = validGatewayUser(user);
      return transaction(async (client) => {
        const existing = (await run<GatewayUserRow>(USER_SQL.byName, [valid.name], client)).rows[0];
        if (existing !== undefined && existing.revoked_at === null) throw duplicateUserError(valid.name);
        const values = [valid.name, valid.keyHash, valid.requestsPerMinute, valid.createdAt, valid.revokedAt];
        await run(USER_SQL.upsert, values, client);
        return valid;
      });
    },
    listGatewayUsers: async () => (await run<GatewayUserRow>(USER_SQL.list, [])).rows.map(gatewayUserFromRow),
    gatewayUserByKeyHash: async (keyHash) => {
      const row = (await run<GatewayUserRow>(USER_SQL.byKeyHash, [keyHash])).rows[0];
      return row === undefined ? null : gatewayUserFromRow(row);
    },
    revokeGatewayUser: async (name, at) => ((await run(USER_SQL.revoke, [at, name])).rowCount ?? 0) > 0,
    admitGatewayRequest: async (name, limit, at) => {
      const start = rateWindowStart(at);
      const rows = (
        await run<{ window_start: number; count: number }>(USER_SQL.windowCounts, [name, start - RATE_WINDOW_MS, start])
      ).rows;
      const countAt = (windowStart: number) => rows.find((row) => row.window_start === windowStart)?.count ?? 0;
      const previous = countAt(start - RATE_WINDOW_MS);
      const decided = rateAdmission(previous, countAt(start), limit, at);
      if (!decided.admitted) return { admitted: false, retryAfterMs: decided.retryAfterMs };
      const counted = (await run<{ count: number }>(USER_SQL.countRequest, [name, start, decided.cap])).rows[0];
      // Another gateway filled the window between the read and the count.
      if (counted === undefined)
        return { admitted: false, retryAfterMs: rateRetryAfterMs(previous, decided.cap, limit, at) };
      if (counted.count === 1) await run(USER_SQL.pruneWindows, [name, start - RATE_WINDOW_MS]);
      return { admitted: true, retryAfterMs: 0 };
    },
  };
}
