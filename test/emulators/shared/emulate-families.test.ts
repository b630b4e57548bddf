import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';

// docs/architecture.md `hermes emulate FAMILY [--port N]`: the real CLI (dist/cli.js, built by
// `npm test`) starts each family's emulator, prints its URL, serves the `/_emulator/*` control
// endpoints every emulator shares, and exits 0 on SIGTERM.

const cli = resolve(process.cwd(), 'dist/cli.js');

/** Starts `hermes emulate FAMILY FLAGS --port 0`; its first stdout line and a stop that resolves with the exit code. */
async function startFamily(
  family: string,
  flags: string[],
): Promise<{ firstLine: string; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, [cli, 'emulate', family, ...flags, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit(code)));
  const stop = () => {
    child.kill('SIGTERM');
    return exited;
  };
  try {
    const firstLine = await new Promise<string>((resolveLine, rejectLine) => {
      createInterface({ input: child.stdout }).once('line', resolveLine);
      child.once('exit', (code) => rejectLine(new Error(`exited with ${String(code)} before printing`)));
    });
    return { firstLine, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

describe.each([
  ['chat', ['--persona', 'deepseek'], /^emulator chat\/deepseek listening on (http:\/\/127\.0\.0\.1:\d+)\/v1$/],
  ['anthropic', [], /^emulator anthropic listening on (http:\/\/127\.0\.0\.1:\d+)$/],
  ['bedrock', [], /^emulator bedrock listening on (http:\/\/127\.0\.0\.1:\d+)$/],
  ['gemini', [], /^emulator gemini listening on (http:\/\/127\.0\.0\.1:\d+)\/v1beta$/],
  ['responses', [], /^emulator responses listening on (http:\/\/127\.0\.0\.1:\d+)\/v1$/],
])('hermes emulate %s', (family, flags, firstLinePattern) => {
  it('prints its URL, serves the control endpoints, and exits 0 on SIGTERM', async () => {
    const { firstLine, stop } = await startFamily(family, flags);
    try {
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
      expect(await stop()).toBe(0);
    }
  });
});

describe('hermes emulate effort rules (--accept-effort, --always-thinks)', () => {
  it.each([
    [
      'chat',
      ['--persona', 'deepseek', '--accept-effort', 'low,high'],
      '/v1/chat/completions',
      { model: 'deepseek-v4-pro', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'max' },
      "Unsupported value: 'reasoning_effort' does not support 'max' with this model. Supported values are: 'low' and 'high'.",
    ],
    [
      'gemini',
      ['--always-thinks'],
      '/v1beta/models/gemini-2.5-pro:generateContent?key=x',
      {
        contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
        generationConfig: { thinkingConfig: { thinkingBudget: 0 } },
      },
      'Budget 0 is invalid. This model only works in thinking mode.',
    ],
  ])('hermes emulate %s %j refuses with the provider wording', async (family, flags, path, body, message) => {
    const { firstLine, stop } = await startFamily(family, flags);
    try {
      const origin = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(firstLine)?.[1];
      const response = await fetch(`${origin}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(400);
      expect(JSON.stringify(await response.json())).toContain(JSON.stringify(message).slice(1, -1));
    } finally {
      expect(await stop()).toBe(0);
    }
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
