import { describe, expect, it } from 'vitest';
import { parseJson, runHermes, useE2e } from '../support/e2e.js';

const e2e = useE2e();

describe('interactive hermes chat', () => {
  it('streams turns, runs slash commands, asks approval, branches, and keeps every typed line', async () => {
    const { emulator, sandbox, route } = await e2e.chatRoute({ persona: 'deepseek' }, 'deepseek', 'deepseek-v4-flash');
    // Interactive `hermes chat` with piped input lines (no TTY: no spinner, no colour).
    const lines = [
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
    ];
    const run = await runHermes(['chat', ...route], sandbox, {}, lines.map((line) => `${line}\n`).join(''));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('/reasoning on|off');
    expect(run.stdout).toContain('→ read_file {"path":"notes.txt"}');
    expect(run.stdout).toContain('The tool returned: alpha beta');
    expect(run.stdout).toMatch(/\[reasoning: \d+ characters hidden/);
    expect(run.stdout).toContain('chat_completions · deepseek · deepseek-v4-flash');
    expect(run.stdout).toMatch(/Branched to side quest \(\d{8}-\d{6}-[0-9a-z]{6}\)/);
    expect(run.stdout).toContain('--- /dev/null\n+++ b/out.txt\n@@ -0,0 +1,1 @@\n+hi\n\\ No newline at end of file\n');
    expect(run.stdout).toContain(
      'allow write_file: write out.txt (new file, 1 line)? [y]es / [N]o / [a]lways for this session',
    );
    expect(run.stdout).toContain('write_file was not approved by the user');
    expect(run.stdout).toContain('unknown command /nope');
    const sessions = parseJson<
      { id: string; title: string; parent_session_id: string | null; message_count: number }[]
    >(await runHermes(['sessions', 'list', '--json'], sandbox));
    const child = sessions.find((session) => session.title === 'side quest');
    const parent = sessions.find((session) => session.id === child?.parent_session_id);
    // The system prompt plus two exchanges (one with a tool call).
    expect(parent?.message_count).toBe(7);
    // The branch holds the parent's 7 messages plus the write turn (user, tool call, refused result, answer).
    expect(child?.message_count).toBe(11);
    expect(emulator.requests.every((request) => request.status === 200)).toBe(true);
  });
});
