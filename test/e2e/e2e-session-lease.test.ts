import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { startGateway, type RunningGateway } from '../../src/gateway/gateway-serve.js';
import { silentLogger } from '../../src/logging/logger.js';
import { openSqliteSessionStore } from '../../src/storage/sqlite-session-store.js';
import { stateDbPath } from '../../src/storage/store-paths.js';
import { toolPairingProblem } from '../support/gated-provider.js';
import {
  chatJson,
  type CliRun,
  parseJson,
  postChatCompletion,
  routeArgs,
  runHermes,
  spawnHermes,
  storedMessages,
  useE2e,
} from '../support/e2e.js';

/**
 * SPEC §23.6 and the reliability issue's first item: one session, one writer, across processes.
 * A real `hermes` process is held inside its turn by a gated provider (no timing); a second
 * writer — another `hermes chat --resume`, or a gateway — fails fast with the busy line (CLI exit
 * code 3, gateway 409), and the stored session stays valid and resumes.
 */

const e2e = useE2e();

async function setup() {
  const emulator = await e2e.chat({ persona: 'deepseek' });
  const gated = await e2e.gated(emulator.baseUrl);
  const sandbox = e2e.sandbox();
  const route = routeArgs('deepseek', 'deepseek-v4-flash', gated.baseUrl);
  const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route]);
  return { emulator, gated, sandbox, route, sessionId: first.session_id };
}

/** Spawns a `hermes chat --resume` that the closed gate holds inside its turn; resolves with its run. */
function spawnHeldTurn(args: string[], sandbox: { home: string; workspace: string }) {
  const child = spawnHermes(args, sandbox);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<CliRun>((resolve) =>
    child.on('exit', (code) => resolve({ code: code ?? 1, stdout, stderr })),
  );
  return { pid: child.pid ?? 0, done };
}

const BUSY_LINE = (pid: number) => new RegExp(`^hermes: session busy in pid ${pid} since \\d{4}-\\d\\d-\\d\\d `);

describe('one session, one writer, across processes', () => {
  it('two concurrent chat --resume on one session: one completes, the other exits 3 with the busy line', async () => {
    const { gated, sandbox, route, sessionId } = await setup();
    const before = await storedMessages(sandbox.home, sessionId);
    gated.close();
    const holder = spawnHeldTurn(
      ['chat', '--resume', sessionId, '-q', 'read the file notes.txt', '--json', ...route],
      sandbox,
    );
    await gated.whenReceived(3); // the setup turn made two requests; the holder's first is the third
    const second = await runHermes(['chat', '--resume', sessionId, '-q', 'me too', ...route], sandbox);
    expect(second.code).toBe(3);
    expect(second.stderr).toMatch(BUSY_LINE(holder.pid));
    expect(second.stderr).toContain('(hermes chat on ');
    expect(second.stderr).not.toContain('keeps your message');
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
    gated.open();
    const first = await holder.done;
    expect(first.code).toBe(0);
    expect(parseJson<{ answer: string }>(first).answer).toContain('alpha beta');

    const after = await storedMessages(sandbox.home, sessionId);
    expect(after.slice(0, before.length)).toStrictEqual(before);
    // Only the holder's turn was added: user, tool call, tool result, answer.
    expect(after.slice(before.length).map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(toolPairingProblem(after as unknown as Record<string, unknown>[])).toBeNull();
    await chatJson(sandbox, ['--resume', sessionId, '-q', 'and now?', ...route]);
  });

  it('gateway and CLI on one session: whichever comes second is refused with the busy line, then both work', async () => {
    const { gated, sandbox, route, sessionId } = await setup();
    const store = openSqliteSessionStore(stateDbPath(sandbox.home));
    const gateway: RunningGateway = await startGateway({
      host: '127.0.0.1',
      port: 0,
      store,
      route: {
        route: { api: 'chat_completions', provider: 'deepseek', model: 'deepseek-v4-flash', baseUrl: gated.baseUrl },
        apiKey: 'k',
      },
      workspace: sandbox.workspace,
      yolo: false,
      logger: silentLogger(),
    });
    e2e.defer(async () => {
      await gateway.close();
      await store.close();
    });
    const send = (stream: boolean) =>
      postChatCompletion(
        gateway.url,
        { model: 'm', stream, messages: [{ role: 'user', content: 'read the file notes.txt' }] },
        { 'x-hermes-session-id': sessionId },
      );

    // The gateway holds the session: the CLI exits 3 naming the gateway's pid.
    gated.close();
    const gatewayTurn = send(false);
    await gated.whenReceived(3);
    const refused = await runHermes(['chat', '--resume', sessionId, '-q', 'me too', ...route], sandbox);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(BUSY_LINE(process.pid));
    expect(refused.stderr).toContain('(hermes gateway on ');
    gated.open();
    expect((await gatewayTurn).status).toBe(200);

    // The CLI holds the session: the gateway answers 409 with the busy line, streaming or not.
    gated.close();
    const received = gated.received;
    const holder = spawnHeldTurn(['chat', '--resume', sessionId, '-q', 'read the file notes.txt', ...route], sandbox);
    await gated.whenReceived(received + 1);
    for (const stream of [false, true]) {
      const response = await send(stream);
      expect(response.status).toBe(409);
      const body = (await response.json()) as { error: { message: string; code: string } };
      expect(body.error.code).toBe('session_busy');
      expect(body.error.message).toMatch(new RegExp(`^session busy in pid ${holder.pid} since `));
      expect(body.error.message).toContain('(hermes chat on ');
    }
    gated.open();
    expect((await holder.done).code).toBe(0);
    const after = await storedMessages(sandbox.home, sessionId);
    expect(toolPairingProblem(after as unknown as Record<string, unknown>[])).toBeNull();
    expect((await send(false)).status).toBe(200);
  });

  it('a session damaged by interleaved turns resumes with a valid request; stored rows stay untouched', async () => {
    const { emulator, sandbox, route, sessionId } = await setup();
    const call = (id: string) => ({
      id,
      type: 'function' as const,
      function: { name: 'read_file', arguments: '{"path":"notes.txt"}' },
    });
    // What two unleased writers left: u,u,aT,aT,t,t,a,a plus a duplicate and an orphan result.
    const damage: Message[] = [
      { role: 'user', content: 'first writer' },
      { role: 'user', content: 'second writer' },
      { role: 'assistant', content: null, tool_calls: [call('call_a')], reasoning_content: 'plan a' },
      { role: 'assistant', content: null, tool_calls: [call('call_b')], reasoning_content: 'plan b' },
      { role: 'tool', tool_call_id: 'call_b', content: 'result b' },
      { role: 'tool', tool_call_id: 'call_a', content: 'result a' },
      { role: 'tool', tool_call_id: 'call_a', content: 'result a again' },
      { role: 'tool', tool_call_id: 'call_gone', content: 'orphan' },
      { role: 'assistant', content: 'answer a', reasoning_content: 'done a' },
      { role: 'assistant', content: 'answer b', reasoning_content: 'done b' },
    ];
    const store = openSqliteSessionStore(stateDbPath(sandbox.home));
    await store.appendMessages(sessionId, damage);
    await store.close();
    const before = await storedMessages(sandbox.home, sessionId);

    const requestsBefore = emulator.requests.length;
    await chatJson(sandbox, ['--resume', sessionId, '-q', 'and now?', ...route]);
    const request = emulator.requests[requestsBefore];
    const sent = (request?.body as { messages: Record<string, unknown>[] }).messages;
    expect(toolPairingProblem(sent)).toBeNull();
    const tail = sent.slice(-9).map((message) => [message['role'], message['tool_call_id'] ?? message['content']]);
    expect(tail).toEqual([
      ['user', 'first writer'],
      ['user', 'second writer'],
      ['assistant', null],
      ['tool', 'call_a'],
      ['assistant', null],
      ['tool', 'call_b'],
      ['assistant', 'answer a'],
      ['assistant', 'answer b'],
      ['user', 'and now?'],
    ]);
    expect(sent.find((message) => message['tool_call_id'] === 'call_a')?.['content']).toBe('result a');
    const after = await storedMessages(sandbox.home, sessionId);
    expect(after.slice(0, before.length)).toStrictEqual(before);
  });

  it('a holder killed with SIGKILL is taken over at once by the next turn on this host', async () => {
    const { gated, sandbox, route, sessionId } = await setup();
    gated.close();
    const child = spawnHermes(['chat', '--resume', sessionId, '-q', 'read the file notes.txt', ...route], sandbox);
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    await gated.whenReceived(3);
    const store = openSqliteSessionStore(stateDbPath(sandbox.home));
    expect((await store.readLease(sessionId))?.pid).toBe(child.pid);
    await store.close();
    child.kill('SIGKILL');
    await exited;
    gated.open();
    await chatJson(sandbox, ['--resume', sessionId, '-q', 'again', ...route]);
    expect(
      toolPairingProblem((await storedMessages(sandbox.home, sessionId)) as unknown as Record<string, unknown>[]),
    ).toBeNull();
  });
});
