import type Database from 'better-sqlite3';
import {
  duplicateUserError,
  GATEWAY_USER_COLUMNS,
  gatewayUserFromRow,
  RATE_WINDOW_MS,
  rateAdmission,
  rateWindowStart,
  validGatewayUser,
  type GatewayUserRecord,
  type GatewayUserRow,
  type GatewayUserStore,
} from './store-users.js';

const USER_COLUMNS = GATEWAY_USER_COLUMNS;

/**
 * The gateway users of the SQLite store (`store-users.ts`). A rate admission reads both windows
 * and counts the request in one `BEGIN IMMEDIATE` transaction, so processes sharing `state.db`
 * count each request once.
 */
export function sqliteGatewayUsers(database: Database.Database): GatewayUserStore {
  const statements = {
    byName: database.prepare<[string], GatewayUserRow>(`SELECT ${USER_COLUMNS} FROM gateway_users WHERE name = ?`),
    byKeyHash: database.prepare<[string], GatewayUserRow>(
      `SELECT ${USER_COLUMNS} FROM gateway_users WHERE key_hash = ?`,
    ),
    list: database.prepare<[], GatewayUserRow>(`SELECT ${USER_COLUMNS} FROM gateway_users ORDER BY name`),
    replace: database.prepare<[string, string, number | null, number, number | null]>(
      `INSERT OR REPLACE INTO gateway_users (${USER_COLUMNS}) VALUES (?, ?, ?, ?, ?)`,
    ),
    revoke: database.prepare<[number, string]>(
      'UPDATE gateway_users SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL',
    ),
    windowCounts: database.prepare<[string, number, number], { window_start: number; count: number }>(
      'SELECT window_start, count FROM gateway_rate_windows WHERE user_name = ? AND window_start IN (?, ?)',
    ),
    countRequest: database.prepare<[string, number]>(
      `INSERT INTO gateway_rate_windows (user_name, window_start, count) VALUES (?, ?, 1)
       ON CONFLICT (user_name, window_start) DO UPDATE SET count = count + 1`,
    ),
    pruneWindows: database.prepare<[string, number]>(
      'DELETE FROM gateway_rate_windows WHERE user_name = ? AND window_start < ?',
    ),
  };

  const addUser = database.transaction((user: GatewayUserRecord): GatewayUserRecord => {
    const existing = statements.byName.get(user.name);
    if (existing !== undefined && existing.revoked_at === null) throw duplicateUserError(user.name);
    statements.replace.run(user.name, user.keyHash, user.requestsPerMinute, user.createdAt, user.revokedAt);
    return user;
  });

  const admit = database.transaction((name: string, limit: number, at: number) => {
    const start = rateWindowStart(at);
    const counts = new Map(
      statements.windowCounts.all(name, start - RATE_WINDOW_MS, start).map((row) => [row.window_start, row.count]),
    );
    const current = counts.get(start) ?? 0;
    const decided = rateAdmission(counts.get(start - RATE_WINDOW_MS) ?? 0, current, limit, at);
    if (decided.admitted) {
      statements.countRequest.run(name, start);
      if (current === 0) statements.pruneWindows.run(name, start - RATE_WINDOW_MS);
    }
    return { admitted: decided.admitted, retryAfterMs: decided.retryAfterMs };
  });

  return {
    addGatewayUser: async (user) => ({ ...addUser.immediate(validGatewayUser(user)) }),
    listGatewayUsers: async () => statements.list.all().map(gatewayUserFromRow),
    gatewayUserByKeyHash: async (keyHash) => {
      const row = statements.byKeyHash.get(keyHash);
      return row === undefined ? null : gatewayUserFromRow(row);
    },
    revokeGatewayUser: async (name, at) => statements.revoke.run(at, name).changes > 0,
    admitGatewayRequest: async (name, limit, at) => admit.immediate(name, limit, at),
  };
}
