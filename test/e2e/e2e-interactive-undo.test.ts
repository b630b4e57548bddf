import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { isUndone } from '../../src/storage/session-undo.js';
import { openSqliteSessionStore } from '../../src/storage/sqlite-session-store.js';
import { stateDbPath } from '../../src/storage/store-paths.js';
import { parseJson, runHermes, showSession, useE2e } from '../support/e2e.js';

const e2e = useE2e();

/** The user texts of one recorded chat-completions request. */
function userTexts(body: unknown): unknown[] {
  return (body as { messages: Message[] }).messages.filter((m) => m.role === 'user').map((m) => m.content);
}

describe('interactive /undo (piped input)', () => {
  it('takes the last exchange out of later requests, keeps it stored and marked, and --resume does not send it', async () => {
    const { emulator, sandbox, route } = await e2e.chatRoute({ persona: 'deepseek' }, 'deepseek', 'deepseek-v4-flash');
    const lines = ['/undo', 'first question', 'second question', '/undo', 'third question', '/help', '/exit'];
    const run = await runHermes(['chat', ...route], sandbox, {}, lines.map((line) => `${line}\n`).join(''));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('nothing to undo\n');
    expect(run.stdout).toContain(
      'undid the last exchange (2 messages); it is no longer sent. Files its tools changed stay changed on disk (undo does not revert them).',
    );
    expect(run.stdout).toMatch(/^ {2}\/undo +take back the last exchange/m);
    expect(run.stdout).toMatch(/files its tools changed stay changed on disk/);
    expect(emulator.requests.map((request) => userTexts(request.body))).toEqual([
      ['first question'],
      ['first question', 'second question'],
      ['first question', 'third question'],
    ]);
    const third = JSON.stringify(emulator.requests.at(-1)?.body);
    expect(third).not.toContain('second question');

    const sessionId = /resume with: hermes chat --resume (\S+)/.exec(run.stdout)?.[1] ?? '';
    const shown = await showSession(sandbox, sessionId);
    const undone = shown.messages.filter((message) => isUndone(message));
    expect(undone.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(undone[0]?.content).toBe('second question');
    expect(String(undone[1]?.content)).toContain('second question');
    expect(shown.messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    const plain = await runHermes(['sessions', 'show', sessionId], sandbox);
    expect(plain.stdout).toMatch(/^ {3}3 user {6}\(undone\) second question$/m);
    expect(plain.stdout).toContain('7 messages (2 undone)');

    // An export keeps the marks; replay preview of it sends what the next turn sends, without them.
    const exported = await runHermes(['sessions', 'export', sessionId], sandbox);
    expect(exported.stdout.match(/"_undone":true/g)).toHaveLength(2);
    const historyFile = join(sandbox.workspace, 'history.jsonl');
    writeFileSync(historyFile, exported.stdout);
    const preview = await runHermes(
      ['replay', 'preview', '--history', historyFile, ...route.slice(0, -2), '--json'],
      sandbox,
    );
    expect(preview.code).toBe(0);
    expect(userTexts(parseJson(preview))).toEqual(['first question', 'third question']);

    // Another live process holding the session's lease: /undo is refused in one error line.
    const store = openSqliteSessionStore(stateDbPath(sandbox.home));
    e2e.defer(() => store.close());
    const holder = { leaseId: 'other', owner: 'hermes gateway', pid: process.pid, host: hostname(), ttlMs: 60_000 };
    await store.acquireLease(sessionId, { ...holder, holderGone: () => false });
    const busy = await runHermes(['chat', ...route, '--resume', sessionId], sandbox, {}, '/undo\n/exit\n');
    expect(busy.stdout).toMatch(/error: session busy in pid \d+ since .* \(hermes gateway on /);
    expect((await store.listMessages(sessionId)).map((message) => message.content)).toContain('third question');
    await store.releaseLease(sessionId, 'other');

    const resumed = await runHermes(['chat', ...route, '--resume', sessionId, '-q', 'fourth question'], sandbox);
    expect(resumed.code).toBe(0);
    expect(userTexts(emulator.requests.at(-1)?.body)).toEqual(['first question', 'third question', 'fourth question']);
  });
});
