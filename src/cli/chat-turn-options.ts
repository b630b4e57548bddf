import { pinnedEffort, type ReasoningEffort } from '../core/reasoning-options.js';
import type { AgentTurnOptions } from '../runtime/agent-turn.js';
import type { SessionRecord } from '../storage/session-store.js';
import type { CliContext } from './cli-context.js';
import type { OpenedRoute } from './cli-route.js';
import type { StartedMcp } from './cli-mcp.js';
import { WORKSPACE_KEY } from './chat-session-select.js';

/** What a command that runs agent turns decided about a session (`hermes chat`, `hermes acp`). */
export interface ChatTurnSetup {
  /** The stored session the turns continue, or null for a new one (stored with its first message). */
  session: SessionRecord | null;
  /** The id a new session is stored under. */
  sessionId: string;
  workspace: string;
  opened: OpenedRoute;
  mcp: StartedMcp;
  /** The system prompt a new session stores; undefined for a session that has messages. */
  systemPrompt: string | undefined;
  /** Names this process to another that finds the session busy (`hermes chat`, `hermes acp`). */
  leaseOwner: string;
  flags: { reasoning?: boolean; stream?: boolean };
  /** `--effort`: wins over `reasoning_overrides` for every model. */
  effort?: ReasoningEffort | undefined;
}

/**
 * The options of every turn of a chat session, from config.yaml and the command's flags (the
 * parts a turn adds itself — approval, abort signal, progress — are the caller's).
 */
export function chatTurnOptions(
  context: CliContext,
  setup: ChatTurnSetup,
): Omit<AgentTurnOptions, 'approve' | 'signal' | 'onEvent'> {
  const { session, opened, workspace } = setup;
  const { route, sessionRoute } = opened;
  return {
    store: context.store(),
    // A new session is stored with its first message (runAgentTurn creates it), never empty.
    sessionId: session?.id ?? setup.sessionId,
    newSession: session
      ? undefined
      : {
          provider: sessionRoute?.provider ?? route.provider,
          model: route.model,
          baseUrl: sessionRoute ? null : (route.baseUrl ?? null),
          api: route.api,
          modelConfig: { [WORKSPACE_KEY]: workspace },
        },
    route,
    apiKey: opened.apiKey,
    reasoning: {
      enabled: setup.flags.reasoning !== false && context.config.reasoning.enabled,
      effort: setup.effort ?? context.config.reasoning.effort,
      budgetTokens: context.config.reasoning.budgetTokens,
    },
    reasoningOverrides: pinnedEffort(context.config.reasoningOverrides, setup.effort),
    echoOptIn: context.config.reasoningEcho,
    routeOverrides: context.config.routes,
    workspace,
    leaseOwner: setup.leaseOwner,
    logger: context.logger(),
    maxIterations: context.config.maxIterations,
    compaction: context.config.compaction,
    timeouts: context.config.timeouts,
    sessionRoute,
    connectTo: opened.connectTo,
    stream: setup.flags.stream !== false,
    systemPrompt: setup.systemPrompt,
    ...(setup.mcp.tools ? { tools: setup.mcp.tools } : {}),
  };
}
