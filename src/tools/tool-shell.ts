import { spawn } from 'node:child_process';
import { limitOutput } from './tool-files.js';
import { stringArgument, ToolError, type Tool } from './tool-types.js';

/** Longest a shell command may run. */
export const SHELL_TIMEOUT_MS = 120_000;

/** `run_shell {command}` (needs approval): runs in the workspace with `sh -c`, output and exit code returned. */
export const runShellTool: Tool = {
  definition: {
    name: 'run_shell',
    description: 'Run a shell command in the workspace directory; returns its output and exit code.',
    parameters: {
      type: 'object',
      properties: { command: { type: 'string' } },
      required: ['command'],
      additionalProperties: false,
    },
  },
  needsApproval: true,
  run(args, context) {
    const command = stringArgument(args, 'command');
    return new Promise((resolve, reject) => {
      const child = spawn('sh', ['-c', command], { cwd: context.workspace, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      const append = (chunk: Buffer) => {
        if (output.length < 4 * 1024 * 1024) output += chunk.toString('utf8');
      };
      child.stdout.on('data', append);
      child.stderr.on('data', append);
      const timer = setTimeout(() => child.kill('SIGKILL'), SHELL_TIMEOUT_MS);
      const onAbort = () => child.kill('SIGKILL');
      context.signal?.addEventListener('abort', onAbort, { once: true });
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(new ToolError(`could not run the command: ${error.message}`));
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        context.signal?.removeEventListener('abort', onAbort);
        const status = signal ? `killed by ${signal}` : `exit code ${code}`;
        resolve(limitOutput(`${output}${output.endsWith('\n') || !output ? '' : '\n'}[${status}]`));
      });
    });
  },
};
