import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { runTurn } from '../../src/index.js';
import { createMemorySessionStore } from '../../src/storage/memory-session-store.js';
import type { SessionStore } from '../../src/storage/session-store.js';
import { collectRun, routeArgs, runHermes, spawnHermes, storedMessages, useE2e } from '../support/e2e.js';

/**
 * A CLI turn interrupted (Ctrl-C) or killed (SIGKILL) while the provider holds its request keeps
 * the user's message, shown as unanswered, and `hermes chat --resume ID` sends it again with
 * `/retry` (stored once). No session is ever stored without its first message.
 */

const e2e = useE2e();

describe('interrupted and killed CLI turns', () => {
  it.each(['SIGINT', 'SIGKILL'] as const)(
    '%s: the question stays, marked unanswered, and --resume then /retry answers it once',
    async (signal) => {
      const emulator = await e2e.chat({ persona: 'deepseek' });
      const gated = await e2e.gated(emulator.baseUrl);
      const sandbox = e2e.sandbox();
      const route = routeArgs('deepseek', 'deepseek-v4-flash', gated.baseUrl);
      gated.close();
      const child = spawnHermes(['chat', '-q', 'what is in notes.txt?', ...route], sandbox);
      const done = collectRun(child);
      await gated.whenReceived(1);
      child.kill(signal);
      await done;
      gated.dropHeld();
      gated.open();

      const listed = await runHermes(['sessions', 'list', '--json'], sandbox);
      const sessions = JSON.parse(listed.stdout) as { id: string; message_count: number }[];
      expect(sessions).toHaveLength(1);
      const id = sessions[0]!.id;
      const stored = await storedMessages(sandbox.home, id);
      expect(stored.map((message: Message) => message.role)).toEqual(['system', 'user']);

      const shown = await runHermes(['sessions', 'show', id], sandbox);
      expect(shown.stdout).toContain(`no answer yet (interrupted): hermes chat --resume ${id}, then /retry`);

      const resumed = await runHermes(['chat', '--resume', id, ...route], sandbox, {}, '/retry\n/exit\n');
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stdout).toContain('your last message got no answer (interrupted): /retry sends it again');
      expect(resumed.stdout).toContain('You said: what is in notes.txt?');
      const users = (await storedMessages(sandbox.home, id)).filter((message) => message.role === 'user');
      expect(users.map((message) => message.content)).toEqual(['what is in notes.txt?']);
    },
  );

  it('a new session whose first write fails is not stored at all (never an empty session)', async () => {
    const memory = createMemorySessionStore();
    const failing = new Proxy(memory, {
      get(target, key, receiver) {
        if (key === 'writeTurn') return () => Promise.reject(new Error('disk I/O error'));
        return Reflect.get(target, key, receiver) as unknown;
      },
    }) as SessionStore;
    const emulator = await e2e.chat({ persona: 'deepseek' });
    await expect(
      runTurn({
        store: failing,
        prompt: 'hello',
        route: { provider: 'deepseek', model: 'deepseek-v4-flash', baseUrl: emulator.baseUrl },
        apiKey: 'k',
      }),
    ).rejects.toThrow('disk I/O error');
    expect(await memory.listSessions()).toEqual([]);
  });
});
