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

describe('a route that cannot authenticate is refused before anything is stored', () => {
  it('--provider bedrock without AWS credentials: exit 2 up front, one line, no session', async () => {
    const sandbox = e2e.sandbox();
    // No AWS variables, an empty home (no ~/.aws files) and no instance metadata lookup.
    const env: Record<string, string> = {
      HOME: sandbox.home,
      AWS_ACCESS_KEY_ID: '',
      AWS_SECRET_ACCESS_KEY: '',
      AWS_SESSION_TOKEN: '',
      AWS_PROFILE: '',
      AWS_BEARER_TOKEN_BEDROCK: '',
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_REGION: 'us-east-1',
    };
    const run = await runHermes(
      ['chat', '-q', 'hello', '--provider', 'bedrock', '--model', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0'],
      sandbox,
      env,
    );
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: '' });
    expect(run.stderr).toBe(
      'hermes: no AWS credentials for bedrock: set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or pass a Bedrock API key with --api-key\n',
    );
    const listed = await runHermes(['sessions', 'list', '--json'], sandbox);
    expect(JSON.parse(listed.stdout)).toEqual([]);
  });
});
