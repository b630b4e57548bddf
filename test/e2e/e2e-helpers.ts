import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { scaledTimeout } from '../support/timeouts.js';

/** The built CLI (`npm test` builds first; `.ci/run` builds before the tests). */
export const HERMES_BIN = resolve(process.cwd(), 'dist/cli.js');

/** A fresh HERMES_HOME and workspace with a notes.txt. */
export function makeSandbox(): { home: string; workspace: string } {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-e2e-home-')));
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-e2e-ws-')));
  writeFileSync(join(workspace, 'notes.txt'), 'alpha beta\n');
  return { home, workspace };
}

/** Output of one CLI run. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `hermes` binary. */
export function runHermes(
  args: string[],
  sandbox: { home: string; workspace: string },
  env: Record<string, string> = {},
): Promise<CliRun> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [HERMES_BIN, ...args],
      {
        cwd: sandbox.workspace,
        env: { ...process.env, HERMES_HOME: sandbox.home, NO_COLOR: '1', ...env },
        timeout: scaledTimeout(60_000),
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

/** Starts the real `hermes` binary without waiting (for kill tests). */
export function spawnHermes(
  args: string[],
  sandbox: { home: string; workspace: string },
  env: Record<string, string> = {},
): ChildProcess {
  return spawn(process.execPath, [HERMES_BIN, ...args], {
    cwd: sandbox.workspace,
    env: { ...process.env, HERMES_HOME: sandbox.home, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Parses `--json` stdout. */
export function parseJson<T = Record<string, unknown>>(run: CliRun): T {
  try {
    return JSON.parse(run.stdout) as T;
  } catch {
    throw new Error(`stdout is not JSON (exit ${run.code}).\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  }
}

/** Assistant messages of a chat-completions request body. */
export function assistantsOf(body: unknown): Record<string, unknown>[] {
  const messages = (body as { messages?: Record<string, unknown>[] }).messages ?? [];
  return messages.filter((message) => message['role'] === 'assistant');
}
