import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { postChatCompletion, useE2e } from '../support/e2e.js';
import type { Message } from '../../src/core/message.js';
import type { Tool } from '../../src/tools/tool-types.js';
import { readFileTool } from '../../src/tools/tool-files.js';
import {
  boundedAll,
  makeGatewaySandbox,
  startDeepseekApp,
  startPersona,
  startTestGateway,
  storedMessages,
  type testApp,
} from './gateway-test-helpers.js';

/**
 * SPEC §23.6: turns on one session are serialized (they wait in a queue; past
 * `maxWaitingTurns` a request gets 409), turns on different sessions run concurrently, and no
 * turn is lost or interleaved, checked from state.db.
 */

const e2e = useE2e();

/** A `read_file` that blocks until the test releases it, counting how many turns are inside at once. */
class GatedReadFile {
  inside = 0;
  maxInside = 0;
  entered = 0;
  /** The abort signal of the latest turn that entered (the gateway aborts it when a streaming client leaves). */
  lastSignal: AbortSignal | undefined;
  private releases: (() => void)[] = [];
  private watchers: { kind: 'inside' | 'entered'; count: number; resolve: () => void }[] = [];

  readonly tool: Tool = {
    ...readFileTool,
    run: async (args, context) => {
      this.inside += 1;
      this.entered += 1;
      this.lastSignal = context.signal;
      this.maxInside = Math.max(this.maxInside, this.inside);
      this.watchers = this.watchers.filter((watcher) => {
        if ((watcher.kind === 'inside' ? this.inside : this.entered) < watcher.count) return true;
        watcher.resolve();
        return false;
      });
      await new Promise<void>((resolve) => this.releases.push(resolve));
      this.inside -= 1;
      return readFileTool.run(args, context);
    },
  };

  /** Resolves once `count` turns are inside the tool at the same time. */
  whenInside(count: number): Promise<void> {
    if (this.inside >= count) return Promise.resolve();
    return new Promise((resolve) => this.watchers.push({ kind: 'inside', count, resolve }));
  }

  /** Resolves once `count` turns have entered the tool in total. */
  whenEntered(count: number): Promise<void> {
    if (this.entered >= count) return Promise.resolve();
    return new Promise((resolve) => this.watchers.push({ kind: 'entered', count, resolve }));
  }

  /** Lets every turn currently inside go on. */
  releaseAll(): void {
    const releases = this.releases;
    this.releases = [];
    releases.forEach((release) => release());
  }
}

async function setup(extra: Parameters<typeof testApp>[3] = {}) {
  const { emulator, sandbox, store, app } = await startDeepseekApp(e2e.defer, extra);
  const ask = async (text: string, sessionId?: string) => {
    const response = await app.request('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(sessionId ? { 'x-hermes-session-id': sessionId } : {}) },
      body: JSON.stringify({ model: 'any', messages: [{ role: 'user', content: text }] }),
    });
    return {
      status: response.status,
      sessionId: response.headers.get('x-hermes-session-id') ?? '',
      body: (await response.json()) as unknown,
    };
  };
  return { emulator, sandbox, store, app, ask };
}

/** Pairs each stored user message with the assistant answer that must follow it (a text turn: exactly two messages). */
function turnsOf(messages: readonly Message[]): { user: string; answer: string }[] {
  const turns: { user: string; answer: string }[] = [];
  messages.forEach((message, index) => {
    if (message.role !== 'user') return;
    const next = messages[index + 1];
    turns.push({ user: String(message.content), answer: next?.role === 'assistant' ? (next.content ?? '') : '(none)' });
  });
  return turns;
}

describe('gateway turn serialization (SPEC §23.6)', () => {
  it('20 sessions × 5 turns in parallel: every session holds exactly its 5 turns, in order, none interleaved', async () => {
    const { ask, emulator, sandbox } = await setup();
    const sessions = Array.from({ length: 20 }, (_, index) => index);
    const sessionIds = await boundedAll(sessions, 20, async (session) => {
      let sessionId: string | undefined;
      for (let turn = 1; turn <= 5; turn += 1) {
        const answer = await ask(`session ${session} turn ${turn}`, sessionId);
        expect(answer.status).toBe(200);
        sessionId ??= answer.sessionId;
        expect(answer.sessionId).toBe(sessionId);
      }
      return sessionId ?? '';
    });
    expect(new Set(sessionIds).size).toBe(20);
    expect(emulator.requests.length).toBe(100);
    for (const [session, sessionId] of sessionIds.entries()) {
      const messages = await storedMessages(sandbox.dbPath, sessionId);
      expect(messages.map((message) => message.role)).toEqual(
        Array.from({ length: 5 }, () => ['user', 'assistant']).flat(),
      );
      const expected = [1, 2, 3, 4, 5].map((turn) => `session ${session} turn ${turn}`);
      expect(turnsOf(messages).map((turn) => turn.user)).toEqual(expected);
      // Each answer echoes its own question (the emulator's "You said: ..."), so a crossed wire shows here.
      for (const turn of turnsOf(messages)) expect(turn.answer).toContain(`You said: ${turn.user}\n`);
    }
  });

  it('same session: concurrent requests wait in a queue and run one at a time, each answer right after its question', async () => {
    const gate = new GatedReadFile();
    const { ask, sandbox } = await setup({ turn: { tools: [gate.tool] } });
    const first = await ask('hello');
    const sessionId = first.sessionId;
    const pending = [1, 2, 3].map((index) => ask(`read the file notes.txt (request ${index})`, sessionId));
    // Release turns one by one: each time exactly one turn is inside the tool.
    for (let index = 0; index < 3; index += 1) {
      await gate.whenEntered(index + 1);
      expect(gate.inside).toBe(1);
      gate.releaseAll();
    }
    const answers = await Promise.all(pending);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(gate.maxInside).toBe(1);
    const messages = await storedMessages(sandbox.dbPath, sessionId);
    // Turn blocks never interleave: user, assistant(tool call), tool, assistant(answer), repeated.
    const roles = messages.slice(2).map((message) => message.role);
    expect(roles).toEqual(Array.from({ length: 3 }, () => ['user', 'assistant', 'tool', 'assistant']).flat());
    const users = messages.filter((message) => message.role === 'user').map((message) => String(message.content));
    expect(users.slice(1).sort()).toEqual([1, 2, 3].map((index) => `read the file notes.txt (request ${index})`));
  });

  it('same session past maxWaitingTurns: the extra request gets 409 with a clear message; the queued one still runs', async () => {
    const gate = new GatedReadFile();
    const { ask } = await setup({ turn: { tools: [gate.tool] }, maxWaitingTurns: 1 });
    const first = await ask('hello');
    const running = ask('read the file notes.txt', first.sessionId);
    await gate.whenInside(1);
    const second = ask('read the file notes.txt again', first.sessionId);
    const third = ask('read the file notes.txt once more', first.sessionId);
    // With one turn running and one allowed to wait, whichever request comes second is refused at once.
    const refused = await Promise.race([second, third]);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error: {
        message: `session "${first.sessionId}" already has 2 turns running or queued; wait for an answer before sending more to this session`,
        type: 'conflict_error',
        param: null,
        code: 'session_busy',
      },
    });
    gate.releaseAll();
    await gate.whenEntered(2);
    gate.releaseAll();
    const statuses = (await Promise.all([running, second, third])).map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, 200, 409]);
  });

  it('different sessions run concurrently: two turns are inside their tools at the same time', async () => {
    const gate = new GatedReadFile();
    const { ask } = await setup({ turn: { tools: [gate.tool] } });
    const a = ask('read the file notes.txt');
    const b = ask('read the file notes.txt');
    await gate.whenInside(2);
    gate.releaseAll();
    const answers = await Promise.all([a, b]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(answers[0]?.sessionId).not.toBe(answers[1]?.sessionId);
    expect(gate.maxInside).toBe(2);
  });
});

describe('a streaming client that goes away', () => {
  it('interrupts its turn, frees the session for the next turn, and takes the abandoned turn back', async () => {
    const gate = new GatedReadFile();
    const { emulator, route } = await startPersona('deepseek');
    const sandbox = makeGatewaySandbox();
    const gateway = await startTestGateway(sandbox.dbPath, route, sandbox.workspace, { turn: { tools: [gate.tool] } });
    e2e.defer(async () => {
      await gateway.close();
      await emulator.close();
    });
    const first = await postChatCompletion(gateway.url, { messages: [{ role: 'user', content: 'hello' }] });
    expect(first.status).toBe(200);
    const sessionId = first.headers.get('x-hermes-session-id') ?? '';
    await first.text();
    // A raw socket, destroyed like a browser tab closing (undici keeps an aborted socket around for seconds).
    const client = request(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hermes-session-id': sessionId },
    });
    const headers = new Promise<Record<string, unknown>>((resolve) =>
      client.once('response', (response) => resolve(response.headers)),
    );
    client.end(JSON.stringify({ stream: true, messages: [{ role: 'user', content: 'read the file notes.txt' }] }));
    expect((await headers)['x-hermes-session-id']).toBe(sessionId);
    await gate.whenEntered(1);
    client.destroy();
    // Wait until the gateway has noticed and aborted the turn, then let the tool return.
    const signal = gate.lastSignal;
    if (!signal) throw new Error('the gateway passed no abort signal to the tool');
    if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    gate.releaseAll();
    // The next turn on the same session is served (the first one released the session).
    const next = await postChatCompletion(
      gateway.url,
      { messages: [{ role: 'user', content: 'hello again' }] },
      { 'x-hermes-session-id': sessionId },
    );
    expect(next.status).toBe(200);
    // The abandoned turn (its question, tool call and result) is taken back, kept only as undone;
    // the next turn follows what the client holds.
    const messages = await gateway.store.listMessages(sessionId);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(messages[3]?.content).toContain('You said: hello again');
    const stored = await gateway.store.listMessages(sessionId, { includeUndone: true });
    expect(stored.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'tool',
      'user',
      'assistant',
    ]);
  });
});
