import { execFile } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { startChatEmulator } from '../../src/emulators/chat-completions/chat-emulator.js';
import type { RunningChatEmulator } from '../../src/emulators/chat-completions/chat-emulator-types.js';
import { scaledTimeout } from '../support/timeouts.js';
import { HERMES_BIN, makeSandbox, parseJson, runHermes } from './e2e-helpers.js';

/** Runs interactive `hermes chat` with piped input lines (no TTY: no spinner, no colour). */
function chatWithInput(args: string[], sandbox: { home: string; workspace: string }, lines: string[]) {
  return new Promise<{ code: number; stdout: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      [HERMES_BIN, 'chat', ...args],
      {
        cwd: sandbox.workspace,
        env: { ...process.env, HERMES_HOME: sandbox.home, NO_COLOR: '1' },
        timeout: scaledTimeout(60_000),
      },
      (error, stdout) => resolve({ code: error ? 1 : 0, stdout }),
    );
    child.stdin?.end(lines.map((line) => `${line}\n`).join(''));
  });
}

let emulator: RunningChatEmulator | null = null;
afterEach(async () => {
  await emulator?.close();
  emulator = null;
});

describe('interactive hermes chat (issue 4 item 4)', () => {
  it('streams turns, runs slash commands, asks approval, branches, and keeps every typed line', async () => {
    emulator = await startChatEmulator({ persona: 'deepseek' });
    const sandbox = makeSandbox();
    const route = [
      '--provider',
      'deepseek',
      '--model',
      'deepseek-v4-flash',
      '--base-url',
      emulator.baseUrl,
      '--api-key',
      'k',
    ];
    const run = await chatWithInput(route, sandbox, [
      '/help',
      'read the file notes.txt',
      '/reasoning off',
      'hello',
      '/model',
      '/branch side quest',
      'write "hi" to out.txt',
      'n',
      '/nope',
      '/exit',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('/reasoning on|off');
    expect(run.stdout).toContain('→ read_file {"path":"notes.txt"}');
    expect(run.stdout).toContain('The tool returned: alpha beta');
    expect(run.stdout).toMatch(/\[reasoning: \d+ characters hidden/);
    expect(run.stdout).toContain('chat_completions · deepseek · deepseek-v4-flash');
    expect(run.stdout).toMatch(/Branched to side quest \(\d{8}-\d{6}-[0-9a-z]{6}\)/);
    expect(run.stdout).toContain('--- /dev/null\n+++ b/out.txt\n@@ -0,0 +1,1 @@\n+hi\n\\ No newline at end of file\n');
    expect(run.stdout).toContain('allow write_file: write out.txt (new file, 1 line)? [y/N]');
    expect(run.stdout).toContain('write_file was not approved by the user');
    expect(run.stdout).toContain('unknown command /nope');
    const sessions = parseJson<
      { id: string; title: string; parent_session_id: string | null; message_count: number }[]
    >(await runHermes(['sessions', 'list', '--json'], sandbox));
    const child = sessions.find((session) => session.title === 'side quest');
    const parent = sessions.find((session) => session.id === child?.parent_session_id);
    expect(parent?.message_count).toBe(6);
    // The branch holds the parent's 6 messages plus the write turn (user, tool call, refused result, answer).
    expect(child?.message_count).toBe(10);
    expect(emulator.requests.every((request) => request.status === 200)).toBe(true);
  });
});
