import { createInterface } from 'node:readline/promises';
import { redactUrl } from '../core/redact.js';
import { HermesError, UsageError } from '../core/errors.js';
import { describeProbeCost, estimateProbeCost } from '../probe/probe-cost.js';
import { probeRouteReads, runContinuityProbe } from '../probe/probe-run.js';
import type { ProbeReport, ProbeVerdict } from '../probe/probe-types.js';
import { probeWayIn } from '../probe/probe-ways.js';
import { describeReasoningReads } from '../replay/replay-route-reads.js';
import type { RouteFlags } from '../runtime/runtime-route.js';
import { openSessionStore, selectedStoreUrl } from '../storage/store-open.js';
import type { CliContext } from './cli-context.js';
import { printJson, styles, useColor } from './cli-output.js';
import type { OpenedRoute } from './cli-route.js';
import { processAcpAgents } from './doctor-continuity-acp.js';
import { processFreshStart } from './doctor-continuity-resume.js';

/**
 * `hermes doctor --probe continuity` (SPEC §26.5): the hidden-number probe on the configured
 * route (or the route flags), through `hermes chat` or a gateway door (`--via`). Before a real
 * route is sent anything, the estimated cost is printed and confirmed (`--yes` skips the
 * question; without a terminal and without `--yes` it refuses in one line). Exit 0 for `kept`
 * and `not-read`, 1 for `lost` and `error`.
 */

/** Flags of the continuity probe. */
export interface ContinuityFlags extends RouteFlags {
  json?: boolean;
  yes?: boolean;
  via?: string;
}

/** Runs the probe and prints its report; the exit code. */
export async function runContinuityDoctor(flags: ContinuityFlags, context: CliContext): Promise<number> {
  const way = probeWayIn(flags.via ?? 'cli');
  const { openRoute } = await import('./cli-route.js');
  const opened = await openRoute(flags, context, null);
  try {
    const route = {
      provider: opened.sessionRoute?.provider ?? opened.route.provider,
      model: opened.route.model,
      baseUrl: opened.emulator ? opened.emulator.baseUrl : redactUrl(opened.route.baseUrl ?? ''),
      api: opened.route.api,
    };
    if (!opened.emulator && !(await confirmCost(opened, flags))) {
      process.stderr.write('hermes: the continuity probe was not run\n');
      return 1;
    }
    const settings = {
      routeOverrides: context.config.routes,
      echoOptIn: context.config.reasoningEcho,
      timeouts: context.config.timeouts,
      compaction: context.config.compaction,
    };
    const store = context.store();
    const storeUrl = selectedStoreUrl(context.config.storageUrl, process.env);
    const environment = {
      store,
      route: opened,
      settings,
      workspace: process.cwd(),
      logger: context.logger(),
      freshStart: processFreshStart(flags, () => openSessionStore({ url: storeUrl, home: context.home })),
      acpAgents: processAcpAgents(flags, context),
    };
    const showProgress = !flags.json && Boolean(process.stderr.isTTY);
    let report: ProbeReport;
    try {
      report = await runContinuityProbe(way, environment, (line) => {
        if (showProgress) process.stderr.write(`continuity probe: ${line}…\n`);
      });
    } finally {
      await environment.acpAgents.close();
    }
    if (flags.json) {
      printJson({
        route,
        verdict: report.verdict,
        scenarios: report.scenarios.map(({ name, verdict, detail }) => ({ name, verdict, detail })),
      });
    } else {
      const reads = describeReasoningReads(probeRouteReads(environment).reads);
      printReport(report, `${way.label} → ${route.provider} ${route.model} (${route.api}, ${route.baseUrl})`, reads);
    }
    return report.verdict === 'kept' || report.verdict === 'not-read' ? 0 : 1;
  } finally {
    await opened.close();
  }
}

/** Prints the estimate and asks; true to go on. `--yes` answers for the user. */
async function confirmCost(opened: OpenedRoute, flags: ContinuityFlags): Promise<boolean> {
  const estimate = describeProbeCost(estimateProbeCost(opened.route), `${opened.route.provider} ${opened.route.model}`);
  if (flags.yes) {
    if (!flags.json) process.stderr.write(`hermes: ${estimate}\n`);
    return true;
  }
  if (!process.stdin.isTTY) throw new UsageError(`${estimate}: pass --yes to run it without a terminal to ask on`);
  const question = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await question.question(`hermes: ${estimate}. Run it? [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } catch (error) {
    throw new HermesError(`no answer to the question: ${(error as Error).message}`);
  } finally {
    question.close();
  }
}

function printReport(report: ProbeReport, where: string, reads: string): void {
  const style = styles(useColor(process.stdout));
  const paint: Record<ProbeVerdict, (text: string) => string> = {
    kept: style.green,
    'not-read': style.dim,
    lost: style.red,
    error: style.red,
  };
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`continuity probe: ${where}`);
  out(`reasoning sent back: ${reads}`);
  for (const scenario of report.scenarios) {
    out(`  ${scenario.name.padEnd(11)} ${paint[scenario.verdict](scenario.verdict.padEnd(9))} ${scenario.detail}`);
  }
  const { usage } = report;
  out(
    `verdict: ${paint[report.verdict](report.verdict)} (${usage.requests} requests, ` +
      `${usage.input.toLocaleString('en-US')} input and ${usage.output.toLocaleString('en-US')} output tokens)`,
  );
  if (report.sessionIds.length > 0) {
    out(`probe sessions, left out of hermes sessions list: ${report.sessionIds.join(' ')}`);
    out('  (hermes sessions show ID, hermes replay preview --session ID --explain)');
  }
}
