import { spawn } from 'node:child_process';
import { HermesError, UsageError } from '../core/errors.js';
import { isJsonObject } from '../core/json.js';
import { PROBE_ASK } from '../probe/probe-prompts.js';
import type { FreshStart, ProbeTurn } from '../probe/probe-types.js';
import { runProbeTurn } from '../probe/probe-way-cli.js';
import type { RouteFlags } from '../runtime/runtime-route.js';
import { isProbeSession } from '../storage/session-probe.js';
import type { SessionStore } from '../storage/session-store.js';
import type { CliContext } from './cli-context.js';
import { printJson } from './cli-output.js';

/**
 * The `resume` scenario of `hermes doctor --probe continuity` on the CLI way in: the question is
 * asked by a new `hermes` process (`hermes doctor --probe-resume SESSION`, hidden), which knows
 * nothing but what the store and the route hand it, exactly as `hermes chat --resume` does. An
 * API key given with `--api-key` reaches it in the environment, never on its command line.
 */

/** Where the parent hands a `--api-key` value to a child process (this one, `hermes acp --probe`). */
export const PROBE_KEY_VARIABLE = 'HERMES_PROBE_API_KEY';

/** The fresh start of `hermes doctor`: the CLI's question from a new process, the doors' store opened anew. */
export function processFreshStart(flags: RouteFlags, openStore: () => SessionStore): FreshStart {
  return { askInSession: (sessionId) => askFromNewProcess(sessionId, flags), openStore: async () => openStore() };
}

function askFromNewProcess(sessionId: string, flags: RouteFlags): Promise<ProbeTurn> {
  const args = [...process.execArgv, process.argv[1] ?? '', 'doctor', '--probe-resume', sessionId];
  for (const [flag, value] of [
    ['--provider', flags.provider],
    ['--model', flags.model],
    ['--base-url', flags.baseUrl],
    ['--api', flags.api],
  ] as const) {
    if (value !== undefined) args.push(flag, value);
  }
  const env = { ...process.env };
  if (flags.apiKey !== undefined) env[PROBE_KEY_VARIABLE] = flags.apiKey;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('error', (error) => reject(new HermesError(`could not start a new hermes process: ${error.message}`)));
    child.once('close', (code) => {
      const stderr = Buffer.concat(err).toString('utf8').trim();
      if (code !== 0) {
        const lines = stderr.split('\n').filter((line) => line.startsWith('hermes: '));
        const last = lines[lines.length - 1]?.slice('hermes: '.length) ?? `exit code ${String(code)}`;
        reject(new HermesError(`the resumed process failed: ${last}`));
        return;
      }
      try {
        const parsed = JSON.parse(Buffer.concat(out).toString('utf8')) as unknown;
        if (!isJsonObject(parsed) || typeof parsed['answer'] !== 'string') throw new Error('no answer');
        resolve(parsed as unknown as ProbeTurn);
      } catch {
        reject(new HermesError('the resumed process printed no answer'));
      }
    });
  });
}

/** The child: asks the probe's question in `sessionId` and prints `{answer, reasoning, usage}`. */
export async function runProbeResumeChild(sessionId: string, flags: RouteFlags, context: CliContext): Promise<void> {
  const store = context.store();
  const session = await store.getSession(sessionId);
  if (!session || !isProbeSession(session)) throw new UsageError(`no probe session "${sessionId}"`);
  const apiKey = process.env[PROBE_KEY_VARIABLE];
  const { openRoute } = await import('./cli-route.js');
  const silent = { write: () => true } as unknown as NodeJS.WritableStream;
  const opened = await openRoute(apiKey === undefined ? flags : { ...flags, apiKey }, context, session, silent);
  try {
    const turn = await runProbeTurn(
      {
        store,
        route: opened,
        settings: {
          routeOverrides: context.config.routes,
          echoOptIn: context.config.reasoningEcho,
          timeouts: context.config.timeouts,
        },
        workspace: process.cwd(),
        logger: context.logger(),
      },
      sessionId,
      PROBE_ASK,
    );
    printJson(turn);
  } finally {
    await opened.close();
  }
}
