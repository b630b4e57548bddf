import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../logging/logger.js';
import { inProcessFreshStart } from '../probe/probe-fresh-start.js';
import { probeRouteReads, runContinuityProbe } from '../probe/probe-run.js';
import type { ProbeReport, ProbeWayIn } from '../probe/probe-types.js';
import { PROBE_WAYS_IN } from '../probe/probe-ways.js';
import { describeReasoningReads } from '../replay/replay-route-reads.js';
import { openSessionStore } from '../storage/store-open.js';
import { printJson } from './cli-output.js';
import { startInProcessEmulator } from './cli-emulator-start.js';
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
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    for (let job = jobs[next++]; job !== undefined; job = jobs[next++]) {
      job.row.cells[job.way.name] = await probeOne(job.row, job.way);
      done += 1;
      options.progress?.(done, jobs.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 6) }, worker));
  return { ways: ways.map(({ name, label }) => ({ name, label })), rows };
}

/** One probe: an emulator, a fresh state.db, the probe, and everything removed again. */
async function probeOne(row: ConformanceRow, way: ProbeWayIn): Promise<ProbeReport> {
  const home = mkdtempSync(join(tmpdir(), 'hermes-conformance-'));
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
    return await runContinuityProbe(way, { ...base, store, freshStart });
  } finally {
    await store.close();
    await emulator.close();
    rmSync(home, { recursive: true, force: true });
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
