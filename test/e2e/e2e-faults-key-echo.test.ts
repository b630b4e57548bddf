import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startChatEmulator } from '../../src/emulators/chat-completions/chat-emulator.js';
import type { RunningChatEmulator } from '../../src/emulators/chat-completions/chat-emulator-types.js';
import { makeSandbox, runHermes, spawnHermes } from '../support/e2e.js';

/**
 * A provider that echoes the request's `Authorization` header inside an SSE error chunk, a
 * malformed chunk or a 200 JSON error body (SPEC §23.3): the key appears nowhere
 * in the CLI's output, the gateway's answers (502 body, SSE error event), the logs or state.db.
 */

const KEY = 'sk-e2e-echo-0123456789abcdefghijSECRET';
const PLACES = ['error-chunk', 'malformed-chunk', 'error-body'] as const;
/** Faults queued per run: more than the transport's attempts and the runtime's recoveries. */
const REPEATS = 6;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function emulatorEchoing(where: (typeof PLACES)[number]): Promise<RunningChatEmulator> {
  const emulator = await startChatEmulator({ persona: 'deepseek' });
  cleanups.push(() => emulator.close());
  for (let index = 0; index < REPEATS; index++) emulator.addFault({ kind: 'key-echo', where });
  return emulator;
}

/** Every file under `directory` (state.db, its WAL, the logs), read as bytes. */
function filesUnder(directory: string): { path: string; bytes: Buffer }[] {
  const found: { path: string; bytes: Buffer }[] = [];
  for (const name of readdirSync(directory)) {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) found.push(...filesUnder(path));
    else found.push({ path, bytes: readFileSync(path) });
  }
  return found;
}

function expectNoKeyIn(home: string): void {
  const files = filesUnder(home);
  expect(files.some((file) => file.path.endsWith('state.db'))).toBe(true);
  for (const file of files) expect(file.bytes.includes(KEY), file.path).toBe(false);
}

async function startGateway(sandbox: { home: string; workspace: string }, baseUrl: string): Promise<string> {
  const child: ChildProcess = spawnHermes(
    [
      'gateway',
      '--port',
      '0',
      '--provider',
      'deepseek',
      '--model',
      'deepseek-v4-flash',
      '--base-url',
      baseUrl,
      '--api-key',
      KEY,
    ],
    sandbox,
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  });
  return new Promise<string>((resolve, reject) => {
    let output = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    void exited.then(() => reject(new Error(`gateway exited before listening: ${output}`)));
  });
}

describe('a key-echoing provider never gets the key printed, answered or stored', () => {
  it.each(PLACES)('hermes chat: echo in %s', async (where) => {
    const emulator = await emulatorEchoing(where);
    const sandbox = makeSandbox();
    const run = await runHermes(
      [
        'chat',
        '-q',
        'say hello',
        '--provider',
        'deepseek',
        '--model',
        'deepseek-v4-flash',
        '--base-url',
        emulator.baseUrl,
        '--api-key',
        KEY,
      ],
      sandbox,
    );
    expect(run.code, run.stderr).not.toBe(0);
    expect(run.stderr).toContain('[redacted]');
    expect(run.stdout + run.stderr).not.toContain(KEY);
    expectNoKeyIn(sandbox.home);
  });

  it.each(PLACES)('hermes gateway: echo in %s, streaming and not', async (where) => {
    const emulator = await emulatorEchoing(where);
    const sandbox = makeSandbox();
    const url = await startGateway(sandbox, emulator.baseUrl);
    for (const stream of [false, true]) {
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'hermes', stream, messages: [{ role: 'user', content: 'say hello' }] }),
      });
      const text = await response.text();
      if (!stream) expect(response.status).toBe(502);
      expect(text).toContain('error');
      expect(text).not.toContain(KEY);
    }
    expectNoKeyIn(sandbox.home);
  });
});
