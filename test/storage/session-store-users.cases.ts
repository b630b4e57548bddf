import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import type { SessionStore } from '../../src/storage/session-store.js';
import { RATE_WINDOW_MS, type GatewayUserRecord } from '../../src/storage/store-users.js';

/**
 * Gateway users and their sessions (SPEC §26.10): part of the `SessionStore` suite, run by every
 * implementation. `current` returns the store of the running test.
 */
export function runGatewayUserConformance(current: () => SessionStore): void {
  const hash = (seed: string) => seed.repeat(64).slice(0, 64);
  const user = (name: string, extra: Partial<GatewayUserRecord> = {}): GatewayUserRecord => ({
    name,
    keyHash: hash('a'),
    requestsPerMinute: null,
    createdAt: 1_000,
    revokedAt: null,
    ...extra,
  });
  // The start of a rate window, far from the test clock's times.
  const minute = 1_800_000_000_000 - (1_800_000_000_000 % RATE_WINDOW_MS);

  describe('gateway users (SPEC §26.10)', () => {
    it('adds users, lists them by name and finds one by its key hash', async () => {
      const store = current();
      expect(await store.listGatewayUsers()).toEqual([]);
      await store.addGatewayUser(user('zoe', { keyHash: hash('b'), requestsPerMinute: 30 }));
      await store.addGatewayUser(user('alice'));
      expect((await store.listGatewayUsers()).map((entry) => entry.name)).toEqual(['alice', 'zoe']);
      expect(await store.gatewayUserByKeyHash(hash('b'))).toEqual(
        user('zoe', { keyHash: hash('b'), requestsPerMinute: 30 }),
      );
      expect(await store.gatewayUserByKeyHash(hash('c'))).toBeNull();
    });

    it('refuses a second user of a name whose key works, and a bad name, hash or limit', async () => {
      const store = current();
      await store.addGatewayUser(user('alice'));
      await expect(store.addGatewayUser(user('alice', { keyHash: hash('b') }))).rejects.toThrow(/already exists/);
      await expect(store.addGatewayUser(user('bad/name', { keyHash: hash('c') }))).rejects.toThrow(UsageError);
      await expect(store.addGatewayUser(user('bob', { keyHash: 'short' }))).rejects.toThrow(/SHA-256/);
      await expect(store.addGatewayUser(user('bob', { keyHash: hash('d'), requestsPerMinute: 0 }))).rejects.toThrow(
        /requests-per-minute/,
      );
      expect((await store.listGatewayUsers()).map((entry) => entry.name)).toEqual(['alice']);
    });

    it('revokes a key once, keeps the revoked user listed, and lets the name be added again', async () => {
      const store = current();
      await store.addGatewayUser(user('alice'));
      expect(await store.revokeGatewayUser('alice', 5_000)).toBe(true);
      expect(await store.revokeGatewayUser('alice', 6_000)).toBe(false);
      expect(await store.revokeGatewayUser('nobody', 6_000)).toBe(false);
      expect(await store.gatewayUserByKeyHash(hash('a'))).toEqual(user('alice', { revokedAt: 5_000 }));
      await store.addGatewayUser(user('alice', { keyHash: hash('e'), createdAt: 7_000 }));
      expect(await store.gatewayUserByKeyHash(hash('a'))).toBeNull();
      expect(await store.listGatewayUsers()).toEqual([user('alice', { keyHash: hash('e'), createdAt: 7_000 })]);
    });

    it('admits up to the limit per minute, refuses the next with the wait, and counts per user', async () => {
      const store = current();
      const at = minute + 1_000;
      for (let index = 0; index < 3; index += 1) {
        expect(await store.admitGatewayRequest('alice', 3, at + index)).toEqual({ admitted: true, retryAfterMs: 0 });
      }
      const refused = await store.admitGatewayRequest('alice', 3, at + 10);
      expect(refused.admitted).toBe(false);
      // Nothing before this window: the next fits once this window's count has slid out of the last minute.
      expect(refused.retryAfterMs).toBe(RATE_WINDOW_MS - 1_010 + RATE_WINDOW_MS * (1 - 2 / 3));
      expect((await store.admitGatewayRequest('bob', 3, at + 11)).admitted).toBe(true);
    });

    it('weighs the window before by how much of the last minute it still covers', async () => {
      const store = current();
      for (let index = 0; index < 4; index += 1) await store.admitGatewayRequest('alice', 4, minute + index);
      // Half-way through the next window the 4 earlier requests count as 2: two more fit.
      const half = minute + RATE_WINDOW_MS + RATE_WINDOW_MS / 2;
      expect((await store.admitGatewayRequest('alice', 4, half)).admitted).toBe(true);
      expect((await store.admitGatewayRequest('alice', 4, half + 1)).admitted).toBe(true);
      const refused = await store.admitGatewayRequest('alice', 4, half + 2);
      expect(refused).toEqual({ admitted: false, retryAfterMs: expect.any(Number) });
      expect(refused.retryAfterMs).toBeGreaterThan(0);
      expect((await store.admitGatewayRequest('alice', 4, half + 2 + refused.retryAfterMs)).admitted).toBe(true);
      // Two windows later the old counts are gone.
      const later = minute + 3 * RATE_WINDOW_MS;
      for (let index = 0; index < 4; index += 1) {
        expect((await store.admitGatewayRequest('alice', 4, later + index)).admitted).toBe(true);
      }
    });
  });

  describe('ping (SPEC §26.10 readiness)', () => {
    it('answers while the database does', async () => {
      await expect(current().ping()).resolves.toBeUndefined();
    });
  });

  describe('owned sessions (SPEC §26.10)', () => {
    it("lists only a user's sessions when asked, and puts a child in its parent's namespace", async () => {
      const store = current();
      const mine = await store.createSession({ id: 'alice/one' });
      await store.createSession({ id: 'alicex/two' });
      await store.createSession({ id: 'plain' });
      await store.createSession({ id: 'bob/one' });
      const child = await store.forkSession(mine.id);
      expect(child.id).toMatch(/^alice\/\d{8}-\d{6}-[0-9a-z]{6}$/);
      expect((await store.listSessions({ owner: 'alice' })).map((session) => session.id)).toEqual([
        child.id,
        'alice/one',
      ]);
      expect((await store.listSessions({ owner: 'alice', limit: 1 })).map((session) => session.id)).toEqual([child.id]);
      expect(await store.listSessions({ owner: 'carol' })).toEqual([]);
      expect(await store.listSessions()).toHaveLength(5);
      expect((await store.forkSession('plain')).id).not.toContain('/');
    });
  });
}
