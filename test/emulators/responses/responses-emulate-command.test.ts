import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { registerEmulateResponsesCommand } from '../../../src/cli/emulate-responses-command.js';

/** `hermes emulate responses` (docs/architecture.md): prints its base URL, serves, stops on SIGINT. */

afterEach(() => {
  vi.restoreAllMocks();
});

/** Runs the command with `args`; returns its base URL and a stop function (its SIGINT handler). */
async function startCommand(args: string[]): Promise<{ baseUrl: string; line: string; stop: () => Promise<void> }> {
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  const stopHandlers: (() => void)[] = [];
  const realOn = process.on.bind(process);
  // Capture the command's SIGINT handler instead of signalling the test worker.
  vi.spyOn(process, 'on').mockImplementation(((event: string, listener: () => void) => {
    if (event === 'SIGINT') {
      stopHandlers.push(listener);
      return process;
    }
    return realOn(event as NodeJS.Signals, listener);
  }) as typeof process.on);

  const program = new Command().exitOverride();
  const emulate = program.command('emulate');
  registerEmulateResponsesCommand(emulate);
  const running = program.parseAsync(['node', 'hermes', 'emulate', 'responses', '--port', '0', ...args]);

  let line: string | undefined;
  for (let attempt = 0; attempt < 200 && line === undefined; attempt += 1) {
    line = lines.find((text) => text.startsWith('emulator responses listening on '));
    if (line === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const baseUrl = (line ?? '').trim().split(' ').at(-1) ?? '';
  return {
    baseUrl,
    line: line ?? '',
    stop: async () => {
      expect(stopHandlers).toHaveLength(1);
      stopHandlers[0]?.();
      await running;
    },
  };
}

async function post(baseUrl: string): Promise<Response> {
  return fetch(`${baseUrl}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-5.4', store: false, input: 'hello' }),
  });
}

describe('hermes emulate responses', () => {
  it('listens on 127.0.0.1, answers POST /v1/responses, and stops on SIGINT', async () => {
    const command = await startCommand(['--issuer', 'cli-test']);
    expect(command.line).toMatch(/^emulator responses listening on http:\/\/127\.0\.0\.1:\d+\/v1\n$/);
    expect((await post(command.baseUrl)).status).toBe(200);
    await command.stop();
  });

  it('--reasoning-only serves reasoning-only answers first (SPEC §24.6)', async () => {
    const command = await startCommand(['--reasoning-only', 'max-output-tokens']);
    const first = (await (await post(command.baseUrl)).json()) as { status: string; output: { type: string }[] };
    expect([first.status, first.output.map((item) => item.type)]).toEqual(['incomplete', ['reasoning']]);
    const second = (await (await post(command.baseUrl)).json()) as { status: string; output: { type: string }[] };
    expect([second.status, second.output.map((item) => item.type)]).toEqual(['completed', ['reasoning', 'message']]);
    await command.stop();
  });

  it('--reasoning-only refuses an unknown shape', async () => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const program = new Command().exitOverride();
    registerEmulateResponsesCommand(program.command('emulate'));
    await expect(
      program.parseAsync(['node', 'hermes', 'emulate', 'responses', '--reasoning-only', 'summary-only,nope']),
    ).rejects.toThrow(/"nope" is not one of summary-only, temporary-id, max-output-tokens/);
  });
});
