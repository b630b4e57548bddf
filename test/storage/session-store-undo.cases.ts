import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import type { Message } from '../../src/core/message.js';
import type { SessionStore } from '../../src/storage/session-store.js';
import { conversation } from './session-store-messages.js';

/** A message as `listMessages({ includeUndone: true })` returns it after `/undo` marked it. */
function marked(message: Message): Message {
  return { ...message, _undone: true } as Message;
}

/**
 * `/undo` conformance (docs/sessions.md, `session-undo.ts`): part of the `SessionStore` suite,
 * run by every implementation. `current` returns the store of the running test.
 */
export function runUndoConformance(current: () => SessionStore): void {
  describe('undo (docs/sessions.md: taken back, still stored, marked)', () => {
    it('marks the last user message and everything after it; requests no longer see them', async () => {
      const store = current();
      const session = await store.createSession();
      const messages = conversation();
      await store.appendMessages(session.id, messages);
      // The last user message is the third one (content parts); six messages follow it.
      expect(await store.undoLastExchange(session.id)).toBe(7);
      expect(await store.listMessages(session.id)).toStrictEqual(messages.slice(0, 2));
      const all = await store.listMessages(session.id, { includeUndone: true });
      expect(all).toStrictEqual([...messages.slice(0, 2), ...messages.slice(2).map(marked)]);
      expect((await store.getSession(session.id))?.messageCount).toBe(messages.length);
    });

    it('undoes one exchange at a time, then says there is nothing left (0); the system prompt stays', async () => {
      const store = current();
      const session = await store.createSession();
      await store.appendMessages(session.id, conversation());
      expect(await store.undoLastExchange(session.id)).toBe(7);
      expect(await store.undoLastExchange(session.id)).toBe(1);
      expect(await store.listMessages(session.id)).toStrictEqual(conversation().slice(0, 1));
      expect(await store.undoLastExchange(session.id)).toBe(0);
      expect(await store.undoLastExchange(session.id)).toBe(0);
      const empty = await store.createSession();
      expect(await store.undoLastExchange(empty.id)).toBe(0);
    });

    it('after new turns, undo takes back only the newest exchange; earlier marks stay', async () => {
      const store = current();
      const session = await store.createSession();
      const first: Message[] = [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'one' },
        { role: 'assistant', content: 'answer one' },
        { role: 'user', content: 'two' },
        { role: 'assistant', content: 'answer two' },
      ];
      await store.appendMessages(session.id, first);
      expect(await store.undoLastExchange(session.id)).toBe(2);
      const next: Message[] = [
        { role: 'user', content: 'three' },
        { role: 'assistant', content: 'answer three' },
      ];
      await store.appendMessages(session.id, next);
      expect(await store.listMessages(session.id)).toStrictEqual([...first.slice(0, 3), ...next]);
      expect(await store.undoLastExchange(session.id)).toBe(2);
      expect(await store.listMessages(session.id)).toStrictEqual(first.slice(0, 3));
      expect(await store.listMessages(session.id, { includeUndone: true })).toStrictEqual([
        ...first.slice(0, 3),
        ...first.slice(3).map(marked),
        ...next.map(marked),
      ]);
    });

    it('a branch copies the marks with the messages', async () => {
      const store = current();
      const source = await store.createSession();
      await store.appendMessages(source.id, conversation());
      await store.undoLastExchange(source.id);
      const child = await store.forkSession(source.id);
      expect(await store.listMessages(child.id)).toStrictEqual(conversation().slice(0, 2));
      expect(await store.listMessages(child.id, { includeUndone: true })).toStrictEqual(
        await store.listMessages(source.id, { includeUndone: true }),
      );
    });

    it('refuses an unknown session with the usage error', async () => {
      const failure = current().undoLastExchange('20200101-000000-nosuch');
      await expect(failure).rejects.toThrow(UsageError);
      await expect(failure).rejects.toThrow('no session "20200101-000000-nosuch" (see hermes sessions list)');
    });
  });
}
