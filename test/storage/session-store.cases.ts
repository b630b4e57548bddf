import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { isSessionId } from '../../src/core/ids.js';
import type { AssistantMessage, Message } from '../../src/core/message.js';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import type { SessionStore } from '../../src/storage/session-store.js';
import { SessionBusyError, type LeaseClaim } from '../../src/storage/session-lease.js';
import { conversation, everyCarrierMessage } from './session-store-messages.js';
import { runUndoConformance } from './session-store-undo.cases.js';
import { runBatchAppendConformance } from './session-store-batch.cases.js';
import { runHandleKeyConformance } from './session-store-handle-keys.cases.js';
import { runTurnFingerprintConformance } from './session-store-turn-fingerprints.cases.js';
import { runTurnWriteConformance } from './session-store-turn-write.cases.js';
import { runArchiveConformance } from './session-store-archive.cases.js';
import { runGatewayUserConformance } from './session-store-users.cases.js';

/** A deterministic clock: every call is one millisecond later than the previous one. */
export interface TestClock {
  now: () => number;
}

/** Builds a fresh, empty store for one test. */
export type SessionStoreFactory = (clock: TestClock) => SessionStore | Promise<SessionStore>;

const START = 1_764_444_000_000;

/** A claim from a live process elsewhere (never "gone" unless it expires). */
function claim(leaseId: string, extra: Partial<LeaseClaim> = {}): LeaseClaim {
  return { leaseId, owner: 'hermes test', pid: 4242, host: 'host-a', ttlMs: 60_000, holderGone: () => false, ...extra };
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  return child.pid ?? 0;
}

/** A message the store must refuse: a BigInt is not JSON. */
function unserialisableMessage(): Message {
  return { role: 'assistant', content: 'x', _bad: 10n } as unknown as Message;
}

/** Keys present on a message, sorted: proves absent stays absent (toEqual ignores undefined). */
function keysOf(message: Message | undefined): string[] {
  return Object.keys(message ?? {}).sort();
}

/**
 * The `SessionStore` conformance suite (STYLE rule 9 (docs/architecture.md)): every implementation runs these cases
 * and must pass all of them. Each case names the SPEC section it proves.
 */
export function runSessionStoreConformance(name: string, factory: SessionStoreFactory): void {
  describe(`SessionStore conformance: ${name}`, () => {
    let store: SessionStore;
    let clock: TestClock;

    beforeEach(async () => {
      let time = START;
      clock = { now: () => (time += 1) };
      store = await factory(clock);
    });
    afterEach(async () => {
      await store.close();
    });

    describe('sessions (SPEC §18, docs/architecture.md)', () => {
      it('creates a session with defaults and a sortable, typeable id', async () => {
        const created = await store.createSession();
        expect(isSessionId(created.id)).toBe(true);
        expect(created).toEqual({
          id: created.id,
          title: null,
          parentSessionId: null,
          createdAt: created.createdAt,
          updatedAt: created.createdAt,
          provider: null,
          model: null,
          baseUrl: null,
          api: null,
          modelConfig: {},
          messageCount: 0,
          version: 1,
        });
        expect(created.createdAt).toBeGreaterThan(START);
        expect(await store.getSession(created.id)).toEqual(created);
        expect(await store.getSession('20200101-000000-nosuch')).toBeNull();
      });

      it('keeps every given field and refuses a duplicate id', async () => {
        const given = () => ({
          id: 's-given',
          title: 'Title',
          provider: 'deepseek',
          model: 'deepseek-reasoner',
          baseUrl: 'https://api.deepseek.com/v1',
          api: 'chat_completions' as const,
          modelConfig: { reasoning_rejected_carriers: { 'deepseek|api.deepseek.com|m': ['reasoning'] } },
        });
        const created = await store.createSession(given());
        expect(created).toMatchObject(given());
        await expect(store.createSession({ id: 's-given' })).rejects.toThrow(UsageError);
      });

      it('lists newest first with message counts, honours limit, and finds the latest', async () => {
        expect(await store.latestSession()).toBeNull();
        const first = await store.createSession({ id: 'first' });
        const second = await store.createSession({ id: 'second' });
        const third = await store.createSession({ id: 'third' });
        await store.appendMessages(first.id, conversation());
        // Appending touched `first`, so it is now the most recently updated.
        const listed = await store.listSessions();
        expect(listed.map((session) => [session.id, session.messageCount])).toEqual([
          ['first', conversation().length],
          ['third', 0],
          ['second', 0],
        ]);
        expect((await store.listSessions({ limit: 2 })).map((session) => session.id)).toEqual(['first', 'third']);
        expect((await store.latestSession())?.id).toBe('first');
        await store.updateSession(second.id, { title: 'renamed' });
        expect((await store.latestSession())?.id).toBe('second');
        expect(third.id).toBe('third');
      });

      it('updates only the given fields and moves updatedAt', async () => {
        const created = await store.createSession({ title: 'old', provider: 'openrouter', model: 'a' });
        await store.updateSession(created.id, { model: 'b', baseUrl: 'https://openrouter.ai/api/v1' });
        const updated = await store.getSession(created.id);
        expect(updated).toMatchObject({
          title: 'old',
          provider: 'openrouter',
          model: 'b',
          baseUrl: 'https://openrouter.ai/api/v1',
          api: null,
        });
        expect(updated?.updatedAt).toBeGreaterThan(created.updatedAt);
        await store.updateSession(created.id, { title: null });
        expect((await store.getSession(created.id))?.title).toBeNull();
      });

      it('stores a base URL without its credentials, on create, update and append (docs/architecture.md "Security")', async () => {
        const created = await store.createSession({ baseUrl: 'https://user:S3cretPass@gw.example/v1?key=K3yValue99' });
        expect(created.baseUrl).toBe('https://user:[redacted]@gw.example/v1?key=[redacted]');
        await store.updateSession(created.id, { baseUrl: 'https://gw.example/v1?alt=x&api_key=K3yValue99' });
        expect((await store.getSession(created.id))?.baseUrl).toBe('https://gw.example/v1?alt=x&api_key=[redacted]');
        await store.appendMessages(created.id, conversation(), {
          session: { baseUrl: 'https://gw.example/v1?token=T0kenValue' },
        });
        expect((await store.getSession(created.id))?.baseUrl).toBe('https://gw.example/v1?token=[redacted]');
        expect((await store.forkSession(created.id)).baseUrl).toBe('https://gw.example/v1?token=[redacted]');
      });

      it('refuses a title over 200 characters with a usage error, and keeps a branch title of the longest within it', async () => {
        const long = 't'.repeat(201);
        await expect(store.createSession({ title: long })).rejects.toThrow(UsageError);
        const created = await store.createSession({ title: 't'.repeat(200) });
        await expect(store.updateSession(created.id, { title: long })).rejects.toThrow(
          'a session title is at most 200 characters (this one has 201)',
        );
        await expect(store.forkSession(created.id, { title: long })).rejects.toThrow(UsageError);
        expect((await store.forkSession(created.id)).title?.length).toBeLessThanOrEqual(200);
        expect((await store.getSession(created.id))?.title).toBe('t'.repeat(200));
      });

      it('deletes a session with its messages and requests; children keep existing, parent cleared', async () => {
        const parent = await store.createSession({ id: 'parent' });
        await store.appendMessages(parent.id, conversation());
        await store.recordRequest({
          sessionId: parent.id,
          at: 1,
          api: 'chat_completions',
          routeKey: 'k',
          status: 200,
          decisions: [],
        });
        const child = await store.forkSession(parent.id);
        expect(await store.deleteSession(parent.id)).toBe(true);
        expect(await store.getSession(parent.id)).toBeNull();
        expect(await store.listMessages(parent.id)).toEqual([]);
        expect(await store.listRequests(parent.id)).toEqual([]);
        const orphan = await store.getSession(child.id);
        expect(orphan?.parentSessionId).toBeNull();
        expect(await store.listMessages(child.id)).toEqual(conversation());
        expect(await store.deleteSession(parent.id)).toBe(false);
      });

      it('lists child sessions of a parent (SPEC §17 lineage)', async () => {
        const parent = await store.createSession({ id: 'parent' });
        const one = await store.forkSession(parent.id, { title: 'one' });
        const two = await store.forkSession(parent.id, { title: 'two' });
        await store.forkSession(one.id);
        expect((await store.childSessions(parent.id)).map((session) => session.id)).toEqual([one.id, two.id]);
        expect(await store.childSessions(two.id)).toEqual([]);
      });
    });

    describe('messages round-trip exactly (SPEC §2, §18)', () => {
      it('returns a message carrying every carrier kind deep-equal, key for key', async () => {
        const session = await store.createSession();
        const message = everyCarrierMessage();
        expect(await store.appendMessage(session.id, message)).toBe(1);
        const [stored] = await store.listMessages(session.id);
        expect(stored).toStrictEqual(message);
        expect(keysOf(stored)).toEqual(keysOf(message));
      });

      it('keeps order and returns 1-based sequence numbers across single and batch appends', async () => {
        const session = await store.createSession();
        const messages = conversation();
        const sequences: number[] = [];
        for (const message of messages.slice(0, 3)) sequences.push(await store.appendMessage(session.id, message));
        await store.appendMessages(session.id, messages.slice(3));
        sequences.push(await store.appendMessage(session.id, { role: 'user', content: 'next' }));
        expect(sequences).toEqual([1, 2, 3, messages.length + 1]);
        const stored = await store.listMessages(session.id);
        const expected: Message[] = [...messages, { role: 'user', content: 'next' }];
        expect(stored).toStrictEqual(expected);
        expect(stored.map(keysOf)).toEqual(expected.map(keysOf));
        expect((await store.getSession(session.id))?.messageCount).toBe(messages.length + 1);
      });

      // One row per nullable key: value null, "" and " " each round-trip, and absence stays absence.
      const nullableKeys = [
        'content',
        'reasoning',
        'reasoning_content',
        'reasoning_details',
        'tool_calls',
        'finish_reason',
        'api_content',
        'origin',
        'timestamp',
        'codex_reasoning_items',
        '_private_flag',
        'unknown_vendor_key',
      ] as const;
      const variants: Array<[label: string, value: unknown]> = [
        ['null', null],
        ['absent', undefined],
        ['empty string', ''],
        ['single space', ' '],
        ['list', [{ type: 'reasoning.text', text: 't' }]],
        ['number', 0],
        ['boolean', false],
        ['object', { a: null }],
        ['JSON-looking string', '[{"type":"reasoning.text"}]'],
      ];
      for (const key of nullableKeys) {
        it(`distinguishes null, absent, "" and other shapes for "${key}"`, async () => {
          const session = await store.createSession();
          const messages = variants.map(([, value]) => {
            const message: Record<string, unknown> = { role: 'assistant' };
            if (key !== 'content') message['content'] = 'text';
            if (value !== undefined) message[key] = value;
            return message as unknown as Message;
          });
          await store.appendMessages(session.id, messages);
          const stored = await store.listMessages(session.id);
          for (const [index, [label, value]] of variants.entries()) {
            const record = stored[index] as unknown as Record<string, unknown>;
            expect(Object.hasOwn(record, key), `${key} ${label} presence`).toBe(value !== undefined);
            expect(record[key], `${key} ${label} value`).toStrictEqual(value);
          }
          expect(stored).toStrictEqual(messages);
        });
      }

      it('round-trips reasoning equal to reasoning_content, including both empty, and each alone', async () => {
        const session = await store.createSession();
        const messages: Message[] = [
          { role: 'assistant', content: 'a', reasoning: 'same text', reasoning_content: 'same text' },
          { role: 'assistant', content: 'b', reasoning: '', reasoning_content: '' },
          { role: 'assistant', content: 'c', reasoning: 'only reasoning' },
          { role: 'assistant', content: 'd', reasoning_content: 'only content' },
          { role: 'assistant', content: 'e', reasoning: 'differs', reasoning_content: 'differs ' },
        ];
        await store.appendMessages(session.id, messages);
        const stored = await store.listMessages(session.id);
        expect(stored).toStrictEqual(messages);
        expect(stored.map(keysOf)).toEqual(messages.map(keysOf));
      });

      it('keeps strings that SQLite text cannot hold (lone surrogate, NUL) and a __proto__ key', async () => {
        const session = await store.createSession();
        const message = JSON.parse(
          '{"role":"assistant","content":"a\\ud800b","reasoning":"x\\u0000y","__proto__":{"p":1}}',
        );
        await store.appendMessage(session.id, message as Message);
        const [stored] = await store.listMessages(session.id);
        expect(stored).toStrictEqual(message);
        expect(Object.hasOwn(stored ?? {}, '__proto__')).toBe(true);
        expect(Object.getPrototypeOf(stored)).toBe(Object.prototype);
      });

      it('isolates stored state from caller mutation, in and out', async () => {
        const session = await store.createSession();
        const message = everyCarrierMessage();
        await store.appendMessage(session.id, message);
        message.reasoning_details?.push({ type: 'mutated' });
        message.content = 'mutated';
        const [first] = (await store.listMessages(session.id)) as AssistantMessage[];
        first?.anthropic_content_blocks?.pop();
        expect(await store.listMessages(session.id)).toStrictEqual([everyCarrierMessage()]);
      });

      it('appends a batch all or nothing: a value that is not JSON stores none of it', async () => {
        const session = await store.createSession();
        await store.appendMessage(session.id, { role: 'user', content: 'kept' });
        const before = await store.getSession(session.id);
        const batch = [
          { role: 'user', content: 'one' } as Message,
          unserialisableMessage(),
          { role: 'user', content: 'three' } as Message,
        ];
        await expect(store.appendMessages(session.id, batch)).rejects.toThrow(UsageError);
        await expect(store.appendMessage(session.id, unserialisableMessage())).rejects.toThrow(UsageError);
        expect(await store.listMessages(session.id)).toEqual([{ role: 'user', content: 'kept' }]);
        expect(await store.getSession(session.id)).toEqual(before);
        expect(await store.appendMessage(session.id, { role: 'user', content: 'next' })).toBe(2);
      });
    });

    runUndoConformance(() => store);
    runBatchAppendConformance(() => store);
    runHandleKeyConformance(() => store);
    runTurnFingerprintConformance(() => store);
    runTurnWriteConformance(() => store);
    runArchiveConformance(() => store);
    runGatewayUserConformance(() => store);

    describe('model config (SPEC §18 patch semantics)', () => {
      it('merges keys, deletes on null, replaces nested values whole and returns the new config', async () => {
        const session = await store.createSession({ modelConfig: { keep: 1, drop: 'x', nested: { a: 1, b: 2 } } });
        const patched = await store.patchModelConfig(session.id, {
          drop: null,
          nested: { a: 9 },
          reasoning_rejected_carriers: { 'groq|api.groq.com|qwen': ['reasoning_content'] },
          absent: undefined,
        });
        const expected = {
          keep: 1,
          nested: { a: 9 },
          reasoning_rejected_carriers: { 'groq|api.groq.com|qwen': ['reasoning_content'] },
        };
        expect(patched).toStrictEqual(expected);
        expect((await store.getSession(session.id))?.modelConfig).toStrictEqual(expected);
        expect(await store.patchModelConfig(session.id, { missing: null })).toStrictEqual(expected);
      });
    });

    describe('branching (SPEC §17: one transaction)', () => {
      it('copies every message exactly, sets the parent, copies model config and session route', async () => {
        const source = await store.createSession({
          title: 'Source',
          provider: 'anthropic',
          model: 'claude-sonnet-4-5',
          api: 'anthropic_messages',
          modelConfig: { _anthropic_rejected_thinking: ['fp-1'] },
        });
        await store.appendMessages(source.id, conversation());
        const child = await store.forkSession(source.id);
        expect(child).toMatchObject({
          title: 'Source (branch)',
          parentSessionId: source.id,
          provider: 'anthropic',
          model: 'claude-sonnet-4-5',
          api: 'anthropic_messages',
          modelConfig: { _anthropic_rejected_thinking: ['fp-1'] },
          messageCount: conversation().length,
        });
        expect(child.id).not.toBe(source.id);
        const copied = await store.listMessages(child.id);
        expect(copied).toStrictEqual(conversation());
        expect(copied.map(keysOf)).toEqual(conversation().map(keysOf));
        await store.appendMessage(child.id, { role: 'user', content: 'only in the branch' });
        expect(await store.listMessages(source.id)).toStrictEqual(conversation());
      });

      it('uses the id as the default title, and a given title, messages and model config', async () => {
        const source = await store.createSession({ id: 'untitled', modelConfig: { a: 1 } });
        expect((await store.forkSession(source.id)).title).toBe('untitled (branch)');
        expect((await store.forkSession(source.id, { title: null })).title).toBeNull();
        const retained = [{ role: 'user', content: 'summary' } as Message, everyCarrierMessage()];
        const compacted = await store.forkSession(source.id, {
          title: 'compacted',
          messages: retained,
          modelConfig: { b: 2 },
        });
        expect(compacted).toMatchObject({ title: 'compacted', modelConfig: { b: 2 }, messageCount: 2 });
        expect(await store.listMessages(compacted.id)).toStrictEqual(retained);
        expect(await store.appendMessage(compacted.id, { role: 'user', content: 'x' })).toBe(3);
      });

      it('is atomic: a message that cannot be stored leaves no child behind', async () => {
        const source = await store.createSession({ id: 'source' });
        await store.appendMessages(source.id, conversation());
        const messages = [...conversation(), unserialisableMessage(), ...conversation()];
        await expect(store.forkSession(source.id, { messages })).rejects.toThrow(UsageError);
        expect((await store.listSessions()).map((session) => session.id)).toEqual(['source']);
        expect(await store.childSessions(source.id)).toEqual([]);
      });
    });

    describe('store-wide verdicts (SPEC §23.1)', () => {
      const routeKey = 'groq|api.groq.com|qwen/qwen3-32b';
      const base = { routeKey, provider: 'groq', host: 'api.groq.com', model: 'qwen/qwen3-32b' };

      it('merges fields (sorted union), keeps firstSeen and the first error text', async () => {
        const first = await store.recordVerdict({
          ...base,
          fields: ['reasoning_details'],
          errorText: "'messages.1' : property 'reasoning_details' is unsupported",
          at: 100,
        });
        expect(first).toEqual({
          ...base,
          fields: ['reasoning_details'],
          firstSeen: 100,
          updatedAt: 100,
          errorText: "'messages.1' : property 'reasoning_details' is unsupported",
        });
        const merged = await store.recordVerdict({
          ...base,
          fields: ['reasoning', 'reasoning_details'],
          errorText: 'second text',
          at: 200,
        });
        expect(merged).toEqual({
          ...base,
          fields: ['reasoning', 'reasoning_details'],
          firstSeen: 100,
          updatedAt: 200,
          errorText: "'messages.1' : property 'reasoning_details' is unsupported",
        });
        expect(await store.getVerdict(routeKey)).toEqual(merged);
        expect(await store.getVerdict('nobody|x|y')).toBeNull();
      });

      it('lists sorted by route key and forgets one or all', async () => {
        await store.recordVerdict({
          routeKey: 'b|h|m',
          provider: 'b',
          host: 'h',
          model: 'm',
          fields: ['reasoning'],
          errorText: 'e',
        });
        await store.recordVerdict({
          routeKey: 'a|h|m',
          provider: 'a',
          host: 'h',
          model: 'm',
          fields: ['reasoning_content'],
          errorText: 'e',
        });
        await store.recordVerdict({
          routeKey: 'c|h|m',
          provider: 'c',
          host: 'h',
          model: 'm',
          fields: ['reasoning'],
          errorText: 'e',
        });
        const listed = await store.listVerdicts();
        expect(listed.map((verdict) => verdict.routeKey)).toEqual(['a|h|m', 'b|h|m', 'c|h|m']);
        expect(listed[0]?.firstSeen).toBeGreaterThan(START);
        expect(await store.forgetVerdicts('b|h|m')).toBe(1);
        expect(await store.forgetVerdicts('b|h|m')).toBe(0);
        expect(await store.forgetVerdicts('all')).toBe(2);
        expect(await store.listVerdicts()).toEqual([]);
      });
    });

    describe('request log (SPEC §23.3)', () => {
      it('records requests with their decisions and lists them per session in order', async () => {
        const session = await store.createSession();
        const other = await store.createSession();
        const decisions = [
          { messageIndex: 3, carrier: 'reasoning_details', action: 'dropped', reason: 'learned verdict' },
        ];
        /** A request of `session` on the OpenRouter route. */
        const openRouterRequest = (at: number, status: number, sent: typeof decisions) => ({
          sessionId: session.id,
          at,
          api: 'chat_completions' as const,
          routeKey: 'openrouter|openrouter.ai|m',
          status,
          decisions: sent,
        });
        await store.recordRequest(openRouterRequest(10, 400, decisions));
        await store.recordRequest({
          sessionId: other.id,
          at: 11,
          api: 'gemini',
          routeKey: 'gemini|g|m',
          status: 200,
          decisions: [],
        });
        await store.recordRequest(openRouterRequest(12, 0, []));
        const listed = await store.listRequests(session.id);
        expect(listed.map(({ id: _id, ...rest }) => rest)).toEqual([
          openRouterRequest(10, 400, decisions),
          openRouterRequest(12, 0, []),
        ]);
        expect((listed[0]?.id ?? 0) < (listed[1]?.id ?? 0)).toBe(true);
      });
    });

    describe('session lease (SPEC §23.6: one writer per session across processes)', () => {
      it('takes a free lease, reads it back, and refuses a second live claimant naming the holder', async () => {
        const session = await store.createSession({ id: 'leased' });
        const held = await store.acquireLease(session.id, claim('lease-1'));
        expect(held).toMatchObject({
          sessionId: 'leased',
          leaseId: 'lease-1',
          owner: 'hermes test',
          pid: 4242,
          host: 'host-a',
        });
        expect(held.expiresAt - held.acquiredAt).toBe(60_000);
        expect(held.heartbeatAt).toBe(held.acquiredAt);
        expect(await store.readLease(session.id)).toEqual(held);
        const refused = store.acquireLease(session.id, claim('lease-2', { pid: 7, host: 'host-b' }));
        await expect(refused).rejects.toThrow(SessionBusyError);
        await expect(refused).rejects.toThrow(
          /^session busy in pid 4242 since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(hermes test on host-a\)/,
        );
        const error = (await refused.catch((caught: unknown) => caught)) as SessionBusyError;
        expect(error.holder).toEqual(held);
        expect(error.exitCode).toBe(3);
        // The claimant's own lease id re-acquires (a retried acquire after a lost reply).
        expect((await store.acquireLease(session.id, claim('lease-1'))).leaseId).toBe('lease-1');
      });

      it('renews only for the holder, and release frees the session for the next claimant', async () => {
        const session = await store.createSession();
        const held = await store.acquireLease(session.id, claim('lease-1', { ttlMs: 1_000 }));
        const renewed = await store.renewLease(session.id, 'lease-1', 5_000);
        expect(renewed?.heartbeatAt).toBeGreaterThan(held.heartbeatAt);
        expect((renewed?.expiresAt ?? 0) - (renewed?.heartbeatAt ?? 0)).toBe(5_000);
        expect(renewed?.acquiredAt).toBe(held.acquiredAt);
        expect(await store.renewLease(session.id, 'someone-else', 5_000)).toBeNull();
        expect(await store.releaseLease(session.id, 'someone-else')).toBe(false);
        expect(await store.releaseLease(session.id, 'lease-1')).toBe(true);
        expect(await store.readLease(session.id)).toBeNull();
        expect(await store.renewLease(session.id, 'lease-1', 5_000)).toBeNull();
        expect((await store.acquireLease(session.id, claim('lease-2'))).leaseId).toBe('lease-2');
      });

      it('takes over an expired lease; the old holder can then neither renew nor release it', async () => {
        const session = await store.createSession();
        await store.acquireLease(session.id, claim('stalled', { ttlMs: 1 }));
        const taken = await store.acquireLease(session.id, claim('next'));
        expect(taken.leaseId).toBe('next');
        expect(await store.renewLease(session.id, 'stalled', 60_000)).toBeNull();
        expect(await store.releaseLease(session.id, 'stalled')).toBe(false);
        expect((await store.readLease(session.id))?.leaseId).toBe('next');
      });

      it('takes over at once from a holder that is gone, by default a dead pid on this host', async () => {
        const session = await store.createSession();
        await store.acquireLease(session.id, claim('dead', { pid: deadPid(), host: hostname() }));
        const { holderGone: _ignored, ...defaultClaim } = claim('alive');
        expect((await store.acquireLease(session.id, defaultClaim)).leaseId).toBe('alive');
        // The same pid on another host cannot be checked from here: it holds until expiry.
        const other = await store.createSession();
        await store.acquireLease(other.id, claim('remote', { pid: deadPid(), host: 'another-host' }));
        await expect(store.acquireLease(other.id, defaultClaim)).rejects.toThrow(SessionBusyError);
        // A live pid on this host (this very process) holds too.
        const third = await store.createSession();
        await store.acquireLease(third.id, claim('mine', { pid: process.pid, host: hostname() }));
        await expect(store.acquireLease(third.id, defaultClaim)).rejects.toThrow(SessionBusyError);
      });

      it('leases are per session, refuse an unknown session, and go away with the session', async () => {
        const one = await store.createSession();
        const two = await store.createSession();
        await store.acquireLease(one.id, claim('a'));
        expect((await store.acquireLease(two.id, claim('b'))).leaseId).toBe('b');
        await expect(store.acquireLease('20200101-000000-nosuch', claim('c'))).rejects.toThrow(
          'no session "20200101-000000-nosuch" (see hermes sessions list)',
        );
        expect(await store.deleteSession(one.id)).toBe(true);
        expect(await store.readLease(one.id)).toBeNull();
        expect(await store.readLease('20200101-000000-nosuch')).toBeNull();
      });
    });

    describe('describe (hermes doctor)', () => {
      it('names its kind and a location without credentials', async () => {
        const description = await store.describe();
        expect(['sqlite', 'postgres', 'memory']).toContain(description.kind);
        expect(description.location).not.toMatch(/:[^:@/]+@/);
        if (description.kind !== 'memory') expect(description.schemaVersion).toBeGreaterThan(0);
      });
    });

    describe('unknown session ids are usage errors', () => {
      const missing = '20200101-000000-nosuch';
      const writes: Array<[string, (store: SessionStore) => Promise<unknown>]> = [
        ['appendMessage', (target) => target.appendMessage(missing, { role: 'user', content: 'x' })],
        ['appendMessages', (target) => target.appendMessages(missing, [{ role: 'user', content: 'x' }])],
        ['patchModelConfig', (target) => target.patchModelConfig(missing, { a: 1 })],
        ['forkSession', (target) => target.forkSession(missing)],
        ['updateSession', (target) => target.updateSession(missing, { title: 't' })],
        [
          'recordRequest',
          (target) =>
            target.recordRequest({ sessionId: missing, at: 1, api: 'a', routeKey: 'k', status: 1, decisions: [] }),
        ],
        ['createSession with a missing parent', (target) => target.createSession({ parentSessionId: missing })],
      ];
      for (const [label, write] of writes) {
        it(`${label} names the session and the command to list them`, async () => {
          const failure = write(store);
          await expect(failure).rejects.toThrow(UsageError);
          await expect(failure).rejects.toThrow(`no session "${missing}" (see hermes sessions list)`);
          expect(await store.listSessions()).toEqual([]);
        });
      }

      it('reads of an unknown id return empty results', async () => {
        expect(await store.listMessages(missing)).toEqual([]);
        expect(await store.childSessions(missing)).toEqual([]);
        expect(await store.listRequests(missing)).toEqual([]);
        expect(await store.deleteSession(missing)).toBe(false);
      });
    });
  });
}
