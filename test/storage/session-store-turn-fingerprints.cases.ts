import { describe, expect, it } from 'vitest';
import type { SessionStore } from '../../src/storage/session-store.js';

/**
 * Turn fingerprints (the front doors find a conversation by its history, SPEC §26.1,
 * gateway-front-door-conversations.ts): part of the `SessionStore` suite, run by every implementation. `current`
 * returns the store of the running test.
 */
export function runTurnFingerprintConformance(current: () => SessionStore): void {
  describe('turn fingerprints', () => {
    it('finds the sessions holding a turn, most recently noted first, at most the limit', async () => {
      const store = current();
      const first = await store.createSession({ id: 'fp-first' });
      const second = await store.createSession({ id: 'fp-second' });
      expect(await store.sessionsWithTurn('f-1', 5)).toEqual([]);
      await store.addTurnFingerprint(first.id, 'f-1');
      await new Promise((resolve) => setTimeout(resolve, 5));
      await store.addTurnFingerprint(second.id, 'f-1');
      await store.addTurnFingerprint(second.id, 'f-2');
      expect(await store.sessionsWithTurn('f-1', 5)).toEqual(['fp-second', 'fp-first']);
      expect(await store.sessionsWithTurn('f-1', 1)).toEqual(['fp-second']);
      expect(await store.sessionsWithTurn('f-2', 5)).toEqual(['fp-second']);
      expect(await store.sessionHoldsTurn(first.id, 'f-1')).toBe(true);
      expect(await store.sessionHoldsTurn(first.id, 'f-2')).toBe(false);
      expect(await store.sessionHoldsTurn('fp-none', 'f-1')).toBe(false);
    });

    it('notes a pair once, and forgets a deleted session', async () => {
      const store = current();
      const session = await store.createSession({ id: 'fp-once' });
      await store.addTurnFingerprint(session.id, 'f-3');
      await store.addTurnFingerprint(session.id, 'f-3');
      expect(await store.sessionsWithTurn('f-3', 5)).toEqual(['fp-once']);
      await store.deleteSession(session.id);
      expect(await store.sessionsWithTurn('f-3', 5)).toEqual([]);
      expect(await store.sessionHoldsTurn(session.id, 'f-3')).toBe(false);
    });

    it('notes the fingerprints of a turn write in its commit, and none when the write is refused', async () => {
      const store = current();
      const session = await store.createSession({ id: 'fp-write' });
      await store.writeTurn(session.id, { messages: [{ role: 'user', content: 'q' }], fingerprints: ['f-5'] });
      expect(await store.sessionsWithTurn('f-5', 5)).toEqual(['fp-write']);
      await expect(
        store.writeTurn(session.id, {
          expectedVersion: 1,
          messages: [{ role: 'user', content: 'r' }],
          fingerprints: ['f-6'],
        }),
      ).rejects.toThrow();
      expect(await store.sessionsWithTurn('f-6', 5)).toEqual([]);
    });

    it('refuses a fingerprint for an unknown session', async () => {
      await expect(current().addTurnFingerprint('no-such-session', 'f-4')).rejects.toThrow(/no-such-session/);
    });
  });
}
