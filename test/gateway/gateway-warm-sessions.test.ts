import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startChatEmulator } from '../../src/emulators/chat-completions/chat-emulator.js';
import type { RunningChatEmulator } from '../../src/emulators/chat-completions/chat-emulator-types.js';
import { createGatewayApp } from '../../src/gateway/gateway-app.js';
import type { GatewayOptions } from '../../src/gateway/gateway-types.js';
import { silentLogger } from '../../src/logging/logger.js';
import { openSqliteSessionStore } from '../../src/storage/sqlite-session-store.js';
import type { SessionStore } from '../../src/storage/session-store.js';

// The gateway keeps served sessions' histories in memory (runtime-warm-history.ts). These cases
// check that a warm turn sends exactly what a turn that reads the session from state.db sends,
// and that writes from elsewhere (another process, /undo) are never hidden by the warm copy.

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(extra: Partial<GatewayOptions> = {}) {
  const directory = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-warm-')));
  writeFileSync(join(directory, 'notes.txt'), 'alpha beta\n');
  const dbPath = join(directory, 'state.db');
  const emulator: RunningChatEmulator = await startChatEmulator({ persona: 'deepseek' });
  const store = openSqliteSessionStore(dbPath);
  cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
  cleanups.push(() => emulator.close());
  cleanups.push(() => store.close());
  const sessionReads = { count: 0 };
  const counted: SessionStore = {
    ...store,
    getSession: (id) => {
      sessionReads.count += 1;
      return store.getSession(id);
    },
  };
  const app = createGatewayApp({
    store: counted,
    route: {
      route: { api: 'chat_completions', provider: 'deepseek', model: 'deepseek-v4-flash', baseUrl: emulator.baseUrl },
      apiKey: 'sk-test-provider',
    },
    workspace: directory,
    yolo: false,
    logger: silentLogger(),
    ...extra,
  });
  const post = (text: string, sessionId?: string) =>
    app.request('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(sessionId ? { 'X-Hermes-Session-Id': sessionId } : {}) },
      body: JSON.stringify({ messages: [{ role: 'user', content: text }] }),
    });
  const turn = async (text: string, sessionId?: string): Promise<string> => {
    const response = await post(text, sessionId);
    expect(response.status).toBe(200);
    await response.json();
    return response.headers.get('X-Hermes-Session-Id') as string;
  };
  /** Another writer on the same state.db, its clock a second ahead so its writes never share our millisecond. */
  const otherWriter = (): SessionStore => {
    const other = openSqliteSessionStore(dbPath, { now: () => Date.now() + 1000 });
    cleanups.push(() => other.close());
    return other;
  };
  return { emulator, turn, post, otherWriter, sessionReads };
}

/** The `messages` each chat-completions request sent, as the exact JSON text. */
function sentMessages(emulator: RunningChatEmulator): string[] {
  return emulator.requests.map((request) =>
    JSON.stringify((JSON.parse(request.raw) as { messages: unknown }).messages),
  );
}

describe('gateway warm sessions', () => {
  it('sends the same bytes as a gateway that reads every session from state.db', async () => {
    const script = ['hello there', 'read the file notes.txt', 'and again: read the file notes.txt', 'thanks'];
    const run = async (extra: Partial<GatewayOptions>) => {
      const { emulator, turn } = await setUp(extra);
      let sessionId: string | undefined;
      for (const text of script) sessionId = await turn(text, sessionId);
      return emulator.requests.map((request) => request.raw);
    };
    const warm = await run({});
    const cold = await run({ warmSessions: false });
    expect(warm.length).toBeGreaterThan(script.length);
    expect(warm).toEqual(cold);
  });

  it('sees turns another process stored and an /undo made elsewhere', async () => {
    const { emulator, turn, otherWriter } = await setUp();
    const sessionId = await turn('first question');
    await turn('second question', sessionId);
    const other = otherWriter();
    expect(await other.undoLastExchange(sessionId)).toBe(2);
    await turn('third question', sessionId);
    const afterUndo = sentMessages(emulator).at(-1) as string;
    expect(afterUndo).toContain('first question');
    expect(afterUndo).not.toContain('second question');
    await other.appendMessages(sessionId, [
      { role: 'user', content: 'asked on another gateway', timestamp: 1 },
      { role: 'assistant', content: 'answered on another gateway', timestamp: 2 },
    ]);
    await turn('fourth question', sessionId);
    const afterOther = sentMessages(emulator).at(-1) as string;
    expect(afterOther).toContain('answered on another gateway');
    expect(afterOther.indexOf('third question')).toBeLessThan(afterOther.indexOf('asked on another gateway'));
  });

  it('starts a turn on a warm session without reading its row, and writes against the version it kept', async () => {
    const { emulator, turn, otherWriter, sessionReads } = await setUp();
    const sessionId = await turn('first question'); // a new session: its fields are written
    await turn('second question', sessionId); // read once: the fields changed in the last turn
    sessionReads.count = 0;
    await turn('third question', sessionId);
    await turn('fourth question', sessionId);
    expect(sessionReads.count).toBe(0);
    // A write elsewhere moves the version on: the kept record fails the write and is read again.
    await otherWriter().updateSession(sessionId, { title: 'renamed elsewhere' });
    await turn('fifth question', sessionId);
    expect(sessionReads.count).toBeGreaterThan(0);
    expect(sentMessages(emulator).at(-1)).toContain('fourth question');
  });

  it('answers for a warm session deleted elsewhere as a gateway that reads every session does', async () => {
    const statuses: number[] = [];
    for (const extra of [{}, { warmSessions: false as const }]) {
      const { turn, post, otherWriter } = await setUp(extra);
      const sessionId = await turn('first question');
      await turn('second question', sessionId);
      await otherWriter().deleteSession(sessionId);
      const response = await post('third question', sessionId);
      statuses.push(response.status);
      await response.text();
    }
    expect(statuses[0]).toBe(statuses[1]);
    expect(statuses[0]).not.toBe(200);
  });
});
