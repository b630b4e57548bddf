import type { Route } from '../core/route.js';
import type { StreamEvent } from '../core/stream-event.js';
import type { Logger } from '../logging/logger.js';
import type { Carrier, RouteOverride, RouteProfile } from '../replay/replay-route-profile.js';
import type { NewSession, SessionStore } from '../storage/session-store.js';
import type { HeldSessionLease } from '../storage/session-lease-hold.js';
import type { ApprovalDecider } from '../tools/tool-registry.js';
import type { ShellProcesses } from '../tools/tool-shell-processes.js';
import type { Tool } from '../tools/tool-types.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { Transport } from '../transports/shared/transport.js';
import { routeProfileFor } from '../transports/transport-route-profile.js';
import type { ReasoningOptions, ReasoningOverrides } from '../core/reasoning-options.js';
import type { CompactionSettings } from './compaction-plan.js';
import type { Timeouts } from '../core/timeouts.js';
import type { WarmHistories } from './runtime-warm-history.js';
import type { TurnObserver } from './runtime-observer.js';

/** Everything one agent turn needs. */
export interface AgentTurnOptions {
  store: SessionStore;
  sessionId: string;
  route: Route;
  apiKey?: string | undefined;
  reasoning: ReasoningOptions;
  /** Per-model reasoning settings (config.yaml `reasoning_overrides`), applied to every request's own model. */
  reasoningOverrides?: ReasoningOverrides | undefined;
  echoOptIn?: boolean;
  routeOverrides?: readonly RouteOverride[];
  workspace: string;
  approve: ApprovalDecider;
  logger: Logger;
  /** Tool-loop iterations before the turn stops (default 25). */
  maxIterations?: number;
  stream?: boolean;
  tools?: readonly Tool[];
  /**
   * Tools the client runs itself (the gateway's front doors): offered to the model exactly as
   * given instead of {@link tools}' definitions. Their calls go back to the client; nothing here
   * runs them.
   */
  clientTools?: readonly ToolDefinition[] | undefined;
  /** The processes the turn's `run_shell` calls start (made by `runAgentTurn`, ended when the turn ends). */
  shellProcesses?: ShellProcesses | undefined;
  signal?: AbortSignal | undefined;
  /** Test seam: the transport for an API. */
  transportFor?: (api: Route['api']) => Transport;
  /**
   * A `fetch` every provider request of the turn goes through instead of the pooled HTTP client
   * (`TransportRequest.fetch`). Default: the pooled client.
   */
  fetch?: typeof globalThis.fetch | undefined;
  /** Origin mapping of every provider request (`TransportRequest.connectTo`: `HERMES_CONNECT_TO`, in-process emulators). */
  connectTo?: ReadonlyMap<string, string> | undefined;
  /** Time limits of each provider request (config.yaml `timeouts`; default `DEFAULT_TIMEOUTS`). */
  timeouts?: Timeouts | undefined;
  /** What the session record stores as its route when it differs from `route` (in-process emulators store `emulator:PERSONA`, no URL). */
  sessionRoute?: { provider: string; baseUrl: string | null } | undefined;
  /** Automatic compaction (SPEC §16); without a context window it never triggers. */
  compaction?: CompactionSettings | undefined;
  /** Live progress for renderers (stream events plus tool results). */
  onEvent?: (event: AgentEvent) => void;
  /** Told about every provider request (metrics, traces: `runtime-observer.ts`). */
  observer?: TurnObserver | undefined;
  /**
   * A session lease the caller already took for this turn (SPEC §23.6). Without it the turn
   * takes its own with its first write and releases it with its last (runtime-turn-start.ts).
   */
  lease?: HeldSessionLease | undefined;
  /** Names this process to another that finds the session busy (default `hermes`). */
  leaseOwner?: string | undefined;
  /**
   * The client's key for this turn (`Idempotency-Key`): sent again after a lost answer, the turn
   * is answered from the store or continued, never stored twice (see `runtime-turn-key.ts`).
   */
  turnKey?: string | undefined;
  /**
   * Stored as the session's first message when the session has none yet, so every later request
   * (a resume included) sends the same bytes. A session that has messages keeps its own.
   */
  systemPrompt?: string | undefined;
  /**
   * When `sessionId` names no stored session yet, the turn creates it with these fields (and
   * that id) in the write that stores its first message, so no session is ever stored empty.
   */
  newSession?: Omit<NewSession, 'id'> | undefined;
  /**
   * A turn its `signal` interrupted takes back what it stored, still under its lease: the
   * session when this turn created it, else its question and every later message (marked
   * undone, as `/undo` does). The gateway sets it: a client that went away holds none of it.
   * Without it (the CLI) the question stays, unanswered, for `--resume` to retry.
   */
  takeBackWhenInterrupted?: boolean | undefined;
  /**
   * The process's warm session histories (`runtime-warm-history.ts`): a current copy spares
   * reading every message of the session; without it each turn reads the whole session.
   */
  warmHistories?: WarmHistories | undefined;
}

/** Progress events a renderer can show. */
export type AgentEvent =
  | StreamEvent
  | { type: 'tool-result'; id: string; name: string; content: string; isError: boolean }
  | { type: 'verdict-learned'; routeKey: string; fields: Carrier[] }
  | { type: 'recovery'; message: string }
  | { type: 'request-sent'; routeKey: string; attempt: number }
  /** Progress of a compaction (`compacting: summarising part 2 of 5…`). */
  | { type: 'compacting'; message: string }
  /** A compaction finished: `to` is `from` in place, the child session otherwise. */
  | { type: 'compacted'; from: string; to: string; message: string }
  /** The user message is stored: from here on a failed turn keeps it. */
  | { type: 'user-stored'; sessionId: string };

/** What a route's profile is resolved from, besides the route rows (compared field by field). */
type ProfileInputs = readonly [
  api: string,
  provider: string,
  model: string,
  baseUrl: string | undefined,
  echoOptIn: boolean | undefined,
  nousInferenceBaseUrl: string | undefined,
];

/** The last profile each route object resolved to, with what it was resolved from. */
const resolvedProfiles = new WeakMap<Route, { inputs: ProfileInputs; overrides: unknown; profile: RouteProfile }>();

/**
 * The profile of the turn's route (SPEC §3–§12) under the user's route rows and echo opt-in,
 * resolved once per turn and carried by every request of it. A process that runs many turns on
 * one route (the gateway) reuses the profile while the route's fields, the override rows (the
 * same list) and the echo opt-in are unchanged: the profile is a pure function of them.
 */
export function turnRouteProfile(
  options: Pick<AgentTurnOptions, 'route' | 'routeOverrides' | 'echoOptIn'>,
): RouteProfile {
  const nousInferenceBaseUrl = process.env['NOUS_INFERENCE_BASE_URL'];
  const { route } = options;
  const inputs: ProfileInputs = [
    route.api,
    route.provider,
    route.model,
    route.baseUrl,
    options.echoOptIn,
    nousInferenceBaseUrl,
  ];
  const cached = resolvedProfiles.get(route);
  if (
    cached &&
    cached.overrides === options.routeOverrides &&
    cached.inputs.every((value, index) => value === inputs[index])
  ) {
    return cached.profile;
  }
  const profile = routeProfileFor(route, {
    overrides: options.routeOverrides,
    echoOptIn: options.echoOptIn,
    nousInferenceBaseUrl,
  });
  resolvedProfiles.set(route, { inputs, overrides: options.routeOverrides, profile });
  return profile;
}

/** One tool call made during the turn. */
export interface TurnToolCall {
  id: string;
  name: string;
  arguments: string;
  result: string;
  is_error: boolean;
}

/** What a turn produced. */
export interface TurnResult {
  sessionId: string;
  answer: string;
  reasoning: string;
  toolCalls: TurnToolCall[];
  usage: { input_tokens: number; output_tokens: number; reasoning_tokens: number; total_tokens: number };
  iterations: number;
  /** True when the iteration cap stopped the loop before a final answer. */
  stoppedAtCap: boolean;
  /** Thinking blocks the provider dropped from this turn's requests (`input_transformations`, SPEC §26.4). */
  thinkingDroppedByProvider?: number;
}
