import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { scaledTimeout } from '../support/timeouts.js';

// Runs the built CLI (`npm run build` first; `npm test` does it in pretest).
const BIN = resolve(process.cwd(), 'dist/cli.js');

function hermes(args: string[], home: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { timeout: scaledTimeout(30_000), env: { ...process.env, NO_COLOR: '1', HERMES_HOME: home } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

const GOOGLE = { type: 'google.native_assistant', version: 1, parts: [{ text: '', thoughtSignature: 'G-SIG==' }] };
const ACME = { type: 'acme.native_assistant', blob: 'ACME-PRIVATE' };
const TEXT = { type: 'reasoning.text', text: 'plan' };
const history = [
  { role: 'user', content: 'hello' },
  { role: 'assistant', content: 'hi', reasoning_details: [GOOGLE, ACME, TEXT] },
];

let file = '';
let home = '';
let stored = '';

beforeAll(() => {
  const directory = mkdtempSync(join(tmpdir(), 'hermes-native-carriers-'));
  file = join(directory, 'history.json');
  home = join(directory, 'home');
  stored = JSON.stringify(history);
  writeFileSync(file, stored);
});

const RELAY = ['--base-url', 'https://relay.example.com/v1', '--model', 'gemini-3-pro'];

describe('hermes replay preview: provider-declared native carriers (SPEC §24.11)', () => {
  test('gemini-oauth gets Google’s entry byte for byte and --explain names the stripped foreign one', async () => {
    const json = await hermes(
      ['replay', 'preview', '--history', file, '--provider', 'gemini-oauth', ...RELAY, '--json'],
      home,
    );
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    const body = JSON.parse(json.stdout) as { messages: Record<string, unknown>[] };
    expect(body.messages[1]).toEqual({ role: 'assistant', content: 'hi', reasoning_details: [GOOGLE, TEXT] });
    expect(JSON.stringify((body.messages[1]?.['reasoning_details'] as unknown[])[0])).toBe(JSON.stringify(GOOGLE));

    const explain = await hermes(
      ['replay', 'preview', '--history', file, '--provider', 'gemini-oauth', ...RELAY, '--explain'],
      home,
    );
    expect(explain.code).toBe(0);
    expect(explain.stdout.split('\n')[0]).toMatch(/^route gemini-oauth\|.* · chat_completions · table row: /);
    expect(
      explain.stdout
        .split('\n')
        .filter((line) => line !== '')
        .slice(1),
    ).toEqual([
      '#  role       carriers',
      '0  user       -',
      '1  assistant  kept reasoning_details (route reads it, 18 B)',
      '              kept reasoning_details[0] (google.native_assistant) (provider declares this native carrier, 30 B)',
      '              dropped reasoning_details[1] (acme.native_assistant) (native carrier of another provider, 33 B)',
    ]);
  });

  test('another provider (a fallback or model switch) gets neither namespaced entry; the history file is unchanged', async () => {
    const explain = await hermes(
      [
        'replay',
        'preview',
        '--history',
        file,
        '--provider',
        'openrouter',
        '--model',
        'google/gemini-3-pro',
        '--explain',
      ],
      home,
    );
    expect(explain.code).toBe(0);
    const lines = explain.stdout.split('\n');
    expect(lines).toContain(
      '              dropped reasoning_details[0] (google.native_assistant) (native carrier of another provider, 30 B)',
    );
    expect(lines).toContain(
      '              dropped reasoning_details[1] (acme.native_assistant) (native carrier of another provider, 33 B)',
    );
    const json = await hermes(
      ['replay', 'preview', '--history', file, '--provider', 'openrouter', '--model', 'google/gemini-3-pro', '--json'],
      home,
    );
    const body = JSON.parse(json.stdout) as { messages: Record<string, unknown>[] };
    expect(body.messages[1]?.['reasoning_details']).toEqual([TEXT]);
    expect(json.stdout).not.toContain('native_assistant');
    expect(readFileSync(file, 'utf8')).toBe(stored);
  });
});
