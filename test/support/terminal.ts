import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { HERMES_BIN, type Sandbox } from './e2e.js';
import { scaledTimeout } from './timeouts.js';

/**
 * `hermes chat` in a real terminal: a detached tmux session (its own server socket, so tests
 * never share one). Keys are sent with `send-keys`, pastes with `paste-buffer -p` (bracketed, as a
 * terminal pastes), and the screen is what tmux shows (`capture-pane`), after every erase and
 * redraw: what a user sees, not the raw byte stream. Everything written to the terminal is also
 * logged (`pipe-pane`), to measure how much was written.
 */
export interface Terminal {
  /** The visible screen plus scrollback, as plain text (trailing blank lines trimmed). */
  screen(): Promise<string>;
  /** Types `text` literally (no Enter). */
  type(text: string): Promise<void>;
  /** Sends tmux key names: `Enter`, `C-c`, `Tab`. */
  keys(...names: string[]): Promise<void>;
  /** Pastes `text` as a terminal does (bracketed when the program asked for it). */
  paste(text: string): Promise<void>;
  /** Resolves once the screen (after `from` characters of it) matches `pattern`; returns the screen. */
  waitFor(pattern: RegExp, from?: number): Promise<string>;
  /** Bytes the program has written to the terminal so far. */
  bytesWritten(): number;
  /** The program's exit status once it ended, else null. */
  exitStatus(): Promise<number | null>;
  /** Resolves with the exit status once the program ended. */
  exited(): Promise<number>;
  close(): Promise<void>;
}

const run = promisify(execFile);

/** tmux is installed (the terminal tests skip without it). */
export const hasTmux = spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;

function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Starts `hermes chat ARGS` (or `hermes COMMAND ARGS`) in a 100 × 40 tmux terminal in the sandbox's workspace. */
export function openTerminal(
  args: string[],
  sandbox: Sandbox,
  env: Record<string, string> = {},
  command = 'chat',
): Terminal {
  const directory = mkdtempSync(join(tmpdir(), 'hermes-tmux-'));
  const socket = join(directory, 'tmux.sock');
  const log = join(directory, 'output.log');
  writeFileSync(log, '');
  // The spinner draws only on an interactive terminal outside CI (yocto-spinner's own test).
  const { CI: _ci, ...inherited } = process.env;
  const childEnv = { ...inherited, HERMES_HOME: sandbox.home, NO_COLOR: '1', ...env };
  const tmux = (...tmuxArgs: string[]) => run('tmux', ['-S', socket, ...tmuxArgs], { env: childEnv });
  // The exit status is written by the pane's shell, not read from tmux: tmux 3.3 can report a pane
  // whose process has ended as alive, or dead without a status, for as long as the test waits.
  // The shell traps Ctrl-C's SIGINT (a trap runs only once the foreground command ended, POSIX
  // 2.11), so it outlives hermes, which gets the signal with its default disposition.
  const statusFile = join(directory, 'exit-status');
  const hermes = [process.execPath, HERMES_BIN, command, ...args].map(quote).join(' ');
  const shell = `trap : INT; ${hermes}; echo $? > ${quote(statusFile)}`;
  execFileSync(
    'tmux',
    [
      '-S',
      socket,
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-x',
      '100',
      '-y',
      '40',
      '-s',
      'hermes',
      '-c',
      sandbox.workspace,
      shell,
    ],
    { env: childEnv },
  );
  execFileSync('tmux', ['-S', socket, 'set-option', '-t', 'hermes', 'remain-on-exit', 'on'], { env: childEnv });
  execFileSync('tmux', ['-S', socket, 'set-option', '-t', 'hermes', 'history-limit', '50000'], { env: childEnv });
  execFileSync('tmux', ['-S', socket, 'pipe-pane', '-t', 'hermes', '-o', `cat >> ${quote(log)}`], { env: childEnv });

  const screen = async () => {
    const { stdout } = await tmux('capture-pane', '-p', '-J', '-t', 'hermes', '-S', '-');
    return stdout.replace(/\s+$/, '');
  };
  const exitStatus = async (): Promise<number | null> => {
    // The shell writes `$?` (128 + the signal number when a signal ended hermes) once it ended.
    const written = existsSync(statusFile) ? readFileSync(statusFile, 'utf8').trim() : '';
    return written === '' ? null : Number(written);
  };
  return {
    screen,
    async type(text) {
      await tmux('send-keys', '-t', 'hermes', '-l', text);
    },
    async keys(...names) {
      await tmux('send-keys', '-t', 'hermes', ...names);
    },
    async paste(text) {
      const file = join(directory, 'paste.txt');
      writeFileSync(file, text);
      await tmux('load-buffer', '-b', 'paste', file);
      await tmux('paste-buffer', '-p', '-d', '-b', 'paste', '-t', 'hermes');
    },
    async waitFor(pattern, from = 0) {
      const deadline = Date.now() + scaledTimeout(20_000);
      for (;;) {
        const text = await screen();
        if (pattern.test(text.slice(from))) return text;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; screen:\n${text}`);
        if ((await exitStatus()) !== null) {
          const last = await screen();
          if (pattern.test(last.slice(from))) return last;
          throw new Error(`hermes exited waiting for ${pattern}; screen:\n${last}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    bytesWritten: () => readFileSync(log).length,
    exitStatus,
    async exited() {
      const deadline = Date.now() + scaledTimeout(20_000);
      for (;;) {
        const status = await exitStatus();
        if (status !== null) return status;
        if (Date.now() > deadline) throw new Error(`hermes did not exit; screen:\n${await screen()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async close() {
      await tmux('kill-server').catch(() => undefined);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
