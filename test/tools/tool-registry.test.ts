import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { executeToolCall } from '../../src/tools/tool-registry.js';

let workspace: string;
const allow = async () => true;
const deny = async () => false;

beforeEach(() => {
  workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-tools-')));
  writeFileSync(join(workspace, 'notes.txt'), 'alpha beta\ngamma\n');
  mkdirSync(join(workspace, 'src'));
  writeFileSync(join(workspace, 'src', 'main.ts'), 'const alpha = 1;\n');
});

describe('built-in tools', () => {
  it('read_file reads a workspace file', async () => {
    const outcome = await executeToolCall('read_file', '{"path":"notes.txt"}', { workspace, approve: deny });
    expect(outcome).toEqual({ content: 'alpha beta\ngamma\n', isError: false });
  });

  it('list_directory lists entries with directories marked', async () => {
    const outcome = await executeToolCall('list_directory', '{"path":"."}', { workspace, approve: deny });
    expect(outcome).toEqual({ content: 'notes.txt\nsrc/', isError: false });
  });

  it('search_files finds matching lines with path and line number', async () => {
    const outcome = await executeToolCall('search_files', '{"pattern":"alpha"}', { workspace, approve: deny });
    expect(outcome.isError).toBe(false);
    expect(outcome.content.split('\n').sort()).toEqual(['notes.txt:1: alpha beta', 'src/main.ts:1: const alpha = 1;']);
  });

  it('search_files gives a catastrophic pattern its real meaning, in linear time', async () => {
    writeFileSync(join(workspace, 'long.txt'), `${'a'.repeat(40)}!\n`);
    const outcome = await executeToolCall('search_files', JSON.stringify({ pattern: '(a+)+$' }), {
      workspace,
      approve: deny,
    });
    // Lines ending in "a" match; the 40 a's followed by "!" do not (and cost microseconds, not minutes).
    expect(outcome).toEqual({ content: 'notes.txt:1: alpha beta\nnotes.txt:2: gamma', isError: false });
  });

  it('write_file needs approval: refused without it, written with it', async () => {
    const refused = await executeToolCall('write_file', '{"path":"out.txt","content":"x"}', {
      workspace,
      approve: deny,
    });
    expect(refused.isError).toBe(true);
    expect(refused.content).toMatch(/not approved.*--yolo/);
    const written = await executeToolCall('write_file', '{"path":"a/out.txt","content":"hello"}', {
      workspace,
      approve: allow,
    });
    expect(written).toEqual({ content: 'wrote 5 bytes to a/out.txt', isError: false });
    expect(readFileSync(join(workspace, 'a', 'out.txt'), 'utf8')).toBe('hello');
  });

  it('run_shell needs approval and reports the exit code', async () => {
    expect((await executeToolCall('run_shell', '{"command":"echo hi"}', { workspace, approve: deny })).isError).toBe(
      true,
    );
    const outcome = await executeToolCall('run_shell', '{"command":"echo hi; exit 3"}', { workspace, approve: allow });
    expect(outcome).toEqual({ content: 'hi\n[exit code 3]', isError: true });
  });

  it('paths outside the workspace are refused, including through a symlink', async () => {
    const outside = await executeToolCall('read_file', '{"path":"../../etc/passwd"}', { workspace, approve: allow });
    expect(outside.isError).toBe(true);
    expect(outside.content).toMatch(/outside the workspace/);
    symlinkSync('/etc', join(workspace, 'link'));
    const viaLink = await executeToolCall('read_file', '{"path":"link/passwd"}', { workspace, approve: allow });
    expect(viaLink.isError).toBe(true);
    expect(viaLink.content).toMatch(/outside the workspace/);
  });

  it('a dangling symlink is refused, so write_file cannot create a file outside the workspace', async () => {
    const outsideDirectory = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-outside-')));
    symlinkSync(join(outsideDirectory, 'escaped.txt'), join(workspace, 'link'));
    symlinkSync(join(outsideDirectory, 'new-directory'), join(workspace, 'directory-link'));
    for (const path of ['link', 'directory-link/inner.txt']) {
      const outcome = await executeToolCall('write_file', JSON.stringify({ path, content: 'x' }), {
        workspace,
        approve: allow,
      });
      expect(outcome).toEqual({
        content: `error: path "${path}" goes through a dangling symlink; tools only follow links that stay in the workspace`,
        isError: true,
      });
    }
    expect(readdirSync(outsideDirectory)).toEqual([]);
  });

  it('a workspace reached through a symlink still works (real paths are compared)', async () => {
    const alias = join(realpathSync(mkdtempSync(join(tmpdir(), 'hermes-alias-'))), 'workspace');
    symlinkSync(workspace, alias);
    const outcome = await executeToolCall('read_file', '{"path":"notes.txt"}', { workspace: alias, approve: deny });
    expect(outcome).toEqual({ content: 'alpha beta\ngamma\n', isError: false });
    const written = await executeToolCall('write_file', '{"path":"b/out.txt","content":"hi"}', {
      workspace: alias,
      approve: allow,
    });
    expect(written).toEqual({ content: 'wrote 2 bytes to b/out.txt', isError: false });
  });

  it('read_file refuses a FIFO instead of blocking the turn forever', async () => {
    execFileSync('mkfifo', [join(workspace, 'pipe')]);
    const outcome = await executeToolCall('read_file', '{"path":"pipe"}', { workspace, approve: deny });
    expect(outcome).toEqual({ content: 'error: pipe is not a regular file', isError: true });
  });

  it('unknown tools and invalid arguments are tool errors, never crashes', async () => {
    expect(await executeToolCall('rm_rf', '{}', { workspace, approve: allow })).toEqual({
      content: 'error: unknown tool "rm_rf"',
      isError: true,
    });
    expect(await executeToolCall('read_file', '{not json', { workspace, approve: allow })).toEqual({
      content: 'error: invalid arguments for read_file: expected a JSON object',
      isError: true,
    });
    expect(await executeToolCall('read_file', '{"path":3}', { workspace, approve: allow })).toEqual({
      content: 'error: invalid arguments: "path" must be a string',
      isError: true,
    });
    const missing = await executeToolCall('read_file', '{"path":"nope.txt"}', { workspace, approve: allow });
    expect(missing).toEqual({ content: 'error: no such file: nope.txt', isError: true });
  });
});
