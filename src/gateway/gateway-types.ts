import type { Route } from '../core/route.js';
import type { Logger } from '../logging/logger.js';
import type { AgentTurnOptions } from '../runtime/agent-turn.js';
import type { SessionStore } from '../storage/session-store.js';
import type { WarmHistories, WarmHistoryLimits } from '../runtime/runtime-warm-history.js';
import type { Tracing } from '../telemetry/telemetry-tracing.js';

/**
 * The route every gateway turn uses (one gateway serves one configured route). `OpenedRoute`
 * from `cli-route.ts` fits this shape, including an in-process emulator route.
 */
export interface GatewayRoute {
  route: Route;
  /** Provider key; never logged, never stored. */
  apiKey: string | undefined;
  /** What the session record stores when it differs from `route` (in-process emulators: `emulator:PERSONA`). */
  sessionRoute?: { provider: string; baseUrl: string | null } | undefined;
  /** A `fetch` the route's requests go through instead of the pooled HTTP client (TransportRequest.fetch). */
  fetch?: typeof globalThis.fetch | undefined;
  /** Origins the route's requests are sent to instead (TransportRequest.connectTo; the CLI maps them). */
  connectTo?: ReadonlyMap<string, string> | undefined;
}

/** One `gateway.models` entry of config.yaml, resolved by the CLI (gateway-model-routes.ts). */
export interface GatewayModelAlias {
  /** The client's model name, or a prefix ending in `*`. */
  name: string;
  route: GatewayRoute;
}

/** Agent-turn settings the gateway passes through (config.yaml values in the CLI). */
export type GatewayTurnSettings = Partial<
  Pick<
    AgentTurnOptions,
    | 'reasoning'
    | 'reasoningOverrides'
    | 'echoOptIn'
    | 'routeOverrides'
    | 'maxIterations'
    | 'compaction'
    | 'stream'
    | 'tools'
    | 'transportFor'
    | 'timeouts'
    | 'observer'
  >
>;

/** Options of `createGatewayApp`. */
export interface GatewayOptions {
  store: SessionStore;
  route: GatewayRoute;
  /** Directory the agent's tools work in. */
  workspace: string;
  /** Approve every tool that needs approval (writing files, shell); otherwise they are refused. */
  yolo: boolean;
  logger: Logger;
  /** When set, every API route requires `Authorization: Bearer <token>`. */
  token?: string | undefined;
  /** Turns allowed to wait behind a running turn on one session before 409 (default 8). */
  maxWaitingTurns?: number;
  turn?: GatewayTurnSettings;
  /**
   * The system prompt a session created without a client system message stores as its first
   * message (`hermes chat`'s default, docs/gateway.md); none when absent.
   */
  systemPrompt?: (() => string) | undefined;
  /**
   * Bounds of the sessions whose history the gateway keeps in memory between turns
   * (`runtime-warm-history.ts`; default 256 sessions, 100,000 messages); false reads every
   * session whole on every turn.
   */
  warmSessions?: WarmHistoryLimits | false | undefined;
  /**
   * Routes a front-door client may pick by `model` (config.yaml `gateway.models`,
   * gateway-model-routes.ts); names that match none use {@link route}.
   */
  models?: readonly GatewayModelAlias[] | undefined;
  /** Prometheus metrics at `GET /metrics` (docs/operations.md; default true). */
  metrics?: boolean | undefined;
  /** OpenTelemetry tracing (`telemetry-tracing.ts` `startTracing`); none by default. */
  tracing?: Tracing | null | undefined;
}

/** What one turn needs from the gateway options. */
export interface GatewayTurnContext {
  store: SessionStore;
  route: GatewayRoute;
  workspace: string;
  yolo: boolean;
  logger: Logger;
  turn: GatewayTurnSettings & Pick<AgentTurnOptions, 'reasoning'>;
  /** See {@link GatewayOptions.systemPrompt}. */
  systemPrompt?: (() => string) | undefined;
  /** The gateway's warm session histories (none when {@link GatewayOptions.warmSessions} is false). */
  warmHistories?: WarmHistories | undefined;
}
