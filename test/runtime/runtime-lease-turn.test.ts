import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import type { Route } from '../../src/core/route.js';
import pino from 'pino';
import { runAgentTurn, type AgentTurnOptions } from '../../src/runtime/agent-turn.js';
import { repairToolPairing } from '../../src/runtime/runtime-history-repair.js';
import { INTERRUPTED_TOOL_RESULT } from '../../src/runtime/runtime-history.js';
import { createMemorySessionStore } from '../../src/storage/memory-session-store.js';
import { SessionBusyError, SessionLeaseLostError } from '../../src/storage/session-lease.js';
import type { SessionStore } from '../../src/storage/session-store.js';
import { holdSessionLease } from '../../src/storage/session-lease-hold.js';
import type { Transport } from '../../src/transports/shared/transport.js';
import { makeWorkspace, transportAnswering, turnOptions } from './runtime-test-helpers.js';

/**
 * The runtime side of the session lease (SPEC §23.6) and of "store the answer first": a turn
 * runs under the lease, repairs dangling tool calls only under it, sends a valid request for a
 * damaged session without rewriting it, and keeps its answer when a diagnostic write fails.
 */

const route: Route = { api: 'chat_completions', provider: 'acme', model: 'm1', baseUrl: 'http://x/v1' };

async function setup(store: SessionStore = createMemorySessionStore()) {
  const session = await store.createSession({});
  const workspace = makeWorkspace('hermes-lease-turn-');
  const warnings: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => warnings.push(line) });
  const options = (transport: Transport): AgentTurnOptions =>
    turnOptions({ store, sessionId: session.id, route, workspace, transport }, { logger });
  return { store, session, options, warnings };
}

const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'read_file', arguments: '{}' } });

describe('repairToolPairing', () => {
  it('returns a valid history unchanged, including call ids that repeat across turns', () => {
    const history: Message[] = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: null, tool_calls: [call('call_0')] },
      { role: 'tool', tool_call_id: 'call_0', content: 'one' },
      { role: 'assistant', content: null, tool_calls: [call('call_0'), call('call_1')] },
      { role: 'tool', tool_call_id: 'call_0', content: 'two' },
      { role: 'tool', tool_call_id: 'call_1', content: 'three' },
      { role: 'assistant', content: 'a' },
    ];
    expect(repairToolPairing(history)).toStrictEqual(history);
  });

  it('puts interleaved results after their call, drops duplicates and orphans, answers the unanswered', () => {
    const history: Message[] = [
      { role: 'user', content: 'u1' },
      { role: 'user', content: 'u2' },
      { role: 'assistant', content: null, tool_calls: [call('a')] },
      { role: 'assistant', content: null, tool_calls: [call('b'), call('c')] },
      { role: 'tool', tool_call_id: 'b', content: 'B' },
      { role: 'tool', tool_call_id: 'a', content: 'A' },
      { role: 'tool', tool_call_id: 'a', content: 'A again' },
      { role: 'tool', tool_call_id: 'nobody', content: 'orphan' },
      { role: 'assistant', content: 'x' },
      { role: 'assistant', content: 'y' },
    ];
    const repaired = repairToolPairing(history);
    expect(repaired.map((message) => (message.role === 'tool' ? `t:${message.content}` : message.role))).toEqual([
      'user',
      'user',
      'assistant',
      't:A',
      'assistant',
      't:B',
      `t:${INTERRUPTED_TOOL_RESULT}`,
      'assistant',
      'assistant',
    ]);
    expect(history).toHaveLength(10);
  });
});

describe('a turn under the session lease', () => {
  it('fails fast, storing nothing, while another process holds the session', async () => {
    const { store, session, options } = await setup();
    await store.acquireLease(session.id, {
      leaseId: 'other',
      owner: 'hermes gateway',
      pid: 4242,
      host: 'elsewhere',
      ttlMs: 60_000,
    });
    const { transport, requests } = transportAnswering([]);
    const events: string[] = [];
    const turn = runAgentTurn('hello', { ...options(transport), onEvent: (event) => events.push(event.type) });
    await expect(turn).rejects.toThrow(SessionBusyError);
    await expect(turn).rejects.toThrow(/^session busy in pid 4242 since .*\(hermes gateway on elsewhere\)/);
    expect(await store.listMessages(session.id)).toEqual([]);
    expect(requests).toEqual([]);
    expect(events).not.toContain('user-stored');
  });

  it('holds the lease while it runs and releases it at the end; dangling calls are answered under it', async () => {
    const { store, session, options } = await setup();
    await store.appendMessages(session.id, [
      { role: 'user', content: 'earlier' },
      { role: 'assistant', content: null, tool_calls: [call('dangling')] },
    ]);
    let leaseDuringRequest: unknown = 'unread';
    const { transport } = transportAnswering([], async () => {
      leaseDuringRequest = await store.readLease(session.id);
    });
    const result = await runAgentTurn('hello', { ...options(transport), leaseOwner: 'hermes test' });
    expect(result.answer).toBe('done');
    expect(leaseDuringRequest).toMatchObject({ owner: 'hermes test', pid: process.pid });
    expect(await store.readLease(session.id)).toBeNull();
    const roles = (await store.listMessages(session.id)).map((message) => message.role);
    expect(roles).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
  });

  it('stops writing once it stalled past its expiry and another process took the session', async () => {
    let time = 1_000_000;
    const { store, session, options } = await setup(createMemorySessionStore({ now: () => time }));
    const lease = await holdSessionLease(store, session.id, {
      owner: 'hermes',
      now: () => time,
      heartbeatMs: 3_600_000,
    });
    const { transport } = transportAnswering([{ role: 'assistant', content: 'late answer' }], async () => {
      // This process stalls for a minute; another one finds the lease expired and takes it.
      time += 60_000;
      await store.acquireLease(session.id, { leaseId: 'next', owner: 'hermes', pid: 1, host: 'h', ttlMs: 60_000 });
    });
    await expect(runAgentTurn('hello', { ...options(transport), lease })).rejects.toThrow(SessionLeaseLostError);
    expect((await store.listMessages(session.id)).map((message) => message.role)).toEqual(['user']);
    expect((await store.readLease(session.id))?.leaseId).toBe('next');
    await lease.release();
    expect((await store.readLease(session.id))?.leaseId).toBe('next');
  });
});

describe('the first write holds only on the history that was read', () => {
  it('a message another process stored between the read and the write is read again and sent', async () => {
    const memory = createMemorySessionStore();
    let interleaved = false;
    // Another writer gets in after the turn read the session, before its first write.
    const store: SessionStore = {
      ...memory,
      writeTurn: async (sessionId, write) => {
        if (!interleaved) {
          interleaved = true;
          await memory.appendMessage(sessionId, { role: 'user', content: 'from elsewhere' });
        }
        return memory.writeTurn(sessionId, write);
      },
    };
    const { session, options } = await setup(store);
    await memory.appendMessages(session.id, [
      { role: 'user', content: 'earlier' },
      { role: 'assistant', content: 'earlier answer' },
    ]);
    const { transport, requests } = transportAnswering([]);
    const result = await runAgentTurn('hello', options(transport));
    expect(result.answer).toBe('done');
    const contents = (await store.listMessages(session.id)).map((message) => message.content);
    expect(contents).toEqual(['earlier', 'earlier answer', 'from elsewhere', 'hello', 'done']);
    expect(requests[0]?.history.map((message) => message.content)).toEqual([
      'earlier',
      'earlier answer',
      'from elsewhere',
      'hello',
    ]);
    expect(await store.readLease(session.id)).toBeNull();
  });
});

describe('store the answer first', () => {
  it('a failing request record is logged and the answer is kept', async () => {
    const memory = createMemorySessionStore();
    const failing = async () => {
      throw new Error('disk I/O error while writing the request log');
    };
    // The answer and its record go in one write: when that write fails over the record, the
    // answer is stored alone and the record's own write fails again.
    const store: SessionStore = {
      ...memory,
      writeTurn: async (sessionId, write) => (write.requests?.length ? failing() : memory.writeTurn(sessionId, write)),
      recordRequest: failing,
    };
    const { session, options, warnings } = await setup(store);
    const { transport } = transportAnswering([{ role: 'assistant', content: 'the answer', reasoning_content: 'r' }]);
    const result = await runAgentTurn('hello', options(transport));
    expect(result.answer).toBe('the answer');
    const messages = await store.listMessages(session.id);
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: 'the answer', reasoning_content: 'r' });
    expect(warnings.join('')).toContain('could not record the request (the turn goes on)');
  });
});

describe('turn keys: a retried turn is answered or continued, never stored twice', () => {
  it('a finished keyed turn is answered from the store without a request', async () => {
    const { store, session, options } = await setup();
    const first = transportAnswering([
      { role: 'assistant', content: null, tool_calls: [call('c1')], reasoning_content: 'plan' },
      { role: 'assistant', content: 'the answer', reasoning_content: 'done' },
    ]);
    const answered = await runAgentTurn('hello', { ...options(first.transport), turnKey: 'k-1' });
    const stored = await store.listMessages(session.id);
    const retry = transportAnswering([]);
    const again = await runAgentTurn('hello', { ...options(retry.transport), turnKey: 'k-1' });
    expect(retry.requests).toEqual([]);
    expect(await store.listMessages(session.id)).toStrictEqual(stored);
    expect(again).toMatchObject({ answer: 'the answer', reasoning: 'done', iterations: 2 });
    expect(again.toolCalls).toEqual(answered.toolCalls);
    // A new key is a new turn.
    const next = transportAnswering([]);
    await runAgentTurn('hello', { ...options(next.transport), turnKey: 'k-2' });
    expect(next.requests).toHaveLength(1);
    expect((await store.listMessages(session.id)).filter((message) => message.role === 'user')).toHaveLength(2);
  });

  it('an unfinished keyed turn goes on from what was stored, without a second user message', async () => {
    const { store, session, options } = await setup();
    await store.appendMessage(session.id, { role: 'user', content: 'hello', _turn_key: 'k-1' } as Message);
    const { transport, requests } = transportAnswering([{ role: 'assistant', content: 'late answer' }]);
    const result = await runAgentTurn('hello', { ...options(transport), turnKey: 'k-1' });
    expect(result.answer).toBe('late answer');
    expect(requests).toHaveLength(1);
    expect((await store.listMessages(session.id)).map((message) => message.role)).toEqual(['user', 'assistant']);
  });
});
