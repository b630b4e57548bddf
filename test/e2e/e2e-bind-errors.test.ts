import { createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runHermes, useE2e } from '../support/e2e.js';

/**
 * `hermes gateway` and `hermes emulate` on an address they cannot bind, through the built
 * binary: one line naming the address and what to change, exit code 2 (the fix is a flag),
 * never a stack trace.
 */

const e2e = useE2e();

/** A server holding a loopback port, closed after the test. */
async function holdPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  e2e.defer(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

const COMMANDS: [string, string[]][] = [
  ['gateway', ['gateway', '--provider', 'emulator:deepseek']],
  ['emulate chat', ['emulate', 'chat', '--persona', 'deepseek']],
  ['emulate anthropic', ['emulate', 'anthropic']],
  ['emulate bedrock', ['emulate', 'bedrock']],
  ['emulate gemini', ['emulate', 'gemini']],
  ['emulate responses', ['emulate', 'responses']],
];

describe('bind failures', () => {
  it.each(COMMANDS)('%s on a port in use: one line, exit 2, no stack trace', async (_name, args) => {
    const port = await holdPort();
    const sandbox = e2e.sandbox();
    const run = await runHermes([...args, '--port', String(port)], sandbox);
    expect(run.code).toBe(2);
    expect(run.stdout).not.toContain('listening on');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.stderr).not.toContain('unexpected error');
    const lines = run.stderr
      .trim()
      .split('\n')
      .filter((line) => !line.startsWith('offline: '));
    expect(lines).toEqual([
      `hermes: cannot listen on 127.0.0.1:${port}: the port is already in use by another process; stop it or pick another --port (0 picks a free one)`,
    ]);
  });
});
