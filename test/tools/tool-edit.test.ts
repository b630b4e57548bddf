import { linkSync, mkdtempSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { executeToolCall, type ApprovalDecider } from '../../src/tools/tool-registry.js';
import type { ToolPreview } from '../../src/tools/tool-types.js';

/** `edit_file`: exact replacement, one match unless replace_all, near-match help, a diff for approval. */

let workspace: string;
const allow = async () => true;

const SOURCE = ['function greet(name) {', '  const text = "hello " + name;', '  return text;', '}', ''].join('\n');

beforeEach(() => {
  workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-edit-')));
  writeFileSync(join(workspace, 'greet.js'), SOURCE);
});

function edit(args: Record<string, unknown>, approve: ApprovalDecider = allow) {
  return executeToolCall('edit_file', JSON.stringify({ path: 'greet.js', ...args }), { workspace, approve });
}

const fileText = () => readFileSync(join(workspace, 'greet.js'), 'utf8');

describe('edit_file', () => {
  it('replaces the one occurrence and says where', async () => {
    const outcome = await edit({ old_string: '"hello "', new_string: '"hi "' });
    expect(outcome).toEqual({ content: 'edited greet.js: replaced 1 occurrence (at line 2)', isError: false });
    expect(fileText()).toBe(SOURCE.replace('"hello "', '"hi "'));
  });

  it('shows the unified diff in the approval request, and writes nothing when refused', async () => {
    const previews: ToolPreview[] = [];
    const outcome = await edit(
      { old_string: '  return text;', new_string: '  return text.trim();' },
      async (_n, _a, p) => {
        previews.push(p);
        return false;
      },
    );
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toMatch(/edit_file was not approved by the user/);
    expect(fileText()).toBe(SOURCE);
    expect(previews).toEqual([
      {
        summary: 'edit greet.js (+1 -1)',
        basis: expect.stringMatching(/^[0-9a-f]{64}$/),
        diff: [
          '--- a/greet.js',
          '+++ b/greet.js',
          '@@ -1,4 +1,4 @@',
          ' function greet(name) {',
          '   const text = "hello " + name;',
          '-  return text;',
          '+  return text.trim();',
          ' }',
          '',
        ].join('\n'),
      },
    ]);
  });

  // Every refusal is a tool error that says what to do next and leaves the file as it was.
  it.each<[string, string, string]>([
    [
      'no match: a tool error naming the lines that match when whitespace is ignored',
      'const text = "hello " + name;\n\treturn text;',
      'error: old_string was not found in greet.js; it matches lines 2-3 when whitespace is ignored: copy the exact ' +
        'indentation, tabs and trailing spaces from the file',
    ],
    [
      'no match: names the closest window of lines and its first difference',
      'function greet(name) {\n  const text = "hey " + name;\n  return text;',
      'error: old_string was not found in greet.js; closest: lines 1-3 (2 of 3 lines equal; first difference at line 2)',
    ],
    [
      'no match: falls back to the lines most similar to its first line',
      'return texts;',
      'error: old_string was not found in greet.js; closest to its first line: line 3 (92% similar)',
    ],
    [
      'no match and nothing similar: says to read the file again',
      'zzzzzzzzzzzzzz',
      'error: old_string was not found in greet.js; no similar lines either: read the file again before editing',
    ],
    [
      'several matches: says how many and at which lines, and changes nothing without replace_all',
      'text',
      'error: old_string occurs 2 times in greet.js (at lines 2, 3); include more surrounding lines so it ' +
        'matches exactly once, or set replace_all to true to change every occurrence',
    ],
  ])('%s', async (_name, oldString, content) => {
    const outcome = await edit({ old_string: oldString, new_string: oldString === 'text' ? 'message' : 'x' });
    expect(outcome).toEqual({ content, isError: true });
    expect(fileText()).toBe(SOURCE);
  });

  it('replace_all changes every occurrence', async () => {
    const outcome = await edit({ old_string: 'text', new_string: 'message', replace_all: true });
    expect(outcome).toEqual({ content: 'edited greet.js: replaced 2 occurrences (at lines 2, 3)', isError: false });
    expect(fileText()).toBe(SOURCE.replaceAll('text', 'message'));
  });

  it('two occurrences on one line name that line once', async () => {
    writeFileSync(join(workspace, 'greet.js'), 'a a\nb\n');
    expect((await edit({ old_string: 'a', new_string: 'c' })).content).toMatch(
      /occurs 2 times in greet.js \(at line 1\)/,
    );
  });

  it('replacement text is literal ($& and $1 are not patterns)', async () => {
    await edit({ old_string: 'return text;', new_string: 'return "$&$1";' });
    expect(fileText()).toContain('return "$&$1";');
  });

  it('a CRLF file is matched with \\n in old_string and keeps its CRLF line endings', async () => {
    writeFileSync(join(workspace, 'greet.js'), 'one\r\ntwo\r\nthree\r\n');
    const outcome = await edit({ old_string: 'one\ntwo', new_string: 'one\n2' });
    expect(outcome.isError).toBe(false);
    expect(fileText()).toBe('one\r\n2\r\nthree\r\n');
  });

  it('refuses empty, unchanged and missing-file edits with a clear error', async () => {
    expect((await edit({ old_string: '', new_string: 'x' })).content).toMatch(/old_string is empty; use write_file/);
    expect((await edit({ old_string: 'text', new_string: 'text' })).content).toMatch(/are the same/);
    const missing = await executeToolCall('edit_file', '{"path":"nope.js","old_string":"a","new_string":"b"}', {
      workspace,
      approve: allow,
    });
    expect(missing.content).toBe('error: no such file: nope.js (use write_file to create it)');
  });

  it('refuses a file changed between the approval prompt and the write', async () => {
    const outcome = await edit({ old_string: 'return text;', new_string: 'return 1;' }, async () => {
      writeFileSync(join(workspace, 'greet.js'), `${SOURCE}// changed meanwhile\n`);
      return true;
    });
    expect(outcome.content).toBe(
      'error: greet.js changed after the edit was shown for approval; read it again and redo the edit',
    );
    expect(fileText()).toBe(`${SOURCE}// changed meanwhile\n`);
  });

  it('keeps the file mode and inode', async () => {
    const before = statSync(join(workspace, 'greet.js'));
    await edit({ old_string: 'return text;', new_string: 'return 1;' });
    const after = statSync(join(workspace, 'greet.js'));
    expect([after.ino, after.mode]).toEqual([before.ino, before.mode]);
  });
});

describe('writes through links are refused', () => {
  it('edit_file and write_file refuse a file with another hard link (outside the workspace)', async () => {
    const outside = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-outside-')));
    writeFileSync(join(outside, 'secret.txt'), 'keep me\n');
    linkSync(join(outside, 'secret.txt'), join(workspace, 'linked.txt'));
    const edited = await executeToolCall('edit_file', '{"path":"linked.txt","old_string":"keep","new_string":"lose"}', {
      workspace,
      approve: allow,
    });
    const written = await executeToolCall('write_file', '{"path":"linked.txt","content":"lost\\n"}', {
      workspace,
      approve: allow,
    });
    const refusal =
      'error: refusing to write linked.txt: it has 2 hard links, so the write would also change the same file under ' +
      'its other names, which may be outside the workspace';
    expect([edited, written]).toEqual([
      { content: refusal, isError: true },
      { content: refusal, isError: true },
    ]);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('keep me\n');
  });

  it('write_file shows a diff against the current file, or the new file whole', async () => {
    const previews: ToolPreview[] = [];
    const approve: ApprovalDecider = async (_name, _args, preview) => {
      previews.push(preview);
      return true;
    };
    await executeToolCall('write_file', '{"path":"new.txt","content":"a\\nb\\n"}', { workspace, approve });
    await executeToolCall('write_file', '{"path":"new.txt","content":"a\\nc\\n"}', { workspace, approve });
    expect(previews.map((preview) => [preview.summary, preview.diff])).toEqual([
      ['write new.txt (new file, 2 lines)', '--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n'],
      ['write new.txt (+1 -1)', '--- a/new.txt\n+++ b/new.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n'],
    ]);
  });

  it('a symlink inside the workspace pointing inside it is written through its target path, never replaced', async () => {
    symlinkSync(join(workspace, 'greet.js'), join(workspace, 'alias.js'));
    const outcome = await executeToolCall(
      'edit_file',
      '{"path":"alias.js","old_string":"return text;","new_string":"return 2;"}',
      { workspace, approve: allow },
    );
    expect(outcome).toEqual({ content: 'edited greet.js: replaced 1 occurrence (at line 3)', isError: false });
    expect(fileText()).toContain('return 2;');
  });
});
