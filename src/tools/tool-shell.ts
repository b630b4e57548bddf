import { spawn } from 'node:child_process';
import { MAX_TOOL_OUTPUT, seconds } from './tool-limits.js';
import { ShellProcesses } from './tool-shell-processes.js';
import { integerArgument, stringArgument, ToolError, type Tool } from './tool-types.js';

/** Default time a shell command may run (seconds). */
export const SHELL_TIMEOUT_SECONDS = 120;
/** Longest time a call may ask for (seconds). */
export const MAX_SHELL_TIMEOUT_SECONDS = 600;
/**
 * Time the output pipes get to close once the shell exited. A command that leaves a background
 * process (`server &`) keeps them open; the result is returned without waiting for it.
 */
const PIPE_GRACE_MS = 1_000;

/**
 * Keeps the first and the last half of {@link MAX_TOOL_OUTPUT} characters of a stream of
 * output, so memory stays bounded however much a command prints, and counts what was cut.
 */
class OutputKeeper {
  private head = '';
  private tail = '';
  private total = 0;
  private readonly half = Math.floor(MAX_TOOL_OUTPUT / 2);

  add(chunk: string): void {
    this.total += chunk.length;
    if (this.head.length < this.half) {
      const room = this.half - this.head.length;
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
    }
    if (!chunk) return;
    this.tail += chunk;
    if (this.tail.length > 2 * this.half) this.tail = this.tail.slice(-this.half);
  }

  text(): string {
    const tail = this.tail.length > this.half ? this.tail.slice(-this.half) : this.tail;
    const cut = this.total - this.head.length - tail.length;
    if (cut <= 0) return this.head + tail;
    return `${this.head}\n[… ${cut} characters of output cut from the middle of ${this.total} …]\n${tail}`;
  }
}

/**
 * The status trailer a result ends with when the command did not succeed: a non-zero exit code,
 * a signal, a timeout or an interruption (`[exit code 1]`, `[killed by SIGTERM]`, `[timed out
 * after 30 s: …]`, `[interrupted by the user: …]`), then its note lines, if any.
 */
const FAILED_STATUS =
  /\n?\[(?:exit code [1-9]\d*|killed by [A-Z0-9]+|timed out after [^\]\n]*|interrupted by [^\]\n]*)\](?:\n\[[^\]\n]*\])*\s*$/;

/** Whether a `run_shell` result reports a command that did not succeed (its status trailer). */
export function shellCommandFailed(content: string): boolean {
  return FAILED_STATUS.test(content.slice(-400));
}

/** `run_shell {command, timeout_seconds?}` (needs approval): `sh -c` in the workspace, output and exit code returned. */
export const runShellTool: Tool = {
  definition: {
    name: 'run_shell',
    description:
      'Run a shell command (sh -c) in the workspace directory; returns its output (stdout and stderr together) ' +
      `and exit code. Stopped after timeout_seconds (default ${SHELL_TIMEOUT_SECONDS}, at most ` +
      `${MAX_SHELL_TIMEOUT_SECONDS}) together with every process it started. Output over ` +
      `${MAX_TOOL_OUTPUT / 1024} KiB keeps its first and last ${MAX_TOOL_OUTPUT / 2048} KiB. No input is given ` +
      '(stdin is closed), so interactive commands fail. Processes it starts in the background (`cmd &`, ' +
      '`setsid`, `nohup`) keep running until the turn ends, then they are stopped.',
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'string' },
        timeout_seconds: {
          type: 'integer',
          description: `Seconds before the command is stopped (default ${SHELL_TIMEOUT_SECONDS}, at most ${MAX_SHELL_TIMEOUT_SECONDS}).`,
        },
      },
      required: ['command'],
      additionalProperties: false,
    },
  },
  needsApproval: true,
  failed: shellCommandFailed,
  deadlineMs: (MAX_SHELL_TIMEOUT_SECONDS + 15) * 1000,
  async preview(args) {
    return { summary: `run: ${stringArgument(args, 'command')}` };
  },
  run(args, context) {
    const command = stringArgument(args, 'command');
    const timeoutMs =
      integerArgument(args, 'timeout_seconds', {
        fallback: SHELL_TIMEOUT_SECONDS,
        minimum: 1,
        maximum: MAX_SHELL_TIMEOUT_SECONDS,
      }) * 1000;
    // The turn's processes when the call runs in a turn; its own (ended when it returns) otherwise.
    const processes = context.processes ?? new ShellProcesses();
    const { marker, environment } = processes.startCall();
    return new Promise((resolve, reject) => {
      // A process group of its own, so a timeout or Ctrl-C stops the command's children too;
      // the marker in its environment finds those that left the group (tool-shell-processes.ts).
      const child = spawn('sh', ['-c', command], {
        cwd: context.workspace,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
        env: environment,
      });
      processes.trackGroup(marker, child.pid);
      const output = new OutputKeeper();
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => output.add(chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => output.add(chunk));
      let stopped: string | null = null;
      const timers: NodeJS.Timeout[] = [];
      const stop = (why: string) => {
        if (stopped) return;
        stopped = why;
        void processes.end(marker);
      };
      timers.push(setTimeout(() => stop(`timed out after ${seconds(timeoutMs)}`), timeoutMs));
      const onAbort = () => stop('interrupted by the user');
      if (context.signal?.aborted) onAbort();
      else context.signal?.addEventListener('abort', onAbort, { once: true });
      let settled = false;
      const finish = (code: number | null, signal: NodeJS.Signals | null, note?: string) => {
        if (settled) return;
        settled = true;
        timers.forEach(clearTimeout);
        context.signal?.removeEventListener('abort', onAbort);
        const text = output.text();
        const status = stopped
          ? `${stopped}: the command and every process it started were stopped`
          : signal
            ? `killed by ${signal}`
            : `exit code ${code}`;
        // A stopped command's processes are all ended (its status says so) before the result.
        const left = stopped
          ? processes.end(marker).then(() => '')
          : backgroundNote(processes, marker, context.processes !== undefined);
        void left.then((left) => {
          const notes = [note, left].filter(Boolean).map((line) => `\n[${line}]`);
          resolve(`${text}${text.endsWith('\n') || !text ? '' : '\n'}[${status}]${notes.join('')}`);
        });
      };
      child.on('error', (error) => {
        if (settled) return;
        settled = true;
        timers.forEach(clearTimeout);
        context.signal?.removeEventListener('abort', onAbort);
        void processes.end(marker);
        reject(new ToolError(`could not run the command: ${error.message}`));
      });
      child.on('close', (code, signal) => finish(code, signal));
      child.on('exit', (code, signal) => {
        if (settled) return;
        timers.push(
          setTimeout(() => {
            child.stdout.destroy();
            child.stderr.destroy();
            finish(code, signal, 'processes it left in the background still hold its output; not waited for');
          }, PIPE_GRACE_MS),
        );
      });
    });
  },
};

/**
 * What became of the processes a finished command left running: in a turn they keep running
 * until the turn ends (`keep`), and the model is told their pids; outside a turn they are
 * stopped now. Empty when none is left.
 */
async function backgroundNote(processes: ShellProcesses, marker: string, keep: boolean): Promise<string> {
  const left = await processes.running(marker);
  if (!left.length) return '';
  const count = `${left.length} process${left.length === 1 ? '' : 'es'}`;
  if (keep) {
    return `${count} it started still run${left.length === 1 ? 's' : ''} in the background (pid ${left.join(', ')}); they are stopped when this turn ends`;
  }
  await processes.end(marker);
  return `${count} it left running in the background ${left.length === 1 ? 'was' : 'were'} stopped`;
}
