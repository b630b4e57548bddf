import { HermesError } from '../core/errors.js';
import { routeReasoningReads, type RouteReasoningReads } from '../replay/replay-route-reads.js';
import { routeProfileFor } from '../transports/transport-route-profile.js';
import {
  answerRevealsSecret,
  PROBE_ASK,
  PROBE_PICK,
  PROBE_TOOL_LOOP_ASK,
  PROBE_WARM_UPS,
  secretInAnswer,
  secretInReasoning,
} from './probe-prompts.js';
import type {
  ProbeConversation,
  ProbeEnvironment,
  ProbeReport,
  ProbeScenario,
  ProbeTurn,
  ProbeUsage,
  ProbeWayIn,
} from './probe-types.js';
import { PROBE_SCENARIOS } from './probe-types.js';
import { judgeScenarios, overallVerdict, type ScenarioOutcome } from './probe-verdicts.js';

/**
 * The hidden-number probe (SPEC §26.5) on one way in: two warm-up turns, the pick (a secret
 * number chosen in the model's private reasoning), then each scenario asks for the number in a
 * copy of its own, so no scenario sees another's answer: `tool-loop` (the model calls the probe's
 * tool first), `compaction` (the copy compacted, the pick in the kept tail), `branch` (a branch as
 * a user makes one) and, last, `resume` (the conversation itself, continued from a fresh start).
 * They run one after another: at a door the copies share the gateway's mirrored session, and its
 * order of turns must not depend on timing.
 */

/** What the probe tells its caller while it runs. */
export type ProbeProgress = (line: string) => void;

/** The route's reads under the user's route rows, and under the built-in table alone. */
export function probeRouteReads(environment: Pick<ProbeEnvironment, 'route' | 'settings'>): {
  reads: RouteReasoningReads;
  builtIn: RouteReasoningReads;
} {
  const { route } = environment.route;
  const echoOptIn = environment.settings.echoOptIn;
  return {
    reads: routeReasoningReads(routeProfileFor(route, { overrides: environment.settings.routeOverrides, echoOptIn })),
    builtIn: routeReasoningReads(routeProfileFor(route, { echoOptIn })),
  };
}

/** Runs the probe through `way` on the environment's route. */
export async function runContinuityProbe(
  way: ProbeWayIn,
  environment: ProbeEnvironment,
  progress: ProbeProgress = () => undefined,
): Promise<ProbeReport> {
  const usage: ProbeUsage = { input: 0, output: 0, requests: 0 };
  const add = <T extends { usage: ProbeUsage }>(value: T): T => {
    usage.input += value.usage.input;
    usage.output += value.usage.output;
    usage.requests += value.usage.requests;
    return value;
  };
  const opened = await way.open(environment);
  try {
    let base: ProbeConversation;
    let pick: ProbeTurn;
    try {
      base = await opened.start();
      for (const [index, text] of PROBE_WARM_UPS.entries()) {
        progress(`warm-up ${index + 1} of ${PROBE_WARM_UPS.length}`);
        add(await base.turn(text));
      }
      progress('pick: the model chooses a secret number in its reasoning');
      pick = add(await base.turn(PROBE_PICK));
    } catch (error) {
      return failedReport(
        `the conversation before the scenarios failed: ${oneLine(error)}`,
        usage,
        opened.sessionIds(),
      );
    }
    const reference = secretInReasoning(pick.reasoning);
    if (answerRevealsSecret(pick.answer, reference)) {
      const detail = 'the model wrote the number in its visible answer, so no scenario can tell what came back';
      return failedReport(detail, usage, opened.sessionIds());
    }
    const ask = async (name: ProbeScenario, run: () => Promise<ProbeTurn>): Promise<ScenarioOutcome> => {
      progress(`${name}: asking for the number`);
      try {
        return { answer: secretInAnswer(add(await run()).answer) };
      } catch (error) {
        return { error: oneLine(error) };
      }
    };
    const toolLoop = await ask('tool-loop', async () => (await base.fork()).turn(PROBE_TOOL_LOOP_ASK));
    const compaction = await ask('compaction', async () => {
      const compacted = add(await (await base.fork()).compact());
      return compacted.conversation.turn(PROBE_ASK);
    });
    const branch = await ask('branch', async () => (await base.branch()).turn(PROBE_ASK));
    // Last: it continues the pick's own conversation.
    const resume = await ask('resume', async () => (await base.resume()).turn(PROBE_ASK));
    const outcomes = { 'tool-loop': toolLoop, resume, compaction, branch };
    const scenarios = judgeScenarios({ reference, outcomes, ...probeRouteReads(environment) });
    return { verdict: overallVerdict(scenarios), scenarios, usage, sessionIds: opened.sessionIds() };
  } finally {
    await opened.close();
  }
}

/** Every scenario `error` with the same detail. */
function failedReport(detail: string, usage: ProbeUsage, sessionIds: string[]): ProbeReport {
  return {
    verdict: 'error',
    scenarios: PROBE_SCENARIOS.map((name) => ({ name, verdict: 'error', detail })),
    usage,
    sessionIds,
  };
}

/** An error's message on one line (a typed error's own message, else its text). */
export function oneLine(error: unknown): string {
  const text = error instanceof HermesError || error instanceof Error ? error.message : String(error);
  return (text.split('\n')[0] ?? '').trim() || 'failed without a message';
}
