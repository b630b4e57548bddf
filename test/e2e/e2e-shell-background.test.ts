import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson, runHermes, useE2e } from '../support/e2e.js';
import { isRunning } from '../support/processes.js';

/**
 * `run_shell` processes do not outlive the turn (docs/architecture.md "Security"): a command
 * that starts `sleep` in the background, once in its own group and once escaped with `setsid`,
 * leaves nothing running once `hermes -q` has answered and exited; the tool result told the
 * model they would be stopped at the end of the turn.
 */

const e2e = useE2e();

describe.runIf(process.platform === 'linux')('run_shell background processes and the CLI', () => {
  it('`cmd &` and `setsid cmd &` are stopped when the turn ends', async () => {
    const sandbox = e2e.sandbox();
    const command =
      "sleep 300 > /dev/null 2>&1 & echo $! > group.pid; setsid sh -c 'echo $$ > escaped.pid; exec sleep 300' " +
      '> /dev/null 2>&1 & while [ ! -s escaped.pid ]; do sleep 0.05; done; echo started';
    const run = await runHermes(['chat', '-q', `run \`${command}\``, '--yolo', '--json'], sandbox);
    expect(run.code, run.stderr).toBe(0);
    const answer = parseJson<{ tool_calls: { result: string }[] }>(run);
    expect(answer.tool_calls[0]?.result).toMatch(
      /^started\n\[exit code 0\]\n\[2 processes it started still run in the background \(pid \d+, \d+\); they are stopped when this turn ends\]$/,
    );
    const pids = ['group.pid', 'escaped.pid'].map((name) =>
      Number(readFileSync(join(sandbox.workspace, name), 'utf8').trim()),
    );
    expect(pids.filter(isRunning)).toEqual([]);
  });
});
