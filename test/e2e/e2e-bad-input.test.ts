import { describe, expect, it } from 'vitest';
import { runHermes, useE2e } from '../support/e2e.js';

/**
 * Bad input through the real CLI (issue: "bad input gets a clear one-line error"): an unknown
 * session id on any command is a usage error (exit 2) with one line naming the id and what to do
 * next — never a stack trace — and nothing is written to stdout.
 */

const e2e = useE2e();

const UNKNOWN_SESSION_COMMANDS: string[][] = [
  ['sessions', 'show', 'nope'],
  ['sessions', 'show', 'nope', '--json'],
  ['sessions', 'export', 'nope'],
  ['sessions', 'delete', 'nope'],
  ['sessions', 'rename', 'nope', 'title'],
  ['sessions', 'branch', 'nope'],
  ['sessions', 'compress', 'nope'],
  ['chat', '-q', 'hi', '--resume', 'nope', '--provider', 'emulator:openrouter'],
  ['replay', 'preview', '--session', 'nope'],
];

describe('unknown session ids on every command', () => {
  it.each(UNKNOWN_SESSION_COMMANDS.map((args) => ({ command: args.join(' '), args })))(
    'hermes $command',
    async ({ args }) => {
      const sandbox = e2e.sandbox();
      const run = await runHermes(args, sandbox);
      expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({
        code: 2,
        stdout: '',
        stderr: 'hermes: no session "nope" (see hermes sessions list)\n',
      });
    },
  );
});
