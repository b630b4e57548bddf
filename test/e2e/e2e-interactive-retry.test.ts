import { describe, expect, it } from 'vitest';
import { parseJson, routeArgs, runHermes, showSession, storedMessages, useE2e } from '../support/e2e.js';

const e2e = useE2e();

describe('interactive /retry, /tools, /usage, /new (piped input)', () => {
  it('/retry after a failed turn sends the message again without storing it twice', async () => {
    // Every attempt of the first turn fails (the transport tries a 503 three times).
    const faults = [1, 2, 3].map(() => ({ kind: 'status' as const, status: 503 }));
    const emulator = await e2e.chat({ persona: 'deepseek', faults });
    const sandbox = e2e.sandbox();
    const lines = ['hello there', '/retry', '/tools', '/usage', '/exit'];
    const run = await runHermes(
      ['chat', ...routeArgs('deepseek', 'deepseek-v4-flash', emulator.baseUrl)],
      sandbox,
      {},
      lines.map((line) => `${line}\n`).join(''),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('/retry sends the message again');
    expect(run.stdout).toContain('You said: hello there');
    expect(run.stdout).toMatch(/^edit_file +/m);
    expect(run.stdout).toMatch(/this run: 1 requests · in \d+ · out \d+ · reasoning \d+\n/);
    const sessionId = /resume with: hermes chat --resume (\S+)/.exec(run.stdout)?.[1] ?? '';
    const users = (await storedMessages(sandbox.home, sessionId)).filter((message) => message.role === 'user');
    expect(users.map((message) => message.content)).toEqual(['hello there']);
    const last = emulator.requests.at(-1)?.body as { messages: { role: string }[] };
    expect(last.messages.filter((message) => message.role === 'user')).toHaveLength(1);
  });

  it('/new starts a session stored like a first chat: with its first message, its directory and its system prompt', async () => {
    const { emulator, sandbox, route } = await e2e.chatRoute({ persona: 'deepseek' }, 'deepseek', 'deepseek-v4-flash');
    const lines = ['hello there', '/new', '/exit'];
    const empty = await runHermes(['chat', ...route], sandbox, {}, lines.map((line) => `${line}\n`).join(''));
    expect(empty.code, empty.stderr).toBe(0);
    // A /new session that got no message is not stored (nothing to resume).
    expect(parseJson<unknown[]>(await runHermes(['sessions', 'list', '--json'], sandbox))).toHaveLength(1);

    const run = await runHermes(
      ['chat', ...route],
      sandbox,
      {},
      ['first', '/new', 'second', '/exit'].map((line) => `${line}\n`).join(''),
    );
    expect(run.code, run.stderr).toBe(0);
    const created = /new session (\S+) \(stored with its first message\)/.exec(run.stdout)?.[1] ?? '';
    const shown = await showSession(sandbox, created);
    expect(shown.model_config).toEqual({ workspace: sandbox.workspace });
    expect(shown.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant']);
    expect(emulator.requests.at(-1)?.raw).not.toContain('"first"');
  });
});
