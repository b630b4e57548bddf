import {
  duplicateUserError,
  RATE_WINDOW_MS,
  rateAdmission,
  rateWindowStart,
  validGatewayUser,
  type GatewayUserRecord,
  type GatewayUserStore,
} from './store-users.js';

/** The gateway users of the memory store (`store-users.ts`), the same rules as the SQL stores. */
export function memoryGatewayUsers(): GatewayUserStore {
  const users = new Map<string, GatewayUserRecord>();
  /** Per user: request counts by window start (the current window and the one before). */
  const windows = new Map<string, Map<number, number>>();
  return {
    addGatewayUser: async (user) => {
      const valid = validGatewayUser(user);
      const existing = users.get(valid.name);
      if (existing && existing.revokedAt === null) throw duplicateUserError(valid.name);
      users.set(valid.name, valid);
      return { ...valid };
    },
    listGatewayUsers: async () =>
      [...users.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((user) => ({ ...user })),
    gatewayUserByKeyHash: async (keyHash) => {
      for (const user of users.values()) if (user.keyHash === keyHash) return { ...user };
      return null;
    },
    revokeGatewayUser: async (name, at) => {
      const user = users.get(name);
      if (!user || user.revokedAt !== null) return false;
      user.revokedAt = at;
      return true;
    },
    admitGatewayRequest: async (name, limit, at) => {
      const start = rateWindowStart(at);
      const counts = windows.get(name) ?? new Map<number, number>();
      windows.set(name, counts);
      for (const windowStart of counts.keys()) if (windowStart < start - RATE_WINDOW_MS) counts.delete(windowStart);
      const current = counts.get(start) ?? 0;
      const decided = rateAdmission(counts.get(start - RATE_WINDOW_MS) ?? 0, current, limit, at);
      if (decided.admitted) counts.set(start, current + 1);
      return { admitted: decided.admitted, retryAfterMs: decided.retryAfterMs };
    },
  };
}
