/**
 * `hermes-ts`: the runtime as a library (docs/library.md). Open a session store, run agent turns
 * on a route with tools and streamed events, resume, branch and compact sessions, use the
 * transports and the provider registry, serve the gateway. Everything `hermes-ts/replay` exports
 * is exported here too. Names not listed here are internal and may change.
 */
import { UsageError } from './core/errors.js';
import { newSessionId } from './core/ids.js';
import type { ReasoningOptions, ReasoningOverrides } from './core/reasoning-options.js';
import { type Logger, silentLogger } from './logging/logger.js';
import { providerApiKey } from './providers/provider-registry.js';
import { type RequestRoute, resolveRequestRoute } from './replay-api.js';
import type { RouteOverride } from './replay/replay-types.js';
import { type CompactionOutcome, compressSession } from './runtime/compaction-run.js';
import type { CompactionSettings } from './runtime/compaction-plan.js';
import { type AgentEvent, runAgentTurn, type TurnResult } from './runtime/agent-turn.js';
import type { SessionRecord, SessionStore, UndecodableMessage } from './storage/session-store.js';
import { openSessionStore as openStoreAt } from './storage/store-open.js';
import { hermesHome } from './storage/store-paths.js';
import type { ApprovalDecider } from './tools/tool-registry.js';
import type { Tool } from './tools/tool-types.js';

export * from './replay-api.js';

export {
  AbortError,
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  HermesError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  StreamError,
  TimeoutError,
  UnprocessableEntityError,
  UsageError,
} from './core/errors.js';
export { EventStream } from './core/event-stream.js';
export type { StreamEvent } from './core/stream-event.js';
export type { FinishReason, Usage } from './core/usage.js';
export { PROVIDERS, getProvider, resolveProvider, type ProviderInfo } from './providers/provider-registry.js';
export { getTransport } from './transports/transport-table.js';
export { loadTransport } from './transports/transport-registry.js';
export { createChatCompletionsTransport } from './transports/chat-completions/chat-completions-transport.js';
export { createAnthropicMessagesTransport } from './transports/anthropic-messages/anthropic-messages-transport.js';
export { createBedrockConverseTransport } from './transports/bedrock-converse/bedrock-converse-transport.js';
export { createGeminiTransport } from './transports/gemini/gemini-transport.js';
export { createResponsesTransport } from './transports/responses/responses-transport.js';
export type { PreparedRequest, Transport, TransportRequest } from './transports/shared/transport.js';
export { BUILTIN_TOOLS, toolDefinitions, type ApprovalDecider } from './tools/tool-registry.js';
export { ToolError, type Tool, type ToolContext, type ToolPreview } from './tools/tool-types.js';
export { openLogger, silentLogger, type Logger } from './logging/logger.js';
export type { SessionRecord, SessionStore, NewSession, VerdictRecord } from './storage/session-store.js';
export { SessionBusyError } from './storage/session-lease.js';
export { StorageError } from './storage/storage-errors.js';
export { TurnInterruptedError, type AgentEvent, type TurnResult, type TurnToolCall } from './runtime/agent-turn.js';
export type { CompactionOutcome } from './runtime/compaction-run.js';
export type { CompactionSettings, CompactionTail } from './runtime/compaction-plan.js';
export { createGatewayApp } from './gateway/gateway-app.js';
export { startGateway, type RunningGateway } from './gateway/gateway-serve.js';
export type { GatewayOptions, GatewayRoute, GatewayTurnSettings } from './gateway/gateway-types.js';

/** Where {@link openSessionStore} opens a store. */
export interface OpenSessionStoreOptions {
  /** Hermes home directory; the store is its `state.db`. Default: `$HERMES_HOME`, else `~/.hermes`. */
  home?: string | undefined;
  /** A store URL instead of the home's state.db: `sqlite:PATH` or `postgres://USER:PASSWORD@HOST:PORT/DB`. */
  url?: string | undefined;
  /** Called for each stored row that cannot be decoded (it is skipped, never thrown). */
  onUndecodable?: ((row: UndecodableMessage) => void) | undefined;
}

/** Opens a session store (SQLite `state.db` by default, see docs/sessions.md). Close it with `store.close()`. */
export function openSessionStore(options: OpenSessionStoreOptions = {}): SessionStore {
  return openStoreAt({
    home: options.home ?? hermesHome(),
    url: options.url,
    ...(options.onUndecodable ? { onUndecodable: options.onUndecodable } : {}),
  });
}

/** The route settings a turn and a compaction share. */
export interface TurnRouteOptions {
  store: SessionStore;
  route: RequestRoute;
  /** Provider key. Default: the provider's key variable (docs/providers.md). Never stored or logged. */
  apiKey?: string | undefined;
  /** Default: reasoning on, no effort. */
  reasoning?: ReasoningOptions | undefined;
  /** Per-model reasoning settings keyed by model id (config.yaml `reasoning_overrides`), applied to each request's model. */
  reasoningOverrides?: ReasoningOverrides | undefined;
  /** `model.reasoning_echo` opt-in (docs/replay.md). */
  reasoningEcho?: boolean | undefined;
  /** User route rows, matched before the built-in route table (docs/replay.md). */
  routes?: readonly RouteOverride[] | undefined;
  /**
   * A `fetch` provider requests go through instead of the pooled keep-alive HTTP client (bring
   * your own networking or instrument requests). Default: the pooled client, which costs a third
   * of what `fetch` does. Redirects are never followed either way.
   */
  fetch?: typeof globalThis.fetch | undefined;
  /** Origin mapping, like curl's `--connect-to`: requests addressed to a key origin connect to its value. */
  connectTo?: ReadonlyMap<string, string> | undefined;
  signal?: AbortSignal | undefined;
}

/** Input of {@link runTurn}. */
export interface RunTurnOptions extends TurnRouteOptions {
  /** The session to continue (resume); absent: a new session is created on the route. */
  sessionId?: string | undefined;
  /** The user's message. */
  prompt: string;
  /** Tools the model may call. Default: none (pass {@link BUILTIN_TOOLS} for Hermes's own). */
  tools?: readonly Tool[] | undefined;
  /** Decides tools that need approval. Default: refuse (the model sees a tool error). */
  approve?: ApprovalDecider | undefined;
  /** Directory the tools work in. Default: the current directory. */
  workspace?: string | undefined;
  /** Every stream event plus tool results, verdicts, recoveries and compactions, as they happen. */
  onEvent?: ((event: AgentEvent) => void) | undefined;
  /** Default: a silent logger. */
  logger?: Logger | undefined;
  /** Tool-loop iterations before the turn stops. Default 25. */
  maxIterations?: number | undefined;
  /** Streamed responses. Default true. */
  stream?: boolean | undefined;
  /** Automatic compaction; without `contextWindow` it never triggers. */
  compaction?: CompactionSettings | undefined;
}

/** The API key of a route: the one given, else the provider's key variable. */
function apiKeyOf(route: RequestRoute, apiKey: string | undefined): string | undefined {
  return apiKey ?? providerApiKey(route.provider, process.env);
}

/**
 * Runs one user turn: stores the message, streams the model's answer, runs the tool calls, and
 * loops until a final answer (docs/library.md). A new session is created when `sessionId` is absent.
 */
export async function runTurn(options: RunTurnOptions): Promise<TurnResult> {
  const route = resolveRequestRoute(options.route);
  const { store } = options;
  if (options.sessionId !== undefined && !(await store.getSession(options.sessionId))) {
    throw new UsageError(`no session "${options.sessionId}"`);
  }
  return runAgentTurn(options.prompt, {
    store,
    sessionId: options.sessionId ?? newSessionId(),
    // A new session is stored with its first message, in one write: never empty.
    newSession:
      options.sessionId === undefined
        ? { provider: route.provider, model: route.model, baseUrl: route.baseUrl ?? null, api: route.api }
        : undefined,
    route,
    apiKey: apiKeyOf(route, options.apiKey),
    reasoning: options.reasoning ?? { enabled: true },
    reasoningOverrides: options.reasoningOverrides,
    echoOptIn: options.reasoningEcho ?? false,
    routeOverrides: options.routes ?? [],
    workspace: options.workspace ?? process.cwd(),
    approve: options.approve ?? (async () => false),
    logger: options.logger ?? silentLogger(),
    tools: options.tools ?? [],
    leaseOwner: 'hermes-ts library',
    ...(options.maxIterations === undefined ? {} : { maxIterations: options.maxIterations }),
    ...(options.stream === undefined ? {} : { stream: options.stream }),
    compaction: options.compaction,
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    signal: options.signal,
    fetch: options.fetch,
    connectTo: options.connectTo,
  });
}

/** Copies a session (every message with all its reasoning fields) into a new child session. */
export async function branchSession(
  store: SessionStore,
  sessionId: string,
  options: { title?: string | null } = {},
): Promise<SessionRecord> {
  if (!(await store.getSession(sessionId))) throw new UsageError(`no session "${sessionId}"`);
  return store.forkSession(sessionId, { title: options.title ?? null });
}

/** Input of {@link compactSession}. */
export interface CompactSessionOptions extends TurnRouteOptions {
  sessionId: string;
  /** How to compact: in place or into a child, the tail (lean or turns), the window and threshold. */
  compaction?: CompactionSettings | undefined;
  /** Called with each progress line. */
  onProgress?: ((text: string) => void) | undefined;
}

/**
 * Compacts a session now: the route summarises the middle; the head, the summary and the kept
 * tail (every reasoning byte intact) continue in the same session, the summarised turns archived
 * (docs/sessions.md), or in a child session with `compaction.inPlace: false`. The outcome names
 * the session that continues, or says why nothing was compacted.
 */
export async function compactSession(options: CompactSessionOptions): Promise<CompactionOutcome> {
  const route = resolveRequestRoute(options.route);
  if (!(await options.store.getSession(options.sessionId))) {
    throw new UsageError(`no session "${options.sessionId}"`);
  }
  return compressSession(
    {
      store: options.store,
      sessionId: options.sessionId,
      route,
      apiKey: apiKeyOf(route, options.apiKey),
      reasoning: options.reasoning ?? { enabled: false },
      echoOptIn: options.reasoningEcho ?? false,
      routeOverrides: options.routes ?? [],
      fetch: options.fetch,
      connectTo: options.connectTo,
      signal: options.signal,
      compaction: options.compaction,
    },
    options.onProgress,
  );
}
