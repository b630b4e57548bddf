import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import type { Message } from '../../src/core/message.js';
import type { SessionStore } from '../../src/storage/session-store.js';
import { SessionChangedError } from '../../src/storage/session-store-rules.js';
import { SessionLeaseLostError } from '../../src/storage/session-lease.js';
import { everyCarrierMessage } from './session-store-messages.js';

/** A message as `listMessages({ includeArchived: true })` returns it after compaction N archived it. */
function archived(message: Message, compaction = 1): Message {
  return { ...message, _archived: compaction } as Message;
}

/** System prompt, then `turns` user/assistant exchanges, the last assistant carrying every carrier kind. */
function history(turns: number): Message[] {
  const messages: Message[] = [{ role: 'system', content: 'sys' }];
  for (let turn = 1; turn <= turns; turn += 1) {
    messages.push({ role: 'user', content: `question ${turn} about src/file-${turn}.ts` });
    messages.push(
      turn === turns
        ? { ...everyCarrierMessage(), content: `answer ${turn}` }
        : { role: 'assistant', content: `answer ${turn}`, reasoning_content: `thinking ${turn}` },
    );
  }
  return messages;
}

const summary: Message = { role: 'user', content: '[Summary] the first turns' };

/**
 * In-place compaction and search conformance (SPEC §26.6, `session-archive.ts`,
 * `session-search.ts`): part of the `SessionStore` suite, run by every implementation.
 */
export function runArchiveConformance(current: () => SessionStore): void {
  describe('in-place compaction (SPEC §26.6: same id, archived turns kept, marked, not listed)', () => {
    it('archives the middle, puts the summary after the head and keeps the tail byte for byte', async () => {
      const store = current();
      const session = await store.createSession({ title: 'long' });
      const messages = history(4);
      await store.appendMessages(session.id, messages);
      const tail = messages.slice(7);
      const result = await store.compactInPlace(session.id, {
        from: 2,
        to: 7,
        messages: [summary, ...tail],
        modelConfig: { compactions: [{ number: 1 }] },
      });
      expect(result).toMatchObject({ compaction: 1, archived: 5 });
      const after = await store.getSession(session.id);
      expect(after?.version).toBe(result.version);
      expect(after?.modelConfig['compactions']).toEqual([{ number: 1 }]);
      expect(await store.listMessages(session.id)).toStrictEqual([...messages.slice(0, 2), summary, ...tail]);
      // Stored order: head, the archived middle, then the summary and the tail.
      expect(await store.listMessages(session.id, { includeArchived: true })).toStrictEqual([
        ...messages.slice(0, 2),
        ...messages.slice(2, 7).map((message) => archived(message)),
        summary,
        ...tail,
      ]);
      expect((await store.listSessions()).map((row) => row.id)).toEqual([session.id]);
    });

    it('a second compaction numbers its archive 2 and may archive the first summary; later appends follow the tail', async () => {
      const store = current();
      const session = await store.createSession();
      const messages = history(4);
      await store.appendMessages(session.id, messages);
      await store.compactInPlace(session.id, { from: 2, to: 5, messages: [summary, ...messages.slice(5)] });
      const next: Message[] = [
        { role: 'user', content: 'question 5' },
        { role: 'assistant', content: 'answer 5' },
      ];
      await store.appendMessages(session.id, next);
      const live = await store.listMessages(session.id);
      expect(live).toStrictEqual([...messages.slice(0, 2), summary, ...messages.slice(5), ...next]);
      const second: Message = { role: 'user', content: '[Summary] all but the last turn' };
      const result = await store.compactInPlace(session.id, {
        from: 2,
        to: live.length - 2,
        messages: [second, ...next],
      });
      expect(result).toMatchObject({ compaction: 2, archived: live.length - 4 });
      expect(await store.listMessages(session.id)).toStrictEqual([...messages.slice(0, 2), second, ...next]);
      const all = await store.listMessages(session.id, { includeArchived: true });
      expect(all.filter((message) => (message as { _archived?: number })._archived === 1)).toHaveLength(3);
      expect(all.filter((message) => (message as { _archived?: number })._archived === 2)).toStrictEqual(
        [summary, ...messages.slice(5)].map((message) => archived(message, 2)),
      );
    });

    it('messages /undo took back stay out of the positions; those past the cut are archived, not lost', async () => {
      const store = current();
      const session = await store.createSession();
      const messages = history(3);
      await store.appendMessages(session.id, messages);
      expect(await store.undoLastExchange(session.id)).toBe(2);
      const live = await store.listMessages(session.id);
      expect(live).toHaveLength(5);
      await store.compactInPlace(session.id, { from: 2, to: 3, messages: [summary, ...live.slice(3)] });
      expect(await store.listMessages(session.id)).toStrictEqual([...messages.slice(0, 2), summary, ...live.slice(3)]);
      const all = await store.listMessages(session.id, { includeArchived: true, includeUndone: true });
      const undoneArchived = all.filter((message) => {
        const marks = message as { _archived?: number; _undone?: boolean };
        return marks._archived === 1 && marks._undone === true;
      });
      expect(undoneArchived).toHaveLength(2);
      // Undo works on the live history only.
      expect(await store.undoLastExchange(session.id)).toBe(2);
      expect(await store.listMessages(session.id)).toStrictEqual([...messages.slice(0, 2), summary]);
    });

    it('a history of several thousand messages reads whole and in order, archived and undone rows across its pages', async () => {
      const store = current();
      const session = await store.createSession();
      const messages = history(1600);
      await store.appendMessages(session.id, messages);
      expect(await store.listMessages(session.id)).toStrictEqual(messages);
      // Archive 1,500 messages that straddle page boundaries, then take the last exchange back.
      const tail = messages.slice(1502);
      await store.compactInPlace(session.id, { from: 2, to: 1502, messages: [summary, ...tail] });
      expect(await store.undoLastExchange(session.id)).toBe(2);
      const live = [...messages.slice(0, 2), summary, ...tail.slice(0, -2)];
      expect(await store.listMessages(session.id)).toStrictEqual(live);
      const all = await store.listMessages(session.id, { includeArchived: true, includeUndone: true });
      expect(all).toHaveLength(messages.length + 1);
      expect(all.slice(2, 1502)).toStrictEqual(messages.slice(2, 1502).map((message) => archived(message)));
      expect(all.slice(1502, -2)).toStrictEqual([summary, ...tail.slice(0, -2)]);
      expect(all.slice(-2).every((message) => (message as { _undone?: boolean })._undone === true)).toBe(true);
    });

    it('checks positions, the lease and the version, and writes nothing when a check fails', async () => {
      const store = current();
      const session = await store.createSession();
      await store.appendMessages(session.id, history(2));
      const before = await store.listMessages(session.id, { includeArchived: true });
      await expect(store.compactInPlace(session.id, { from: 2, to: 9, messages: [summary] })).rejects.toThrow(
        UsageError,
      );
      await expect(
        store.compactInPlace(session.id, { from: 2, to: 3, messages: [summary], expectedVersion: 99 }),
      ).rejects.toThrow(SessionChangedError);
      await expect(
        store.compactInPlace(session.id, { from: 2, to: 3, messages: [summary], leaseId: 'not-held' }),
      ).rejects.toThrow(SessionLeaseLostError);
      await expect(store.compactInPlace('no-such-session', { from: 0, to: 0, messages: [] })).rejects.toThrow(
        UsageError,
      );
      expect(await store.listMessages(session.id, { includeArchived: true })).toStrictEqual(before);
    });

    it('a branch of a compacted session copies its archive with the marks', async () => {
      const store = current();
      const session = await store.createSession();
      const messages = history(3);
      await store.appendMessages(session.id, messages);
      await store.compactInPlace(session.id, { from: 2, to: 5, messages: [summary, ...messages.slice(5)] });
      const child = await store.forkSession(session.id, { title: 'branch' });
      expect(await store.listMessages(child.id, { includeArchived: true })).toStrictEqual(
        await store.listMessages(session.id, { includeArchived: true }),
      );
      expect(await store.listMessages(child.id)).toStrictEqual(await store.listMessages(session.id));
    });
  });

  describe('search (docs/sessions.md: live and archived messages)', () => {
    it('finds text in content, tool calls and reasoning, case-insensitively, archived ones marked', async () => {
      const store = current();
      const older = await store.createSession({ title: 'older' });
      await store.appendMessages(older.id, [
        { role: 'user', content: 'Error: ENOENT: no such file, open "/tmp/x_1%.txt"' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"notes.md"}' } },
          ],
          reasoning_content: 'I will look at NOTES.md first',
        },
      ]);
      const newer = await store.createSession({ title: 'newer' });
      const messages = history(3);
      await store.appendMessages(newer.id, messages);
      await store.compactInPlace(newer.id, { from: 2, to: 5, messages: [summary, ...messages.slice(5)] });

      const files = await store.searchMessages('SRC/FILE-');
      expect(files.map((hit) => [hit.sessionId, hit.position, hit.archived, hit.field])).toEqual([
        [newer.id, 1, null, 'content'],
        [newer.id, 3, 1, 'content'],
        [newer.id, 6, null, 'content'],
      ]);
      expect(files[0]).toMatchObject({ title: 'newer', role: 'user', snippet: 'question 1 about src/file-1.ts' });
      expect(files[0]?.snippet.slice(files[0].matchStart, files[0].matchStart + files[0].matchLength)).toBe(
        'src/file-',
      );

      const notes = await store.searchMessages('notes.md');
      expect(notes.map((hit) => [hit.sessionId, hit.field])).toEqual([[older.id, 'tool call']]);
      expect(await store.searchMessages('look at notes')).toMatchObject([{ field: 'reasoning', archived: null }]);
      // LIKE wildcards in the text are plain characters.
      expect(await store.searchMessages('x_1%')).toHaveLength(1);
      expect(await store.searchMessages('x%1')).toHaveLength(0);
      expect(await store.searchMessages('src/file', { sessionId: older.id })).toEqual([]);
      expect(await store.searchMessages('src/file', { limit: 2 })).toHaveLength(2);
      await expect(store.searchMessages('  ')).rejects.toThrow(UsageError);
    });
  });
}
