import { describe, expect, it } from 'vitest';
import { type ChatJson, parseJson, runHermes, useE2e } from '../support/e2e.js';

/**
 * A command that ran but did not succeed is a failed tool call wherever the call is reported:
 * `chat -q --json` marks it `is_error: true` (as the interactive ✗ does), and a command that
 * exited 0 stays `is_error: false`. The model still gets the output and the status line.
 */

const e2e = useE2e();

async function shellCall(command: string) {
  const sandbox = e2e.sandbox();
  const run = await runHermes(['chat', '-q', `run \`${command}\``, '--yolo', '--json'], sandbox);
  expect(run.code, run.stderr).toBe(0);
  const calls = parseJson<ChatJson>(run).tool_calls;
  expect(calls.map((call) => call.name)).toEqual(['run_shell']);
  return calls[0];
}

describe('run_shell exit status in chat -q --json', () => {
  it('a non-zero exit code is is_error: true, with the output and the status line kept', async () => {
    expect(await shellCall('echo broken; exit 3')).toMatchObject({ result: 'broken\n[exit code 3]', is_error: true });
  });

  it('exit code 0 is is_error: false', async () => {
    expect(await shellCall('echo fine')).toMatchObject({ result: 'fine\n[exit code 0]', is_error: false });
  });
});
