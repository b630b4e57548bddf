import type { JsonObject } from '../core/json.js';
import type { AssistantMessage, Message } from '../core/message.js';
import type { OriginStamp } from '../core/origin.js';
import type { Route } from '../core/route.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { FinishReason, Usage } from '../core/usage.js';
import type { Logger } from '../logging/logger.js';
import { withoutDuplicateToolCalls } from '../replay/replay-recovery.js';
import type { CarrierDecision } from '../replay/replay-route-profile.js';
import type { SessionRecord, SessionStore } from '../storage/session-store.js';
import { mergeModelConfig } from '../storage/session-store-rules.js';
import type { PreparedRequest, Transport, TransportRequest } from '../transports/shared/transport.js';
import { continueIncompleteTurn } from './runtime-continuation.js';
import { PRICED_ANEW, type Prices } from './runtime-kept-prices.js';
import type { StatelessTurnMemory } from './runtime-stateless-memory.js';
import {
  recordRequestSafely,
  requestOnce,
  turnTransport,
  withOrigin,
  type RequestRecordInput,
  type TurnResponse,
} from './runtime-request.js';
import { turnRouteProfile, type AgentEvent, type AgentTurnOptions } from './runtime-turn-options.js';
import { defineLazyProperty } from '../core/lazy-property.js';
import { withFields } from '../core/with-fields.js';

export type { CarrierDecision } from '../replay/replay-route-profile.js';

/**
 * One turn of a client that runs its own tools and holds its own history (the gateway's front
 * doors: Anthropic Messages, Responses, chat completions with `tools`). Exactly one provider
 * request through {@link requestOnce} — the route profile, learned verdicts, the one recovery
 * retry (SPEC §13.3) — plus the Responses continuation of a reasoning-only answer (SPEC §24.6);
 * no tool runs here: the provider's tool calls go back to the client.
 *
 * With a session (the client's session header) the session's learned config is read and written
 * as in any turn; without one the turn is stateless: what a recovery learns for the session lives
 * for this turn only, except rejected signatures ({@link StatelessTurnMemory}); store-wide
 * verdicts (SPEC §23.1) still apply and are still recorded.
 */

/** Turn settings a front door passes through (config.yaml values in the CLI). */
export type ClientTurnSettings = Pick<AgentTurnOptions, 'reasoning'> &
  Partial<
    Pick<
      AgentTurnOptions,
      'echoOptIn' | 'routeOverrides' | 'stream' | 'timeouts' | 'compaction' | 'transportFor' | 'observer'
    >
  >;

/** What {@link runClientToolsTurn} needs. */
export interface ClientToolsTurnInput {
  store: SessionStore;
  /** The session this turn is mirrored into; undefined for a stateless turn. */
  sessionId: string | undefined;
  /** The session's record when the caller has just read it (null: the store does not hold it). */
  session?: SessionRecord | null;
  route: Route;
  apiKey: string | undefined;
  fetch?: typeof globalThis.fetch | undefined;
  /** Origin mapping of the route's requests (`TransportRequest.connectTo`). */
  connectTo?: ReadonlyMap<string, string> | undefined;
  /** The route as sessions name it (`emulator:PERSONA` for an in-process emulator): the log names it. */
  sessionRoute?: AgentTurnOptions['sessionRoute'];
  settings: ClientTurnSettings;
  logger: Logger;
  /** The client's history, canonical (SPEC §2), carriers of opened handles restored. */
  history: readonly Message[];
  /** The client's tools, offered upstream as given. */
  tools: readonly ToolDefinition[];
  /**
   * Decisions made before the encoder ran (handles opened or dropped): logged and recorded with
   * every request of the turn, beside the encoder's own (SPEC §23.3).
   */
  inputDecisions: readonly CarrierDecision[];
  signal?: AbortSignal | undefined;
  onEvent?: ((event: AgentEvent) => void) | undefined;
  /** What stateless turns remember between each other (rejected signatures); unused with a session. */
  statelessMemory?: StatelessTurnMemory | undefined;
}

/** The answered turn. */
export interface ClientToolsTurnResult {
  /** The assistant message exactly as a stored turn keeps it (origin stamped, duplicate calls removed). */
  message: AssistantMessage;
  usage: Usage | null;
  finishReason: FinishReason | null;
  /** The answered request's record, for the caller to store once the turn's messages are stored. */
  record: RequestRecordInput;
  /** The session's model config after the turn: what a recovery learned included (SPEC §18). */
  modelConfig: JsonObject;
}

/** The id a stateless turn's requests are logged under. */
export const STATELESS_TURN = '(stateless)';

/** Runs the turn; provider failures are thrown as in `runAgentTurn` (typed `ApiError`s). */
export async function runClientToolsTurn(input: ClientToolsTurnInput): Promise<ClientToolsTurnResult> {
  const sessionId = input.sessionId ?? STATELESS_TURN;
  const session =
    input.sessionId === undefined
      ? null
      : input.session !== undefined
        ? input.session
        : await input.store.getSession(input.sessionId);
  // A named session the store does not hold yet is created by the caller's mirror write, with
  // what this turn learned (`modelConfig`); until then the turn runs as a stateless one does.
  const store = session ? input.store : statelessStore(input.store, sessionId);
  const options: AgentTurnOptions = withFields(input.settings, {
    store,
    sessionId,
    route: input.route,
    apiKey: input.apiKey,
    fetch: input.fetch,
    connectTo: input.connectTo,
    sessionRoute: input.sessionRoute,
    logger: input.logger,
    signal: input.signal,
    clientTools: input.tools,
    // The client runs its tools: nothing here executes one or asks to.
    workspace: '',
    approve: async () => false,
    ...(input.onEvent ? { onEvent: input.onEvent } : {}),
  });
  const transport = withInputDecisions(await turnTransport(options), input.inputDecisions);
  const profile = turnRouteProfile(options);
  const memory = session ? undefined : input.statelessMemory;
  let modelConfig: JsonObject = session?.modelConfig ?? memory?.modelConfig() ?? {};
  const first = await requestOnce(transport, input.history, modelConfig, profile, options);
  const settled: TurnResponse = await continueIncompleteTurn(first, {
    api: input.route.api,
    history: input.history,
    send: (partial) => requestOnce(transport, partial, modelConfig, profile, options),
    settle: async (partial) => {
      modelConfig = partial.config;
      await recordRequestSafely(partial.record, options);
    },
    logger: input.logger,
    sessionId,
    onEvent: input.onEvent,
  });
  memory?.learn(settled.config);
  const message = withOrigin(withoutDuplicateToolCalls(settled.message), profile, settled.usage);
  return {
    message,
    usage: settled.usage,
    finishReason: settled.finishReason,
    record: settled.record,
    modelConfig: settled.config,
  };
}

/** The origin stamp a message answered on `route` carries (SPEC §23.2). */
export function clientTurnOrigin(route: Route, settings: ClientTurnSettings): OriginStamp {
  return { ...turnRouteProfile({ route, ...settings }).origin };
}

/**
 * The token estimate of a request (SPEC §15: the same count compaction uses, opaque bytes free):
 * the history plus the tool definitions, on `route`'s stale-thinking rule. `prices` may keep the
 * prices of frozen parts (runtime-kept-prices.ts); the estimate is the same.
 */
export function estimateClientTurnTokens(
  history: readonly Message[],
  tools: readonly ToolDefinition[],
  route: Route,
  settings: ClientTurnSettings,
  prices: Prices = PRICED_ANEW,
): number {
  const { chargeStaleThinking } = turnRouteProfile({ route, ...settings });
  let newest = -1;
  for (let index = history.length - 1; index >= 0; index -= 1) {
    if (history[index]?.role === 'assistant') {
      newest = index;
      break;
    }
  }
  let total = 0;
  history.forEach((message, index) => {
    total += prices.message(message, { chargeStaleThinking, newestAssistant: index === newest });
  });
  return total + prices.tools(tools);
}

/**
 * The store a stateless turn writes through: what a recovery learns for "the session" (model
 * config) is kept for this turn only, its request records are not stored (there is no session to
 * hold them); everything else — store-wide verdicts included — reaches the store.
 */
function statelessStore(store: SessionStore, sessionId: string): SessionStore {
  let config: JsonObject = {};
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key === 'patchModelConfig') {
        return async (id: string, patch: JsonObject) => {
          if (id !== sessionId) return target.patchModelConfig(id, patch);
          config = mergeModelConfig(config, patch);
          return config;
        };
      }
      if (key === 'recordRequest') {
        return async (record: RequestRecordInput) => {
          if (record.sessionId !== sessionId) await target.recordRequest(record);
        };
      }
      const value: unknown = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The transport with `decisions` added to every prepared request's decisions (logs, records). */
function withInputDecisions(transport: Transport, decisions: readonly CarrierDecision[]): Transport {
  if (decisions.length === 0) return transport;
  const byMessage = (a: CarrierDecision, b: CarrierDecision) => a.messageIndex - b.messageIndex;
  const extend = (prepared: PreparedRequest): PreparedRequest => {
    // Every field but `decisions` copied; `decisions` stays lazy as the transport made it: all of a
    // long history's decisions are made (and sized) only when someone reads them all, not per request.
    const copied: Record<string, unknown> = {};
    for (const key of Object.keys(prepared)) {
      if (key !== 'decisions') copied[key] = prepared[key as keyof PreparedRequest];
    }
    const extended: PreparedRequest = defineLazyProperty(
      copied as Omit<PreparedRequest, 'decisions'>,
      'decisions',
      () => [...decisions, ...prepared.decisions].sort(byMessage),
    );
    const from = prepared.decisionsFrom?.bind(prepared);
    if (from) {
      extended.decisionsFrom = (index) =>
        [...decisions.filter((decision) => decision.messageIndex >= index), ...from(index)].sort(byMessage);
    }
    return extended;
  };
  const wrapped: Transport & { prepareWith?: unknown } = {
    api: transport.api,
    prepare: (request: TransportRequest) => extend(transport.prepare(request)),
    send: (request, prepared) => transport.send(request, prepared),
  };
  const prepareWith = (transport as { prepareWith?: (request: TransportRequest, options: unknown) => PreparedRequest })
    .prepareWith;
  if (typeof prepareWith === 'function') {
    wrapped.prepareWith = (request: TransportRequest, options: unknown) =>
      extend(prepareWith.call(transport, request, options));
  }
  return wrapped;
}
