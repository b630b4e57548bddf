import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { executeToolCall } from '../../src/tools/tool-registry.js';

/**
 * Files that are not UTF-8. `edit_file` re-encodes the whole file, so on a Latin-1 file it
 * would turn every `é` (the byte e9) into the three bytes of U+FFFD and still report success:
 * it refuses instead, naming the line, and keeps UTF-16 (with a byte order mark) in UTF-16,
 * byte for byte outside the change. `read_file` says a file is not UTF-8 and shows what it can.
 * A NUL byte anywhere in what `read_file` reads makes it binary, not only in the first chunk.
 */

let workspace: string;
const allow = async () => true;

beforeEach(() => {
  workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-encodings-')));
});

const call = (name: string, args: Record<string, unknown>) =>
  executeToolCall(name, JSON.stringify(args), { workspace, approve: allow });
const bytesOf = (name: string) => readFileSync(join(workspace, name));

/** `café = 1\nname = "x"\n` in Latin-1: `é` is the single byte e9. */
const LATIN1 = Buffer.from('caf\xe9 = 1\nname = "x"\n', 'latin1');

describe('edit_file on a file that is not UTF-8', () => {
  it('refuses a Latin-1 file with a clear error and leaves every byte as it was', async () => {
    writeFileSync(join(workspace, 'latin1.txt'), LATIN1);
    const outcome = await call('edit_file', { path: 'latin1.txt', old_string: '"x"', new_string: '"y"' });
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toMatch(/^error: latin1\.txt is not valid UTF-8 \(line 1 holds a byte that is not/);
    expect(outcome.content).toContain('so it is not edited');
    expect(bytesOf('latin1.txt').equals(LATIN1)).toBe(true);
  });

  it.each([
    ['utf-16le', Buffer.from([0xff, 0xfe]), (text: string) => Buffer.from(text, 'utf16le'), 'UTF-16LE'],
    ['utf-16be', Buffer.from([0xfe, 0xff]), (text: string) => Buffer.from(text, 'utf16le').swap16(), 'UTF-16BE'],
  ])('edits a %s file with a byte order mark in its own encoding', async (_name, bom, encode, shown) => {
    writeFileSync(join(workspace, 'wide.txt'), Buffer.concat([bom, encode('café = 1\nname = "x"\n')]));
    const outcome = await call('edit_file', { path: 'wide.txt', old_string: '"x"', new_string: '"ü"' });
    expect(outcome).toEqual({
      content: `edited wide.txt: replaced 1 occurrence (at line 2) (kept as ${shown})`,
      isError: false,
    });
    expect(bytesOf('wide.txt').equals(Buffer.concat([bom, encode('café = 1\nname = "ü"\n')]))).toBe(true);
  });

  it('refuses a UTF-16 file that does not decode back to the same bytes (an odd byte count)', async () => {
    const odd = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('ab', 'utf16le'), Buffer.from([0x63])]);
    writeFileSync(join(workspace, 'odd.txt'), odd);
    const outcome = await call('edit_file', { path: 'odd.txt', old_string: 'a', new_string: 'z' });
    expect(outcome.content).toMatch(/^error: odd\.txt is UTF-16LE but not well-formed/);
    expect(bytesOf('odd.txt').equals(odd)).toBe(true);
  });

  it('keeps a UTF-8 byte order mark', async () => {
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('a = 1\n')]);
    writeFileSync(join(workspace, 'bom.txt'), withBom);
    expect((await call('edit_file', { path: 'bom.txt', old_string: '1', new_string: '2' })).isError).toBe(false);
    expect(bytesOf('bom.txt').equals(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('a = 2\n')]))).toBe(
      true,
    );
  });
});

describe('read_file on a file that is not UTF-8', () => {
  it('shows a Latin-1 file with U+FFFD for the bytes it cannot decode, and says so', async () => {
    writeFileSync(join(workspace, 'latin1.txt'), Buffer.from('ok\nCaf\xe9\n', 'latin1'));
    const outcome = await call('read_file', { path: 'latin1.txt' });
    expect(outcome).toEqual({
      content:
        'ok\nCaf\uFFFD\n[latin1.txt is not valid UTF-8 (from line 2: Latin-1 or another 8-bit encoding?); bytes that ' +
        'are not UTF-8 are shown as \uFFFD, and edit_file will not change this file]',
      isError: false,
    });
  });

  it('decodes UTF-16 with a byte order mark and says which encoding it is', async () => {
    writeFileSync(
      join(workspace, 'wide.txt'),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo\n', 'utf16le')]),
    );
    const outcome = await call('read_file', { path: 'wide.txt' });
    expect(outcome.content).toBe(
      '\uFEFFhéllo\n[wide.txt is UTF-16LE (it starts with a byte order mark), not UTF-8: shown decoded; edit_file keeps that encoding]',
    );
  });

  it('a NUL byte past the first 64 KiB chunk, in the lines returned, still makes the file binary', async () => {
    const lines = Array.from({ length: 3000 }, (_, index) => (index === 2600 ? 'x\0y' : 'x'.repeat(30)));
    writeFileSync(join(workspace, 'late-nul.txt'), `${lines.join('\n')}\n`);
    const outcome = await call('read_file', { path: 'late-nul.txt', offset: 2500 });
    expect(outcome.content.slice(0, 80)).toBe('error: late-nul.txt looks binary (it contains NUL bytes)');
    expect(outcome.isError).toBe(true);
  });
});
