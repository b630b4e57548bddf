import type { FrontDoorBodies } from './gateway-front-door-body.js';
import type { AssistantMessage } from '../core/message.js';
import type { ReasoningOptions } from '../core/reasoning-options.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { FinishReason, Usage } from '../core/usage.js';
import {
  type CarrierDecision,
  clientTurnOrigin,
  estimateClientTurnTokens,
  runClientToolsTurn,
  type ClientTurnSettings,
} from '../runtime/runtime-client-turn.js';
import type { AgentEvent } from '../runtime/agent-turn.js';
import { KEPT_PRICES } from '../runtime/runtime-kept-prices.js';
import type { StatelessTurnMemory } from '../runtime/runtime-stateless-memory.js';
import { readableHistory, type ClientHistory } from './gateway-front-door-handles.js';
import type { FrontDoorSessionCopies, SessionCopy } from './gateway-front-door-copies.js';
import type { StoredTurns } from './gateway-front-door-restore.js';
import { translateClientHistory } from './gateway-front-door-prefix.js';
import { findConversation, turnFingerprint } from './gateway-front-door-conversations.js';
import { sessionOwner } from '../storage/store-users.js';
import { mirrorClientTurn } from './gateway-front-door-session.js';
import { sealCarriers, sealedCarriersOf } from './gateway-handle-carriers.js';
import type { HandleKeyring } from './gateway-handle-keys.js';
import type { HandlePurpose } from './gateway-handle-seal.js';
import type { GatewayModelRoutes } from './gateway-model-routes.js';
import type { SessionTurnLock } from './gateway-session-lock.js';
import type { GatewayRoute, GatewayTurnContext } from './gateway-types.js';

/**
 * The pipeline both front doors share (docs/gateway.md "Front doors"): the client's request,
 * parsed by its door into canonical history (SPEC §2) → the route its `model` picks → every
 * echoed handle opened (SPEC §25.6) → one provider request through the runtime's client-tools
 * turn (route profile, learned verdicts, one recovery retry; no tool runs here) → the answer and
 * its sealed handle, mirrored into the client's session when it named one → rendered by the door.
 */

/** What a door hands the pipeline. */
export interface FrontDoorTurnRequest {
  /** The field handles travel in for this door; null: the door returns no handle (chat completions). */
  purpose: HandlePurpose | null;
  /** The client's `model` (picks the route, gateway-model-routes.ts). */
  model: string | undefined;
  history: ClientHistory;
  tools: ToolDefinition[];
  /** What the client asked of reasoning (`thinking`, `reasoning.effort`); undefined: the gateway's setting. */
  reasoning: Partial<ReasoningOptions> | undefined;
  /** The session the client named (front-door-session.ts), or undefined: stateless. */
  sessionId: string | undefined;
  signal: AbortSignal;
  /**
   * The door and caller of a mirrored request: its answer is indexed (the conversation index,
   * gateway-front-door-conversations.ts), and a session named for the first time with a history
   * answered elsewhere (a fork) restores from the conversation that holds it (SPEC §26.1);
   * `lookedUp`: the door found the session by that index already; `title`: the title a new
   * conversation's session is created with (else the first user message's first line).
   */
  conversation?: { door: string; caller: string; lookedUp: boolean; title?: string | undefined } | undefined;
}

/** Live text of the answer, for streaming doors. */
export type FrontDoorDelta = { type: 'reasoning'; text: string } | { type: 'text'; text: string };

/** The answered turn. */
export interface FrontDoorAnswer {
  /** The assistant message as stored history keeps it. */
  message: AssistantMessage;
  /**
   * The sealed handle of its carriers (never empty for a door that returns one: without carriers
   * it seals the origin alone); `""` for a door without a handle field.
   */
  handle: string;
  /** True when the message has carriers worth a reasoning block (reasoning, blobs, call sidecars). */
  hasCarriers: boolean;
  usage: Usage | null;
  finishReason: FinishReason | null;
  route: GatewayRoute;
  /** Milliseconds spent waiting on the provider (`Server-Timing`, bench/gateway). */
  providerMs: number;
}

/** What the doors share, made once per app. */
export interface FrontDoorContext {
  gateway: GatewayTurnContext;
  routes: GatewayModelRoutes;
  keyring: HandleKeyring;
  lock: SessionTurnLock;
  /** What the doors said once already (gateway-front-door-serve.ts `noteOmittedTools`). */
  notices: Set<string>;
  /** Rejected signatures stateless clients keep echoing (runtime-stateless-memory.ts). */
  statelessMemory: StatelessTurnMemory;
  /** The gateway requires a key: the caller of a conversation is a digest of the key it presented. */
  keyRequired: boolean;
  /** Front-door sessions' stored copies and translated histories (gateway-front-door-copies.ts). */
  copies: FrontDoorSessionCopies;
  /** Each client conversation's last body, parsed (gateway-front-door-body.ts); absent: none kept. */
  bodies?: FrontDoorBodies;
  /** Told the decisions about the handles each request's history came with (the gateway's metrics). */
  onHandles?: ((decisions: readonly CarrierDecision[]) => void) | undefined;
}

/** Runs one front-door turn; provider failures are thrown (the door answers them). */
export async function runFrontDoorTurn(
  context: FrontDoorContext,
  request: FrontDoorTurnRequest,
  onDelta?: (delta: FrontDoorDelta) => void,
): Promise<FrontDoorAnswer> {
  const { gateway } = context;
  const { route } = context.routes.choose(request.model);
  const settings = turnSettings(gateway, request.reasoning);
  // A new session is created by the mirror write, with the answered turn: never empty.
  const target = await mirrorTarget(context, request.sessionId);
  const sessionId = target?.sessionId;
  const copy = target?.copy ?? null;
  // SPEC §26.1: the mirrored session's copy of each turn the client echoed.
  const source = target ? await restoreSource(context, target.sessionId, copy, request) : null;
  const translation = await translateClientHistory({
    history: request.history,
    purpose: request.purpose,
    keyring: context.keyring,
    route: { api: route.route.api, origin: clientTurnOrigin(route.route, settings) },
    copy: source?.origin === undefined ? copy : null,
    source,
  });
  if (sessionId && translation.prefix) context.copies.translated(sessionId, translation.prefix);
  const inputDecisions: CarrierDecision[] = [...translation.opened, ...translation.restored];
  context.onHandles?.(inputDecisions);
  const history = request.history.messages;
  let providerMs = 0;
  let sentAt = 0;
  const onEvent = (event: AgentEvent) => {
    if (event.type === 'request-sent') sentAt = performance.now();
    else if (event.type === 'finish' || event.type === 'error') providerMs += performance.now() - sentAt;
    else if (event.type === 'reasoning-delta') onDelta?.({ type: 'reasoning', text: event.text });
    else if (event.type === 'text-delta') onDelta?.({ type: 'text', text: event.text });
  };
  const result = await runClientToolsTurn({
    store: gateway.store,
    sessionId,
    // The record the copy was just checked against (null: the mirror write creates the session).
    ...(target ? { session: copy?.record ?? null } : {}),
    route: route.route,
    apiKey: route.apiKey,
    fetch: route.fetch,
    connectTo: route.connectTo,
    sessionRoute: route.sessionRoute,
    settings,
    logger: gateway.logger,
    history,
    tools: request.tools,
    inputDecisions,
    signal: request.signal,
    onEvent,
    statelessMemory: context.statelessMemory,
  });
  const carriers = sealedCarriersOf(result.message);
  const plaintext = carriers ?? JSON.stringify({ m: { origin: result.message.origin ?? null }, c: [] });
  const handle =
    request.purpose === null
      ? ''
      : sealCarriers(plaintext, request.purpose, await context.keyring.sealingKey(), context.keyring);
  if (sessionId) {
    await mirrorClientTurn(gateway.store, context.lock, gateway.logger, {
      sessionId,
      history,
      answer: result.message,
      record: result.record,
      route,
      copies: context.copies,
      fingerprints: request.conversation
        ? [turnFingerprint(request.conversation.caller, result.message, request.conversation.door)]
        : [],
      modelConfig: result.modelConfig,
      ...(request.conversation?.title === undefined ? {} : { title: request.conversation.title }),
    });
  }
  return {
    message: result.message,
    handle,
    hasCarriers: carriers !== null,
    usage: result.usage,
    finishReason: result.finishReason,
    route,
    providerMs,
  };
}

/**
 * The session the turn is mirrored into and the gateway's copy of it (null: the session does not
 * exist yet; the mirror write creates it). The client holds the history, so a store that cannot
 * be read makes the turn stateless, logged, rather than failing it.
 */
async function mirrorTarget(
  context: FrontDoorContext,
  sessionId: string | undefined,
): Promise<{ sessionId: string; copy: SessionCopy | null } | undefined> {
  if (!sessionId) return undefined;
  try {
    return { sessionId, copy: await context.copies.read(context.gateway.store, sessionId) };
  } catch (error) {
    context.gateway.logger.warn(
      { session: sessionId, err: (error as Error).message },
      `session ${sessionId} cannot be mirrored (the turn runs stateless): ${(error as Error).message}`,
    );
    return undefined;
  }
}

/**
 * The stored turns the client's turns are restored from (SPEC §26.1): the session's copy.
 * Archived turns count too: a client keeps the turns an in-place compaction summarised (SPEC
 * §26.6). A session that holds no answer yet (or does not exist) whose history was answered in
 * another session of the same door and caller (a fork: the client copied the conversation under
 * a new id) restores from that one, and only from a session of the same owner (a gateway user's
 * namespace, SPEC §26.10): another user's conversation is never a fork's origin.
 */
async function restoreSource(
  context: FrontDoorContext,
  sessionId: string,
  copy: SessionCopy | null,
  request: FrontDoorTurnRequest,
): Promise<{ turns: StoredTurns; origin?: string } | null> {
  const { store, logger } = context.gateway;
  const own = copy ? { turns: copy.turns } : null;
  const answered = request.history.messages.some((message) => message.role === 'assistant');
  const conversation = request.conversation;
  if ((copy && copy.turns.turns.length > 0) || !answered || !conversation || conversation.lookedUp) return own;
  const { door, caller } = conversation;
  const owner = sessionOwner(sessionId);
  const found = await findConversation({ store, logger }, request.history.messages, caller, owner, door).catch(
    () => null,
  );
  if (!found?.matched || found.id === sessionId) return own;
  const earlier = await context.copies.read(store, found.id).catch(() => null);
  if (!earlier) return own;
  return { turns: earlier.turns, origin: found.id };
}

/** The token estimate of a request on the route its model picks (`count_tokens`, `message_start`). */
export function estimateFrontDoorTokens(
  context: FrontDoorContext,
  model: string | undefined,
  history: ClientHistory,
  tools: readonly ToolDefinition[],
): number {
  const { route } = context.routes.choose(model);
  // The messages and tools a client repeats are the frozen objects of its last request: priced once.
  return estimateClientTurnTokens(
    readableHistory(history),
    tools,
    route.route,
    turnSettings(context.gateway, undefined),
    KEPT_PRICES,
  );
}

/** Readable reasoning of a message: `reasoning`, else non-blank `reasoning_content`. */
export function readableReasoning(message: AssistantMessage): string {
  if (message.reasoning?.trim()) return message.reasoning;
  if (message.reasoning_content?.trim()) return message.reasoning_content;
  return '';
}

function turnSettings(
  gateway: GatewayTurnContext,
  reasoning: Partial<ReasoningOptions> | undefined,
): ClientTurnSettings {
  const turn = gateway.turn;
  const settings: ClientTurnSettings = { reasoning: { ...turn.reasoning, ...reasoning } };
  if (turn.echoOptIn !== undefined) settings.echoOptIn = turn.echoOptIn;
  if (turn.routeOverrides !== undefined) settings.routeOverrides = turn.routeOverrides;
  if (turn.stream !== undefined) settings.stream = turn.stream;
  if (turn.timeouts !== undefined) settings.timeouts = turn.timeouts;
  if (turn.compaction !== undefined) settings.compaction = turn.compaction;
  if (turn.transportFor !== undefined) settings.transportFor = turn.transportFor;
  if (turn.observer !== undefined) settings.observer = turn.observer;
  return settings;
}
