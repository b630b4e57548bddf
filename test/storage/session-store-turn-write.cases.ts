import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import type { Message } from '../../src/core/message.js';
import { SessionBusyError, SessionLeaseLostError, type LeaseClaim } from '../../src/storage/session-lease.js';
import { SessionChangedError } from '../../src/storage/session-store-rules.js';
import type { SessionStore } from '../../src/storage/session-store.js';
import { conversation } from './session-store-messages.js';

/**
 * The session version and `writeTurn` (a turn's lease, messages, fields, request records and
 * release in one transaction, SPEC §23.6): part of the `SessionStore` suite, run by every
 * implementation. `current` returns the store of the running test.
 */

function claim(leaseId: string): LeaseClaim {
  return { leaseId, owner: 'hermes test', pid: 4242, host: 'host-a', ttlMs: 60_000, holderGone: () => false };
}

const request = { at: 1, api: 'chat_completions', routeKey: 'deepseek|api.deepseek.com|m', status: 200, decisions: [] };

export function runTurnWriteConformance(current: () => SessionStore): void {
  describe('session version (warm histories compare it)', () => {
    it('starts at 1 and moves on with every write to the row or messages, never with lease or request writes', async () => {
      const store = current();
      const session = await store.createSession();
      expect(session.version).toBe(1);
      const version = async () => (await store.getSession(session.id))?.version ?? NaN;
      const steps: [string, () => Promise<unknown>, boolean][] = [
        ['appendMessage', () => store.appendMessage(session.id, { role: 'user', content: 'q' }), true],
        ['appendMessages', () => store.appendMessages(session.id, [{ role: 'assistant', content: 'a' }]), true],
        ['updateSession', () => store.updateSession(session.id, { title: 't' }), true],
        ['patchModelConfig', () => store.patchModelConfig(session.id, { k: 1 }), true],
        ['undoLastExchange', () => store.undoLastExchange(session.id), true],
        ['undo with nothing left', () => store.undoLastExchange(session.id), false],
        ['acquireLease', () => store.acquireLease(session.id, claim('l1')), false],
        ['renewLease', () => store.renewLease(session.id, 'l1', 60_000), false],
        ['recordRequest', () => store.recordRequest({ ...request, sessionId: session.id }), false],
        ['releaseLease', () => store.releaseLease(session.id, 'l1'), false],
      ];
      for (const [name, step, moves] of steps) {
        const before = await version();
        await step();
        expect([name, (await version()) > before]).toEqual([name, moves]);
      }
    });
  });

  describe('writeTurn (one transaction per turn step)', () => {
    it('takes the lease with the question and the fields in one write, one version on', async () => {
      const store = current();
      const session = await store.createSession({ provider: 'old' });
      const [question] = conversation();
      const written = await store.writeTurn(session.id, {
        acquireLease: claim('l1'),
        expectedVersion: session.version,
        messages: [question as Message],
        session: { provider: 'deepseek', title: 'first question' },
      });
      expect(written.version).toBe(session.version + 1);
      expect(written.lease).toMatchObject({ sessionId: session.id, leaseId: 'l1', owner: 'hermes test' });
      expect(await store.readLease(session.id)).toMatchObject({ leaseId: 'l1' });
      expect(await store.listMessages(session.id)).toStrictEqual([question]);
      expect(await store.getSession(session.id)).toMatchObject({
        provider: 'deepseek',
        title: 'first question',
        messageCount: 1,
        version: written.version,
      });
    });

    it('stores the answer with its request record and drops the lease in one write', async () => {
      const store = current();
      const session = await store.createSession();
      await store.writeTurn(session.id, { acquireLease: claim('l1'), session: {} });
      const [, answer] = conversation();
      const written = await store.writeTurn(session.id, {
        leaseId: 'l1',
        messages: [answer as Message],
        requests: [request],
        releaseLease: true,
      });
      expect(written.lease).toBeNull();
      expect(await store.readLease(session.id)).toBeNull();
      expect(await store.listMessages(session.id)).toStrictEqual([answer]);
      const [recorded] = await store.listRequests(session.id);
      expect(recorded).toMatchObject({ ...request, sessionId: session.id });
      expect((await store.getSession(session.id))?.version).toBe(written.version);
      // A write of request records alone leaves the version.
      const again = await store.writeTurn(session.id, { requests: [request] });
      expect(again.version).toBe(written.version);
      expect(await store.listRequests(session.id)).toHaveLength(2);
    });

    it('takes and drops the lease in one write: the claim must win, and no lease is left behind', async () => {
      const store = current();
      const session = await store.createSession();
      const [question, answer] = conversation();
      await store.acquireLease(session.id, claim('live'));
      const once = { messages: [question as Message], requests: [request], releaseLease: true };
      await expect(store.writeTurn(session.id, { ...once, acquireLease: claim('mine') })).rejects.toBeInstanceOf(
        SessionBusyError,
      );
      expect(await store.listMessages(session.id)).toStrictEqual([]);
      expect(await store.readLease(session.id)).toMatchObject({ leaseId: 'live' });
      // A claim that may displace the holder (gone) takes the session; the displaced lease goes too.
      const written = await store.writeTurn(session.id, {
        ...once,
        acquireLease: { ...claim('mine'), holderGone: () => true },
      });
      expect(written.lease).toBeNull();
      expect(await store.readLease(session.id)).toBeNull();
      const next = await store.writeTurn(session.id, {
        acquireLease: claim('next'),
        messages: [answer as Message],
        releaseLease: true,
      });
      expect(next.lease).toBeNull();
      expect(await store.readLease(session.id)).toBeNull();
      expect(await store.listMessages(session.id)).toStrictEqual([question, answer]);
      expect(await store.listRequests(session.id)).toHaveLength(1);
    });

    it('refuses, writing nothing, while another holder has the lease, after the version moved, or once the lease was lost', async () => {
      const store = current();
      const session = await store.createSession();
      const [question] = conversation();
      const write = { messages: [question as Message], session: { title: 'x' }, requests: [request] };
      await store.acquireLease(session.id, claim('other'));
      const busy = store.writeTurn(session.id, { ...write, acquireLease: claim('mine') });
      await expect(busy).rejects.toBeInstanceOf(SessionBusyError);
      const lost = store.writeTurn(session.id, { ...write, leaseId: 'mine' });
      await expect(lost).rejects.toBeInstanceOf(SessionLeaseLostError);
      await store.releaseLease(session.id, 'other');
      await store.appendMessage(session.id, { role: 'user', content: 'written elsewhere' });
      const changed = store.writeTurn(session.id, { ...write, acquireLease: claim('mine'), expectedVersion: 1 });
      await expect(changed).rejects.toBeInstanceOf(SessionChangedError);
      expect(await store.readLease(session.id)).toBeNull();
      expect(await store.listMessages(session.id)).toEqual([{ role: 'user', content: 'written elsewhere' }]);
      expect(await store.listRequests(session.id)).toEqual([]);
      expect(await store.getSession(session.id)).toMatchObject({ title: null, version: 2 });
    });

    it('is all or nothing: a message that is not JSON leaves no lease, message or record', async () => {
      const store = current();
      const session = await store.createSession();
      const bad = { role: 'assistant', content: 'x', _bad: 10n } as unknown as Message;
      const refused = store.writeTurn(session.id, {
        acquireLease: claim('l1'),
        messages: [{ role: 'user', content: 'q' }, bad],
        requests: [request],
      });
      await expect(refused).rejects.toBeInstanceOf(UsageError);
      expect(await store.readLease(session.id)).toBeNull();
      expect(await store.listMessages(session.id)).toEqual([]);
      expect(await store.listRequests(session.id)).toEqual([]);
      expect((await store.getSession(session.id))?.version).toBe(1);
      await expect(store.writeTurn('20200101-000000-nosuch', { session: {} })).rejects.toBeInstanceOf(UsageError);
    });
  });
  describe('writeTurn creating its session (a new session is never stored empty)', () => {
    it('creates the session with its first messages, lease and fields in one write', async () => {
      const store = current();
      const id = '20261204-120000-fresh1';
      const [question] = conversation();
      const written = await store.writeTurn(id, {
        createSession: { provider: 'deepseek', model: 'm', modelConfig: { workspace: '/w' } },
        acquireLease: claim('l1'),
        messages: [question as Message],
        session: { title: 'first question' },
      });
      expect(await store.getSession(id)).toMatchObject({
        id,
        provider: 'deepseek',
        model: 'm',
        title: 'first question',
        modelConfig: { workspace: '/w' },
        messageCount: 1,
        version: written.version,
      });
      expect(written.lease).toMatchObject({ sessionId: id, leaseId: 'l1' });
      expect(await store.listMessages(id)).toStrictEqual([question]);
    });

    it('refuses, writing nothing, when the session exists already, and leaves no session when the write is refused', async () => {
      const store = current();
      const session = await store.createSession({ title: 'there' });
      const taken = store.writeTurn(session.id, {
        createSession: {},
        messages: [{ role: 'user', content: 'q' }],
        session: { title: 'mine' },
      });
      await expect(taken).rejects.toBeInstanceOf(SessionChangedError);
      expect(await store.getSession(session.id)).toMatchObject({ title: 'there', messageCount: 0, version: 1 });
      const bad = { role: 'assistant', content: 'x', _bad: 10n } as unknown as Message;
      const refused = store.writeTurn('20261204-120000-fresh2', {
        createSession: {},
        messages: [{ role: 'user', content: 'q' }, bad],
      });
      await expect(refused).rejects.toBeInstanceOf(UsageError);
      expect(await store.getSession('20261204-120000-fresh2')).toBeNull();
      expect(await store.listSessions()).toHaveLength(1);
    });
  });

  describe('writeTurn calls made at once (the gateway runs many turns)', () => {
    it('each applies whole or not at all: one refused write leaves the others stored', async () => {
      const store = current();
      const sessions = await Promise.all([1, 2, 3].map(() => store.createSession()));
      const [first, second, third] = sessions.map((session) => session.id) as [string, string, string];
      const outcomes = await Promise.allSettled([
        store.writeTurn(first, { messages: [{ role: 'user', content: 'one' }], requests: [request] }),
        // Behind the version it names: refused, nothing of it stored.
        store.writeTurn(second, {
          expectedVersion: 99,
          messages: [{ role: 'user', content: 'two' }],
          requests: [request],
        }),
        store.writeTurn(third, { acquireLease: claim('l3'), messages: [{ role: 'user', content: 'three' }] }),
      ]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(SessionChangedError);
      expect((await store.listMessages(first)).map((message) => message.content)).toEqual(['one']);
      expect(await store.listMessages(second)).toEqual([]);
      expect(await store.listRequests(second)).toEqual([]);
      expect((await store.getSession(second))?.version).toBe(1);
      expect((await store.listMessages(third)).map((message) => message.content)).toEqual(['three']);
      expect((await store.readLease(third))?.leaseId).toBe('l3');
    });

    it('apply one after another on one session, each seeing the ones before it', async () => {
      const store = current();
      const session = await store.createSession();
      const contents = ['a', 'b', 'c', 'd'];
      const writes = await Promise.all(
        contents.map((content) => store.writeTurn(session.id, { messages: [{ role: 'user', content }] })),
      );
      // In some order (a PostgreSQL pool runs them on several connections): the stored order is the version order.
      const byVersion = contents
        .map((content, index) => ({ content, version: writes[index]!.version }))
        .sort((left, right) => left.version - right.version);
      expect(byVersion.map((write) => write.version)).toEqual([2, 3, 4, 5]);
      expect((await store.listMessages(session.id)).map((message) => message.content)).toEqual(
        byVersion.map((write) => write.content),
      );
      // Two lease claims at once: one takes it, the other meets its live lease.
      const claims = await Promise.allSettled([
        store.writeTurn(session.id, { acquireLease: claim('first') }),
        store.writeTurn(session.id, { acquireLease: claim('second') }),
      ]);
      const taken = claims.findIndex((outcome) => outcome.status === 'fulfilled');
      const refused = claims.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
      expect(claims.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      expect(refused.reason).toBeInstanceOf(SessionBusyError);
      expect((await store.readLease(session.id))?.leaseId).toBe(['first', 'second'][taken]);
    });
  });
}
