import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';

// docs/architecture.md `hermes emulate FAMILY [--port N]`: the real CLI (dist/cli.js, built by
// `npm test`) starts each family's emulator, prints its URL, serves the `/_emulator/*` control
// endpoints every emulator shares, and exits 0 on SIGTERM.

const cli = resolve(process.cwd(), 'dist/cli.js');

describe.each([
  ['chat', ['--persona', 'deepseek'], /^emulator chat\/deepseek listening on (http:\/\/127\.0\.0\.1:\d+)\/v1$/],
  ['anthropic', [], /^emulator anthropic listening on (http:\/\/127\.0\.0\.1:\d+)$/],
  ['bedrock', [], /^emulator bedrock listening on (http:\/\/127\.0\.0\.1:\d+)$/],
  ['gemini', [], /^emulator gemini listening on (http:\/\/127\.0\.0\.1:\d+)\/v1beta$/],
  ['responses', [], /^emulator responses listening on (http:\/\/127\.0\.0\.1:\d+)\/v1$/],
])('hermes emulate %s', (family, flags, firstLinePattern) => {
  it('prints its URL, serves the control endpoints, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [cli, 'emulate', family, ...flags, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit(code)));
    try {
      const firstLine = await new Promise<string>((resolveLine, rejectLine) => {
        createInterface({ input: child.stdout }).once('line', resolveLine);
        child.once('exit', (code) => rejectLine(new Error(`exited with ${String(code)} before printing`)));
      });
      const origin = firstLinePattern.exec(firstLine)?.[1];
      expect(origin, firstLine).toBeDefined();
      const log = await fetch(`${origin}/_emulator/requests`);
      expect([log.status, await log.json()]).toEqual([200, []]);
      const queued = await fetch(`${origin}/_emulator/faults`, {
        method: 'POST',
        body: JSON.stringify({ kind: 'status', status: 503 }),
      });
      expect(await queued.json()).toEqual({ queued: 1, pending: 1 });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});

describe('hermes emulate --port', () => {
  it('an out-of-range port is a usage error (exit 2)', async () => {
    const code = await new Promise<number | null>((resolveExit) => {
      const child = spawn(process.execPath, [cli, 'emulate', 'gemini', '--port', '70000'], { stdio: 'ignore' });
      child.on('exit', resolveExit);
    });
    expect(code).toBe(2);
  });
});
