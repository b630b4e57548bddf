import { describe, expect, it } from 'vitest';
import type { HandleKeyRecord, SessionStore } from '../../src/storage/session-store.js';

/**
 * The handle keys of the gateway's sealed reasoning handles (SPEC §25.6): part of the
 * `SessionStore` suite, run by every implementation. `current` returns the store of the running
 * test.
 */
export function runHandleKeyConformance(current: () => SessionStore): void {
  const key = (id: string, createdAt: number, secret = `secret-${id}`): HandleKeyRecord => ({ id, secret, createdAt });

  describe('handle keys (SPEC §25.6)', () => {
    it('starts with none, adds keys and lists them oldest first (time, then id)', async () => {
      const store = current();
      expect(await store.listHandleKeys()).toEqual([]);
      expect(await store.addHandleKey(key('k-b', 20))).toEqual([key('k-b', 20)]);
      await store.addHandleKey(key('k-c', 10));
      const all = await store.addHandleKey(key('k-a', 20));
      expect(all.map((entry) => entry.id)).toEqual(['k-c', 'k-a', 'k-b']);
      expect(await store.listHandleKeys()).toEqual(all);
    });

    it('keeps the first key stored under an id (a second add of that id changes nothing)', async () => {
      const store = current();
      await store.addHandleKey(key('k-1', 5, 'first'));
      expect(await store.addHandleKey(key('k-1', 9, 'second'))).toEqual([key('k-1', 5, 'first')]);
    });

    it('retires every key but one and says how many went', async () => {
      const store = current();
      for (const [index, id] of ['k-1', 'k-2', 'k-3'].entries()) await store.addHandleKey(key(id, index));
      expect(await store.retireHandleKeys('k-3')).toBe(2);
      expect(await store.listHandleKeys()).toEqual([key('k-3', 2)]);
      expect(await store.retireHandleKeys('k-3')).toBe(0);
    });

    it('refuses a key without an id or a secret', async () => {
      const store = current();
      await expect(store.addHandleKey(key('', 1))).rejects.toThrow(/non-empty id and secret/);
      await expect(store.addHandleKey(key('k', 1, ''))).rejects.toThrow(/non-empty id and secret/);
      expect(await store.listHandleKeys()).toEqual([]);
    });
  });
}
