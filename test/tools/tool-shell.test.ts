import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { executeToolCall } from '../../src/tools/tool-registry.js';
import { ShellProcesses } from '../../src/tools/tool-shell-processes.js';
import { MAX_TOOL_OUTPUT } from '../../src/tools/tool-limits.js';
import { isRunning } from '../support/processes.js';

/** `run_shell`: a timeout that stops the whole process group, an output cap that keeps head and tail, Ctrl-C. */

let workspace: string;
const allow = async () => true;

beforeEach(() => {
  workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-shell-')));
});

const shell = (args: Record<string, unknown>, signal?: AbortSignal, processes?: ShellProcesses) =>
  executeToolCall('run_shell', JSON.stringify(args), { workspace, approve: allow, signal, processes });

/** Starts `sleep 300` twice in the background: one in the command's group, one escaped with setsid. */
const BACKGROUND =
  "sleep 300 > /dev/null 2>&1 & echo $! > group.pid; setsid sh -c 'echo $$ > escaped.pid; exec sleep 300' > /dev/null 2>&1 &" +
  ' while [ ! -s escaped.pid ]; do sleep 0.05; done; echo started';
const backgroundPids = () =>
  ['group.pid', 'escaped.pid'].map((name) => Number(readFileSync(join(workspace, name), 'utf8').trim()));

/** True once `path` exists, polling with a bounded number of short waits. */
async function appears(path: string): Promise<boolean> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (existsSync(path)) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return false;
}

describe('run_shell limits', () => {
  it('states its timeout and output cap in the tool description', async () => {
    const { runShellTool } = await import('../../src/tools/tool-shell.js');
    expect(runShellTool.definition.description).toMatch(/timeout_seconds \(default 120, at most 600\)/);
    expect(runShellTool.definition.description).toMatch(/Output over 64 KiB keeps its first and last 32 KiB/);
  });

  it('a timeout stops the command and the processes it started, and says so', async () => {
    // The child sleep would keep the output pipe open (and the call waiting) if only sh were killed.
    const outcome = await shell({ command: 'echo started; sleep 30 & sleep 30; echo never', timeout_seconds: 1 });
    expect(outcome).toEqual({
      content: 'started\n[timed out after 1 s: the command and every process it started were stopped]',
      isError: true,
    });
  });

  it('long output keeps its head and tail and says how much was cut', async () => {
    const outcome = await shell({ command: 'seq 1 200000' });
    expect(outcome.isError).toBe(false);
    expect(outcome.content.length).toBeLessThan(MAX_TOOL_OUTPUT + 200);
    expect(outcome.content.startsWith('1\n2\n3\n')).toBe(true);
    expect(outcome.content.endsWith('199999\n200000\n[exit code 0]')).toBe(true);
    expect(outcome.content).toMatch(/\n\[… \d+ characters of output cut from the middle of 1288895 …\]\n/);
  });

  it('Ctrl-C (the turn signal) stops the command and its children', async () => {
    const controller = new AbortController();
    const marker = join(workspace, 'running');
    const running = shell({ command: `touch ${marker}; sleep 30` }, controller.signal);
    expect(await appears(marker)).toBe(true);
    controller.abort();
    expect(await running).toEqual({
      content: '[interrupted by the user: the command and every process it started were stopped]',
      isError: true,
    });
  });

  it('a background process left running does not hold the call, and is stopped when the call ends', async () => {
    const outcome = await shell({ command: 'sleep 3 & echo done' });
    expect(outcome).toEqual({
      content:
        'done\n[exit code 0]\n[processes it left in the background still hold its output; not waited for]\n' +
        '[1 process it left running in the background was stopped]',
      isError: false,
    });
  });

  it('a failed command with note lines after its status is still a failure', async () => {
    const outcome = await shell({ command: 'sleep 3 & exit 4' });
    expect(outcome.content).toMatch(/\[exit code 4\]\n\[[^\]]+\]\n\[[^\]]+\]$/);
    expect(outcome.isError).toBe(true);
  });

  it('an out-of-range timeout is a tool error', async () => {
    expect(await shell({ command: 'true', timeout_seconds: 601 })).toEqual({
      content: 'error: invalid arguments: "timeout_seconds" must be a whole number from 1 to 600',
      isError: true,
    });
  });
});

describe.runIf(process.platform === 'linux')('run_shell background processes', () => {
  it('outside a turn, `cmd &` and `setsid cmd &` are stopped when the call returns', async () => {
    const outcome = await shell({ command: BACKGROUND });
    expect(outcome).toEqual({
      content: 'started\n[exit code 0]\n[2 processes it left running in the background were stopped]',
      isError: false,
    });
    expect(backgroundPids().filter(isRunning)).toEqual([]);
  });

  it('in a turn they keep running for the next calls, the result says so, and the turn end stops them', async () => {
    const processes = new ShellProcesses();
    const outcome = await shell({ command: BACKGROUND }, undefined, processes);
    const pids = backgroundPids();
    expect(outcome.content).toBe(
      `started\n[exit code 0]\n[2 processes it started still run in the background (pid ${[...pids].sort((a, b) => a - b).join(', ')}); they are stopped when this turn ends]`,
    );
    expect(pids.filter(isRunning)).toEqual(pids);
    const later = await shell({ command: `kill -0 ${pids.join(' ')} && echo alive` }, undefined, processes);
    expect(later.content).toBe('alive\n[exit code 0]');
    await processes.end();
    expect(pids.filter(isRunning)).toEqual([]);
  });

  it('a timeout stops the escaped process too', async () => {
    const outcome = await shell({ command: `${BACKGROUND}; sleep 30`, timeout_seconds: 1 });
    expect(outcome.content).toBe(
      'started\n[timed out after 1 s: the command and every process it started were stopped]',
    );
    expect(backgroundPids().filter(isRunning)).toEqual([]);
  });
});
