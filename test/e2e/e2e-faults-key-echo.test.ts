import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningChatEmulator } from '../../src/emulators/chat-completions/chat-emulator-types.js';
import { postChatCompletion, routeArgs, runHermes, useE2e } from '../support/e2e.js';

/**
 * A provider that echoes the request's `Authorization` header inside an SSE error chunk, a
 * malformed chunk or a 200 JSON error body (SPEC §23.3): the key appears nowhere
 * in the CLI's output, the gateway's answers (502 body, SSE error event), the logs or state.db.
 */

const KEY = 'sk-e2e-echo-0123456789abcdefghijSECRET';
const PLACES = ['error-chunk', 'malformed-chunk', 'error-body'] as const;
/** Faults queued per run: more than the transport's attempts and the runtime's recoveries. */
const REPEATS = 6;

const e2e = useE2e();

async function emulatorEchoing(where: (typeof PLACES)[number]): Promise<RunningChatEmulator> {
  const emulator = await e2e.chat({ persona: 'deepseek' });
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

/** The DeepSeek route to `emulator`, authenticated with the key the provider echoes. */
function routeFor(emulator: RunningChatEmulator): string[] {
  return routeArgs('deepseek', 'deepseek-v4-flash', emulator.baseUrl, KEY);
}

function expectNoKeyIn(home: string): void {
  const files = filesUnder(home);
  expect(files.some((file) => file.path.endsWith('state.db'))).toBe(true);
  for (const file of files) expect(file.bytes.includes(KEY), file.path).toBe(false);
}

describe('a key-echoing provider never gets the key printed, answered or stored', () => {
  it.each(PLACES)('hermes chat: echo in %s', async (where) => {
    const emulator = await emulatorEchoing(where);
    const sandbox = e2e.sandbox();
    const run = await runHermes(['chat', '-q', 'say hello', ...routeFor(emulator)], sandbox);
    expect(run.code, run.stderr).not.toBe(0);
    expect(run.stderr).toContain('[redacted]');
    expect(run.stdout + run.stderr).not.toContain(KEY);
    expectNoKeyIn(sandbox.home);
  });

  it.each(PLACES)('hermes gateway: echo in %s, streaming and not', async (where) => {
    const emulator = await emulatorEchoing(where);
    const sandbox = e2e.sandbox();
    const gateway = await e2e.gateway(routeFor(emulator), sandbox);
    for (const stream of [false, true]) {
      const response = await postChatCompletion(gateway.url, {
        model: 'hermes',
        stream,
        messages: [{ role: 'user', content: 'say hello' }],
      });
      const text = await response.text();
      if (!stream) expect(response.status).toBe(502);
      expect(text).toContain('error');
      expect(text).not.toContain(KEY);
    }
    expectNoKeyIn(sandbox.home);
  });
});
