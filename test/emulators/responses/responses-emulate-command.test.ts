import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { registerEmulateResponsesCommand } from '../../../src/cli/emulate-responses-command.js';

/** `hermes emulate responses` (DESIGN.md public surfaces): prints its base URL, serves, stops on SIGINT. */

afterEach(() => {
  vi.restoreAllMocks();
});

describe('hermes emulate responses', () => {
  it('listens on 127.0.0.1, answers POST /v1/responses, and stops on SIGINT', async () => {
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
    const running = program.parseAsync([
      'node',
      'hermes',
      'emulate',
      'responses',
      '--port',
      '0',
      '--issuer',
      'cli-test',
    ]);

    let line: string | undefined;
    for (let attempt = 0; attempt < 200 && line === undefined; attempt += 1) {
      line = lines.find((text) => text.startsWith('emulator responses listening on '));
      if (line === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(line).toMatch(/^emulator responses listening on http:\/\/127\.0\.0\.1:\d+\/v1\n$/);
    const baseUrl = (line ?? '').trim().split(' ').at(-1) ?? '';
    const answer = await fetch(`${baseUrl}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-5.4', store: false, input: 'hello' }),
    });
    expect(answer.status).toBe(200);
    expect(stopHandlers).toHaveLength(1);
    stopHandlers[0]?.();
    await running;
  });
});
