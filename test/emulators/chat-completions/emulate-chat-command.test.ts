import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { beforeAll, describe, expect, it } from 'vitest';
import { scaledTimeout } from '../../support/timeouts.js';

// docs/architecture.md `hermes emulate FAMILY [--port N]`: the real CLI starts the chat
// emulator, prints its URL on one line, serves, and exits cleanly on SIGTERM.

const root = process.cwd();
const cli = resolve(root, 'dist/cli.js');

beforeAll(() => {
  // `npm test` and `.ci/run` build first. A direct `vitest run` builds only when dist lacks the
  // CLI: rebuilding a present dist would rewrite modules under the tests running beside this one.
  if (!existsSync(cli) || !existsSync(resolve(root, 'dist/cli/emulate-command.js'))) {
    spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
  }
  expect(existsSync(cli)).toBe(true);
}, scaledTimeout(120_000));

describe('hermes emulate chat', () => {
  it('starts on --port 0, prints its URL, serves, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [cli, 'emulate', 'chat', '--persona', 'deepseek', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit(code)));
    try {
      const lines = createInterface({ input: child.stdout });
      const firstLine = await new Promise<string>((resolveLine, rejectLine) => {
        lines.once('line', resolveLine);
        child.once('exit', (code) => rejectLine(new Error(`exited with ${String(code)} before printing`)));
      });
      expect(firstLine).toMatch(/^emulator chat\/deepseek listening on http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const baseUrl = firstLine.split(' ').pop() ?? '';
      const response = await fetch(`${baseUrl}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'deepseek-v4-pro', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { choices: { message: { reasoning_content: string } }[] };
      expect(body.choices[0]?.message.reasoning_content).toContain('[nonce:');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('--help lists every persona with one line each', () => {
    const result = spawnSync(process.execPath, [cli, 'emulate', 'chat', '--help'], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    for (const persona of [
      'openrouter',
      'deepseek',
      'strict-mistral',
      'strict-groq',
      'strict-cerebras',
      'strict-fireworks',
      'copilot',
      'gemini-openai',
      'local',
    ]) {
      expect(result.stdout).toMatch(new RegExp(`^  ${persona} +\\S`, 'm'));
    }
  });

  it('an unknown persona is a usage error (exit 2)', () => {
    const result = spawnSync(process.execPath, [cli, 'emulate', 'chat', '--persona', 'nope', '--port', '0'], {
      encoding: 'utf8',
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('unknown persona "nope"');
  });
});
