import { describe, expect, it } from 'vitest';
import type { SessionStore } from '../../src/storage/session-store.js';
import { conversation } from './session-store-messages.js';

/**
 * `appendMessages` with session fields (a turn stores its question and the session's route in
 * one transaction): part of the `SessionStore` suite, run by every implementation. `current`
 * returns the store of the running test.
 */
export function runBatchAppendConformance(current: () => SessionStore): void {
  describe('appendMessages with session fields (one transaction)', () => {
    it('stores the messages and sets only the fields given', async () => {
      const store = current();
      const session = await store.createSession({
        title: 'kept',
        provider: 'old',
        model: 'm0',
        api: 'chat_completions',
      });
      const messages = conversation();
      await store.appendMessages(session.id, messages.slice(0, 2), {
        session: { provider: 'deepseek', model: 'deepseek-v4-flash', baseUrl: null },
      });
      expect(await store.listMessages(session.id)).toStrictEqual(messages.slice(0, 2));
      const after = await store.getSession(session.id);
      expect(after).toMatchObject({
        title: 'kept',
        provider: 'deepseek',
        model: 'deepseek-v4-flash',
        baseUrl: null,
        api: 'chat_completions',
        messageCount: 2,
      });
      expect(after?.updatedAt).toBeGreaterThan(session.updatedAt);
      // Without fields it is the plain batch append.
      await store.appendMessages(session.id, messages.slice(2));
      expect(await store.listMessages(session.id)).toStrictEqual(messages);
      expect(await store.getSession(session.id)).toMatchObject({ provider: 'deepseek', title: 'kept' });
    });

    it('stores nothing and changes no field when a message cannot be stored', async () => {
      const store = current();
      const session = await store.createSession({ title: 'kept', provider: 'old' });
      const bad = { role: 'user', content: 'x', extra: 10n } as unknown as Parameters<SessionStore['appendMessage']>[1];
      await expect(
        store.appendMessages(session.id, [{ role: 'user', content: 'fine' }, bad], {
          session: { provider: 'new', title: 'changed' },
        }),
      ).rejects.toThrow();
      expect(await store.listMessages(session.id)).toEqual([]);
      expect(await store.getSession(session.id)).toMatchObject({ title: 'kept', provider: 'old', messageCount: 0 });
    });

    it('refuses an unknown session', async () => {
      const store = current();
      await expect(
        store.appendMessages('no-such-session', [{ role: 'user', content: 'x' }], { session: { title: 't' } }),
      ).rejects.toThrow(/no-such-session/);
    });
  });
}
