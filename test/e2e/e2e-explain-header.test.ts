import { describe, expect, it } from 'vitest';
import { chatJson, runHermes, useE2e } from '../support/e2e.js';

/**
 * SPEC §23.3 read by a person: `--explain` starts with a header naming the route, the table row
 * that decided and whether the route must echo, and a healthy DeepSeek message — its text in
 * both `reasoning_content` and `reasoning` — is not reported as a drop: the copy the route does
 * not read is `covered` by the one it does.
 */

const e2e = useE2e();

describe('replay preview --explain on a healthy DeepSeek session', () => {
  it('starts with the route header; the reasoning copy is covered, never dropped', async () => {
    const sandbox = e2e.sandbox();
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', '--provider', 'emulator:deepseek']);
    const run = await runHermes(['replay', 'preview', '--session', first.session_id, '--explain'], sandbox);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(
      'route deepseek|api.deepseek.com|deepseek-v4-flash · chat_completions · table row: fallback (reads reasoning_content) · ' +
        'must echo: yes (deepseek: reasoning_content on every assistant turn, " " when it has none) · ' +
        'served by the in-process emulator deepseek on 127.0.0.1 (hermes chat starts it)',
    );
    expect(run.stdout).not.toContain('dropped');
    expect(run.stdout).toMatch(/covered reasoning \(same text sent as reasoning_content, \d+ B\)/);
  });
});
