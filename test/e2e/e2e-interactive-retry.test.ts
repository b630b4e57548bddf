import { describe, expect, it } from 'vitest';
import { routeArgs, runHermes, storedMessages, useE2e } from '../support/e2e.js';

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
});
