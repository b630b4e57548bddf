import { HermesError } from '../core/errors.js';
import { newSessionId } from '../core/ids.js';
import type { ReasoningOptions } from '../core/reasoning-options.js';
import { runAgentTurn, type TurnResult } from '../runtime/agent-turn.js';
import { compressSession } from '../runtime/compaction-run.js';
import { probeMark } from '../storage/session-probe.js';
import type { NewSession } from '../storage/session-store.js';
import type { Tool } from '../tools/tool-types.js';
import { PROBE_SYSTEM_PROMPT, PROBE_TOOL, PROBE_TOOL_RESULT } from './probe-prompts.js';
import type {
  OpenedWayIn,
  ProbeConversation,
  ProbeEnvironment,
  ProbeRoute,
  ProbeTurn,
  ProbeUsage,
  ProbeWayIn,
} from './probe-types.js';

/**
 * The CLI way in: the probe's conversations are stored sessions run by the runtime, as `hermes
 * chat` runs them; a branch is `hermes sessions branch`, compaction `hermes sessions compress`
 * (the runtime's compaction, kept tail of one turn), and a resume asks from a fresh start.
 */

/** Reasoning on, at a low effort: the probe needs a thought, not a long one (a few cents at most). */
export const PROBE_REASONING: ReasoningOptions = { enabled: true, effort: 'low' };

/** Requests one probe turn may make: the tool call, its answer, one recovery retry each. */
export const PROBE_MAX_ITERATIONS = 4;

/** The probe's tool as the runtime runs it: no approval, nothing touched. */
export const PROBE_RUNTIME_TOOL: Tool = {
  definition: PROBE_TOOL,
  needsApproval: false,
  run: async () => PROBE_TOOL_RESULT,
};

/** The usage of a runtime turn, in the probe's terms. */
export function turnUsage(result: Pick<TurnResult, 'usage' | 'iterations'>): ProbeUsage {
  return { input: result.usage.input_tokens, output: result.usage.output_tokens, requests: result.iterations };
}

/** What a probe session is stored with: its title, the route, and the probe mark. */
export function probeSessionFields(route: ProbeRoute, wayIn: string): Omit<NewSession, 'id'> {
  return {
    title: `continuity probe (${route.route.provider} ${route.route.model})`,
    provider: route.sessionRoute?.provider ?? route.route.provider,
    model: route.route.model,
    baseUrl: route.sessionRoute ? null : (route.route.baseUrl ?? null),
    api: route.route.api,
    modelConfig: probeMark(wayIn),
  };
}

/**
 * A stored probe session compacted as `hermes sessions compress` does it (the runtime's
 * compaction, a kept tail of one turn: the pick); the session the conversation continues in.
 */
export async function compactProbeSession(
  environment: Pick<ProbeEnvironment, 'store' | 'route' | 'settings'>,
  sessionId: string,
): Promise<string> {
  const outcome = await compressSession(
    {
      store: environment.store,
      sessionId,
      route: environment.route.route,
      apiKey: environment.route.apiKey,
      connectTo: environment.route.connectTo,
      timeouts: environment.settings.timeouts,
      reasoning: { enabled: false },
      routeOverrides: environment.settings.routeOverrides ?? [],
      echoOptIn: environment.settings.echoOptIn ?? false,
      // The pick is the last turn: keep that one turn, summarise the warm-ups before it.
      compaction: { ...(environment.settings.compaction ?? { threshold: 0.8 }), keepTurns: 1, tail: 'turns' },
    },
    () => undefined,
    true,
  );
  if (outcome.summarisedMessages === 0) throw new HermesError(outcome.message);
  return outcome.childSessionId ?? sessionId;
}

/** Runs one probe turn on a stored session (creating it with the probe mark when `create`). */
export async function runProbeTurn(
  environment: Pick<ProbeEnvironment, 'store' | 'route' | 'settings' | 'workspace' | 'logger'>,
  sessionId: string,
  text: string,
  create?: { wayIn: string },
): Promise<ProbeTurn> {
  const { route, settings } = environment;
  const result = await runAgentTurn(text, {
    store: environment.store,
    sessionId,
    route: route.route,
    apiKey: route.apiKey,
    connectTo: route.connectTo,
    sessionRoute: route.sessionRoute,
    reasoning: PROBE_REASONING,
    routeOverrides: settings.routeOverrides ?? [],
    echoOptIn: settings.echoOptIn ?? false,
    timeouts: settings.timeouts,
    workspace: environment.workspace,
    approve: async () => false,
    logger: environment.logger,
    leaseOwner: 'hermes doctor',
    maxIterations: PROBE_MAX_ITERATIONS,
    tools: [PROBE_RUNTIME_TOOL],
    systemPrompt: PROBE_SYSTEM_PROMPT,
    newSession: create ? probeSessionFields(route, create.wayIn) : undefined,
  });
  if (result.stoppedAtCap) throw new HermesError(`no final answer after ${PROBE_MAX_ITERATIONS} requests`);
  return { answer: result.answer, reasoning: result.reasoning, usage: turnUsage(result) };
}

/** `hermes chat`: stored sessions, branched, compacted and resumed by the CLI's own means. */
export const CLI_WAY_IN: ProbeWayIn = {
  name: 'cli',
  label: 'hermes chat',
  async open(environment: ProbeEnvironment): Promise<OpenedWayIn> {
    const sessions: string[] = [];
    const { store } = environment;
    const cannot = (what: string) => () =>
      Promise.reject(new HermesError(`a resumed probe conversation cannot ${what}`));
    const resumed = (sessionId: string): ProbeConversation => ({
      turn: (text) => environment.freshStart.askInSession(sessionId, text),
      fork: cannot('fork'),
      branch: cannot('branch'),
      compact: cannot('compact'),
      resume: async () => resumed(sessionId),
    });
    const stored = (sessionId: string, created: boolean): ProbeConversation => {
      let exists = created;
      return {
        async turn(text) {
          const turn = await runProbeTurn(environment, sessionId, text, exists ? undefined : { wayIn: 'cli' });
          if (!exists) sessions.push(sessionId);
          exists = true;
          return turn;
        },
        async fork() {
          const child = await store.forkSession(sessionId, { title: 'continuity probe (scenario)' });
          sessions.push(child.id);
          return stored(child.id, true);
        },
        async branch() {
          const child = await store.forkSession(sessionId, { title: 'continuity probe (branch)' });
          sessions.push(child.id);
          return stored(child.id, true);
        },
        async compact() {
          const next = await compactProbeSession(environment, sessionId);
          if (next !== sessionId) sessions.push(next);
          return { conversation: stored(next, true), usage: { input: 0, output: 0, requests: 1 } };
        },
        resume: async () => resumed(sessionId),
      };
    };
    return {
      start: async () => stored(newSessionId(), false),
      sessionIds: () => [...sessions],
      close: async () => undefined,
    };
  },
};
