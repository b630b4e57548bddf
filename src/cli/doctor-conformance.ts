import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '../logging/logger.js';
import { probeAcpAgents, type ProbeAcpAgents } from '../probe/probe-acp-agents.js';
import { inProcessFreshStart } from '../probe/probe-fresh-start.js';
import { probeRouteReads, runContinuityProbe } from '../probe/probe-run.js';
import type { ProbeReport, ProbeWayIn } from '../probe/probe-types.js';
import { PROBE_WAYS_IN } from '../probe/probe-ways.js';
import { describeReasoningReads } from '../replay/replay-route-reads.js';
import { openSessionStore } from '../storage/store-open.js';
import { printJson } from './cli-output.js';
import { startInProcessEmulator } from './cli-emulator-start.js';
import { acpPromptLimitMs } from './doctor-continuity-acp.js';
import {
  CONFORMANCE_ROUTES,
  type ConformanceMatrix,
  type ConformanceRoute,
  type ConformanceRow,
} from './doctor-conformance-routes.js';
import { renderConformanceDocument } from './doctor-conformance-render.js';

/**
 * The conformance matrix (SPEC §26.5, `docs/conformance.md`): the continuity probe over every
 * route of {@link CONFORMANCE_ROUTES} and every way in, each probe in a state.db of its own
 * against an in-process emulator. Probes wait on loopback HTTP most of the time, so several run
 * at once in this process; each probe's `resume` reopens its store and starts a fresh runtime or
 * gateway (in this process: `hermes doctor --probe continuity` itself uses a new process).
 */

/** Options of {@link runConformanceMatrix}. */
export interface ConformanceOptions {
  routes?: readonly ConformanceRoute[];
  ways?: readonly ProbeWayIn[];
  /** Probes running at once (default 6). */
  concurrency?: number;
  /** Called after each probe. */
  progress?: (done: number, total: number) => void;
}

/** Runs every probe of the matrix. */
export async function runConformanceMatrix(options: ConformanceOptions = {}): Promise<ConformanceMatrix> {
  const routes = options.routes ?? CONFORMANCE_ROUTES;
  const ways = options.ways ?? PROBE_WAYS_IN;
  const rows: ConformanceRow[] = routes.map((route) => ({ route, api: '', reads: '', cells: {} }));
  const jobs = rows.flatMap((row) => ways.map((way) => ({ row, way })));
  const agents = sharedAgents();
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    for (let job = jobs[next++]; job !== undefined; job = jobs[next++]) {
      job.row.cells[job.way.name] = await probeOne(job.row, job.way, agents);
      done += 1;
      options.progress?.(done, jobs.length);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 6) }, worker));
  } finally {
    await agents.agents.close();
    rmSync(agents.home, { recursive: true, force: true });
  }
  return { ways: ways.map(({ name, label }) => ({ name, label })), rows };
}

/**
 * The `hermes acp` processes of every ACP probe: one pair for the whole matrix (a process start
 * costs more than a probe), on one home all their probes share; started on first use.
 */
function sharedAgents(): { home: string; agents: ProbeAcpAgents } {
  const home = mkdtempSync(join(tmpdir(), 'hermes-conformance-acp-'));
  const env: NodeJS.ProcessEnv = { ...process.env, HERMES_HOME: home };
  // The store is the home's state.db, whatever the caller's environment selects.
  delete env['HERMES_DATABASE_URL'];
  const agents = probeAcpAgents({ command: process.execPath, args: [hermesCli()], env }, acpPromptLimitMs(undefined));
  return { home, agents };
}

/** This build's `cli.js` (run from the sources, as by the tests: the build's, `dist/cli.js`). */
function hermesCli(): string {
  const beside = fileURLToPath(new URL('../cli.js', import.meta.url));
  return existsSync(beside) ? beside : fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
}

/**
 * One probe: an emulator, a fresh state.db (the shared one for a way in that runs in agent
 * processes), the probe, and everything removed again.
 */
async function probeOne(
  row: ConformanceRow,
  way: ProbeWayIn,
  shared: { home: string; agents: ProbeAcpAgents },
): Promise<ProbeReport> {
  const home = way.agentProcesses ? shared.home : mkdtempSync(join(tmpdir(), 'hermes-conformance-'));
  const emulator = await startInProcessEmulator(row.route.persona, row.route.model);
  const store = openSessionStore({ home });
  try {
    const base = {
      route: {
        route: emulator.route,
        apiKey: emulator.apiKey,
        connectTo: emulator.connectTo.size > 0 ? emulator.connectTo : undefined,
        sessionRoute: { provider: `emulator:${row.route.persona}`, baseUrl: null },
      },
      settings: {},
      workspace: home,
      logger: silentLogger(),
    };
    row.api = emulator.route.api;
    row.reads = describeReasoningReads(probeRouteReads(base).reads);
    const freshStart = inProcessFreshStart(() => openSessionStore({ home }), base);
    return await runContinuityProbe(way, { ...base, store, freshStart, acpAgents: shared.agents });
  } finally {
    await store.close();
    await emulator.close();
    if (home !== shared.home) rmSync(home, { recursive: true, force: true });
  }
}

/** `hermes doctor --probe continuity --matrix`: runs the matrix and prints the document (or JSON). */
export async function printConformanceMatrix(json: boolean): Promise<void> {
  const showProgress = Boolean(process.stderr.isTTY);
  const matrix = await runConformanceMatrix({
    progress: (done, total) => {
      if (showProgress) process.stderr.write(`\rcontinuity probes: ${done}/${total}`);
    },
  });
  if (showProgress) process.stderr.write('\n');
  if (json) printJson(matrix);
  else process.stdout.write(renderConformanceDocument(matrix).document);
}
