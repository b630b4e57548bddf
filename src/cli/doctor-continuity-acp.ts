import { DEFAULT_TIMEOUTS, type Timeouts } from '../core/timeouts.js';
import { probeAcpAgents, type ProbeAcpAgents } from '../probe/probe-acp-agents.js';
import { PROBE_MAX_ITERATIONS } from '../probe/probe-way-cli.js';
import type { RouteFlags } from '../runtime/runtime-route.js';
import type { CliContext } from './cli-context.js';
import { PROBE_KEY_VARIABLE } from './doctor-continuity-resume.js';

/**
 * The `hermes acp --probe` processes of `--via acp`: this `hermes`, on the same home and store; a
 * `--api-key` value travels in the environment. Each prompt may take the probe's requests.
 */
export function processAcpAgents(flags: RouteFlags, context: Pick<CliContext, 'home' | 'config'>): ProbeAcpAgents {
  const env: NodeJS.ProcessEnv = { ...process.env, HERMES_HOME: context.home };
  if (flags.apiKey !== undefined) env[PROBE_KEY_VARIABLE] = flags.apiKey;
  const command = { command: process.execPath, args: [...process.execArgv, process.argv[1] ?? ''], env };
  return probeAcpAgents(command, acpPromptLimitMs(context.config.timeouts));
}

/** How long one ACP prompt of the probe may take: each of its requests twice the request limit. */
export function acpPromptLimitMs(timeouts: Timeouts | undefined): number {
  return PROBE_MAX_ITERATIONS * 2 * (timeouts?.total ?? DEFAULT_TIMEOUTS.total);
}
