import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { type CliRun, postChatCompletion, runHermes, useE2e } from '../support/e2e.js';

/**
 * Every supported Node (20, 22, 24; see `engines` in package.json) runs the everyday `hermes`
 * commands with a clean stderr: no ExperimentalWarning, DeprecationWarning or library warning
 * such as the AWS SDK's NodeVersionSupportWarning, which the SDK prints on Node < 22 when a
 * Bedrock client is made unless `AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true` (the
 * SDK's documented opt-out; `src/cli.ts` sets it). `.ci/run` runs this file on each Node.
 */

/** Lines Node prints for a process warning: `(node:PID) [CODE] SomeWarning: …` and the trace hint. */
const NODE_WARNING = /\(node:\d+\)|\b\w*Warning\b|--trace-(warnings|deprecation)/;

/** The stderr lines that are Node process warnings (empty when stderr is clean). */
function warningLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => NODE_WARNING.test(line));
}

function expectNoWarning(run: CliRun, what: string): void {
  expect(run.code, `${what} exit code; stderr: ${run.stderr}`).toBe(0);
  expect(warningLines(run.stderr), `${what} printed a warning on Node ${process.version}`).toEqual([]);
}

const e2e = useE2e();

describe(`hermes prints no Node warning on stderr (Node ${process.version})`, () => {
  it('recognises a real process warning, so a clean result means something', () => {
    const probe = spawnSync(
      process.execPath,
      [
        '-e',
        "process.emitWarning('probe', 'DeprecationWarning', 'DEP0000'); process.emitWarning('probe', 'ExperimentalWarning')",
      ],
      { encoding: 'utf8' },
    );
    const lines = warningLines(probe.stderr);
    expect(lines.some((line) => line.includes('[DEP0000] DeprecationWarning: probe'))).toBe(true);
    expect(lines.some((line) => line.includes('ExperimentalWarning: probe'))).toBe(true);
  });

  it('--version, --help, sessions list', async () => {
    const sandbox = e2e.sandbox();
    expectNoWarning(await runHermes(['--version'], sandbox), 'hermes --version');
    expectNoWarning(await runHermes(['--help'], sandbox), 'hermes --help');
    expectNoWarning(await runHermes(['sessions', 'list'], sandbox), 'hermes sessions list');
  });

  it.each([
    ['the built-in emulator (no provider)', []],
    ['the Bedrock Converse emulator (AWS SDK client)', ['--provider', 'emulator:bedrock']],
    ['the Anthropic emulator', ['--provider', 'emulator:anthropic']],
  ])('an offline chat -q with a tool call on %s, then its resume', async (_name, route) => {
    const sandbox = e2e.sandbox();
    const first = await runHermes(['chat', '-q', 'read the file notes.txt', '--json', ...route], sandbox);
    expectNoWarning(first, `hermes chat -q ${route.join(' ')}`);
    const { session_id: sessionId } = JSON.parse(first.stdout) as { session_id: string };
    expect(sessionId).toMatch(/^\d{8}-/);
    const resumed = await runHermes(['chat', '--resume', sessionId, '-q', 'and then?', ...route], sandbox);
    expectNoWarning(resumed, `hermes chat --resume ${route.join(' ')}`);
    expectNoWarning(await runHermes(['sessions', 'show', sessionId], sandbox), 'hermes sessions show');
  });

  it('the gateway serving a turn and stopping on SIGTERM', async () => {
    const sandbox = e2e.sandbox();
    const gateway = await e2e.gateway(['--provider', 'emulator:deepseek'], sandbox);
    const turn = await postChatCompletion(gateway.url, {
      messages: [{ role: 'user', content: 'read the file notes.txt' }],
    });
    expect(turn.status).toBe(200);
    await turn.json();
    gateway.process.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    expect(warningLines(gateway.stderr), `hermes gateway printed a warning on Node ${process.version}`).toEqual([]);
  });
});
