import { describe, expect, it } from 'vitest';
import { type ChatJson, parseJson, readWorkspaceFile, runHermes, type Sandbox, useE2e } from '../support/e2e.js';

/**
 * `edit_file` through the built CLI against the offline emulator (its scripted model turns
 * `replace "A" with "B" in FILE` into an edit_file call): success, no match, several matches,
 * and the diff shown in the interactive approval prompt.
 */

const EMULATOR = ['--provider', 'emulator:deepseek'];

const e2e = useE2e();

async function askOnce(sandbox: Sandbox, query: string) {
  const run = await runHermes(['chat', '-q', query, '--json', '--yolo', ...EMULATOR], sandbox);
  expect(run.code).toBe(0);
  const calls = parseJson<ChatJson>(run).tool_calls;
  expect(calls.map((call) => call.name)).toEqual(['edit_file']);
  return calls[0];
}

describe('hermes chat: edit_file end to end', () => {
  it('replaces the one occurrence in the file', async () => {
    const sandbox = e2e.sandbox();
    const call = await askOnce(sandbox, 'replace "alpha" with "omega" in notes.txt');
    expect(call).toMatchObject({ result: 'edited notes.txt: replaced 1 occurrence (at line 1)', is_error: false });
    expect(readWorkspaceFile(sandbox, 'notes.txt')).toBe('omega beta\n');
  });

  it('no match: a tool error with the near-match line, and the file untouched', async () => {
    const sandbox = e2e.sandbox({ files: { 'app.js': 'const a = 1;\nfunction  main() {}\n' } });
    const call = await askOnce(sandbox, 'replace "function main() {}" with "function main() { run(); }" in app.js');
    expect(call).toMatchObject({
      result: 'error: old_string was not found in app.js; closest to its first line: line 2 (95% similar)',
      is_error: true,
    });
    expect(readWorkspaceFile(sandbox, 'app.js')).toBe('const a = 1;\nfunction  main() {}\n');
  });

  it('several matches: a tool error with the count and lines; replace all changes them all', async () => {
    const sandbox = e2e.sandbox({ files: { 'twice.txt': 'alpha\nbeta\nalpha\n' } });
    const refused = await askOnce(sandbox, 'replace "alpha" with "omega" in twice.txt');
    expect(refused).toMatchObject({
      result:
        'error: old_string occurs 2 times in twice.txt (at lines 1, 3); include more surrounding lines so it ' +
        'matches exactly once, or set replace_all to true to change every occurrence',
      is_error: true,
    });
    expect(readWorkspaceFile(sandbox, 'twice.txt')).toBe('alpha\nbeta\nalpha\n');
    const all = await askOnce(sandbox, 'replace all "alpha" with "omega" in twice.txt');
    expect(all).toMatchObject({ result: 'edited twice.txt: replaced 2 occurrences (at lines 1, 3)', is_error: false });
    expect(readWorkspaceFile(sandbox, 'twice.txt')).toBe('omega\nbeta\nomega\n');
  });

  it('interactively, the approval prompt shows the unified diff first', async () => {
    const sandbox = e2e.sandbox();
    const { stdout } = await runHermes(
      ['chat', ...EMULATOR],
      sandbox,
      {},
      'replace "alpha" with "omega" in notes.txt\ny\n/exit\n',
    );
    expect(stdout).toContain(
      [
        '--- a/notes.txt',
        '+++ b/notes.txt',
        '@@ -1,1 +1,1 @@',
        '-alpha beta',
        '+omega beta',
        'allow edit_file: edit notes.txt (+1 -1)? [y]es / [N]o / [a]lways for this session y',
      ].join('\n'),
    );
    expect(stdout).toContain('edited notes.txt: replaced 1 occurrence (at line 1)');
    expect(readWorkspaceFile(sandbox, 'notes.txt')).toBe('omega beta\n');
  });
});
