import { describe, expect, it } from 'vitest';
import type { SessionStore } from '../../src/storage/session-store.js';

/**
 * Turn fingerprints (the Gemini door finds a conversation by its history, docs/gateway.md
 * "Gemini CLI"): part of the `SessionStore` suite, run by every implementation. `current`
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
    });

    it('notes a pair once, and forgets a deleted session', async () => {
      const store = current();
      const session = await store.createSession({ id: 'fp-once' });
      await store.addTurnFingerprint(session.id, 'f-3');
      await store.addTurnFingerprint(session.id, 'f-3');
      expect(await store.sessionsWithTurn('f-3', 5)).toEqual(['fp-once']);
      await store.deleteSession(session.id);
      expect(await store.sessionsWithTurn('f-3', 5)).toEqual([]);
    });

    it('refuses a fingerprint for an unknown session', async () => {
      await expect(current().addTurnFingerprint('no-such-session', 'f-4')).rejects.toThrow(/no-such-session/);
    });
  });
}
