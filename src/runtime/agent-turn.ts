import { AbortError, ApiError, HermesError } from '../core/errors.js';
import type { JsonObject } from '../core/json.js';
import type { Route } from '../core/route.js';
import type { AssistantMessage, Message, ToolMessage } from '../core/message.js';
import type { FinishReason, Usage } from '../core/usage.js';
import type { Carrier, CarrierDecision, RouteLearned, RouteProfile } from '../replay/replay-route-profile.js';
import { withoutDuplicateToolCalls } from '../replay/replay-recovery.js';
import { BUILTIN_TOOLS, executeToolCall, toolDefinitions } from '../tools/tool-registry.js';
import type { SessionFields, SessionRecord, SessionStore } from '../storage/session-store.js';
import { holdSessionLease, leaseFencedStore, type HeldSessionLease } from '../storage/session-lease-hold.js';
import { SessionLeaseLostError } from '../storage/session-lease.js';
import type { PreparedRequest, Transport, TransportRequest } from '../transports/shared/transport.js';
import { loadTransport } from '../transports/transport-registry.js';
import { logRequest } from './runtime-request-log.js';
import { logProviderFailure, logProviderRetry } from './runtime-error-log.js';
import { missingToolResults } from './runtime-history.js';
import { repairToolPairing } from './runtime-history-repair.js';
import { findKeyedTurn, finishedTurnResult, TURN_KEY } from './runtime-turn-key.js';
import { recoverFromError, type Recovery } from './runtime-recovery.js';
import { learnedFrom, loadRouteLearned } from './runtime-route-memory.js';
import { isContextOverflow } from './runtime-errors.js';
import { planCompaction } from './compaction-plan.js';
import { compressSession } from './compaction-run.js';
import { turnRouteProfile, type AgentTurnOptions, type TurnResult } from './runtime-turn-options.js';
import { continueIncompleteTurn } from './runtime-continuation.js';
import { requestCompactThreshold } from './runtime-native-compaction.js';
import { openTurnHistory, type TurnHistory } from './runtime-warm-history.js';

export type { AgentEvent, AgentTurnOptions, TurnResult, TurnToolCall } from './runtime-turn-options.js';

/** The turn was interrupted (Ctrl-C); the stored history stays valid. */
export class TurnInterruptedError extends HermesError {
  override readonly name = 'TurnInterruptedError';
}

/**
 * Runs one user turn under the session lease (SPEC §23.6: a session busy in another process
 * fails fast with `SessionBusyError`): appends the user message, then loops request → stream →
 * capture → persist → tools until a final answer or the iteration cap (docs/architecture.md).
 * Each append is one transaction (the question goes in with the session's route fields); a
 * partial assistant message is never stored.
 */
export async function runAgentTurn(userText: string, turnOptions: AgentTurnOptions): Promise<TurnResult> {
  const { store, sessionId } = turnOptions;
  // A caller that holds the lease already found the session; the leased turn reads it again.
  if ((turnOptions.newSession || !turnOptions.lease) && !(await store.getSession(sessionId))) {
    if (!turnOptions.newSession) throw new HermesError(`no session "${sessionId}"`);
    await store.createSession({ ...turnOptions.newSession, id: sessionId });
  }
  const ownLease = turnOptions.lease
    ? null
    : await holdSessionLease(store, sessionId, { owner: turnOptions.leaseOwner ?? 'hermes' });
  const lease = turnOptions.lease ?? (ownLease as HeldSessionLease);
  try {
    return await runLeasedTurn(userText, { ...turnOptions, store: leaseFencedStore(store, lease) });
  } finally {
    await ownLease?.release();
  }
}

async function runLeasedTurn(userText: string, turnOptions: AgentTurnOptions): Promise<TurnResult> {
  const turnHistory = openTurnHistory(turnOptions.store, turnOptions.sessionId, turnOptions.warmHistories);
  const result = await runTrackedTurn(userText, { ...turnOptions, store: turnHistory.store }, turnHistory);
  await turnHistory.settle(result.sessionId);
  return result;
}

async function runTrackedTurn(
  userText: string,
  turnOptions: AgentTurnOptions,
  turnHistory: TurnHistory,
): Promise<TurnResult> {
  let options = turnOptions;
  const { store } = options;
  const sessionId = options.sessionId;
  const session = await store.getSession(sessionId);
  if (!session) throw new HermesError(`no session "${sessionId}"`);
  let modelConfig: JsonObject = session.modelConfig;
  // The stored messages; every append of the turn to this session extends this list.
  const stored: Message[] = await turnHistory.load(session);
  // Under the lease no other turn runs on this session, so a tool call left without a result
  // belongs to a turn that is gone: it is answered (appended, never rewritten).
  for (const repair of missingToolResults(stored)) await store.appendMessage(sessionId, repair);
  const history: Message[] = repairToolPairing(stored);
  const keyed = findKeyedTurn(stored, options.turnKey);
  if (keyed.state === 'finished') return finishedTurnResult(sessionId, keyed.messages);
  // A failed turn leaves its question as the last stored message: asking it again answers that
  // one rather than storing (and sending) the same question twice in a row.
  const last = stored.at(-1);
  const retried = keyed.state === 'new' && last?.role === 'user' && last.content === userText;
  // The session record follows the route the turn runs on; a new title comes from the first question.
  const fields = sessionFieldsFor(session, options, userText);
  if (keyed.state === 'new' && !retried) {
    const now = Date.now();
    const user: Message = { role: 'user', content: userText, timestamp: now };
    if (options.turnKey !== undefined) (user as Message & Record<string, unknown>)[TURN_KEY] = options.turnKey;
    // A new session's system prompt is stored with its first message, and the session fields
    // with them, in one transaction.
    const first: Message[] =
      stored.length === 0 && options.systemPrompt
        ? [{ role: 'system', content: options.systemPrompt, timestamp: now }, user]
        : [user];
    await store.appendMessages(sessionId, first, fields ? { session: fields } : {});
    history.push(...first);
  } else {
    // No message stored: the update still marks the session as used now (`sessions list` order).
    await store.updateSession(sessionId, fields ?? {});
  }
  options.onEvent?.({ type: 'user-stored', sessionId });

  const result: TurnResult = {
    sessionId,
    answer: '',
    reasoning: '',
    toolCalls: [],
    usage: { input_tokens: 0, output_tokens: 0, reasoning_tokens: 0, total_tokens: 0 },
    iterations: 0,
    stoppedAtCap: false,
  };
  const maxIterations = options.maxIterations ?? 25;
  const transport = options.transportFor
    ? options.transportFor(options.route.api)
    : (loadedTransports.get(options.route.api) ?? (await loadedTransport(options.route.api)));
  const profile = turnRouteProfile(options);
  let compactedThisTurn = false;
  const compact = async (force: boolean): Promise<boolean> => {
    // One attempt per turn: a pass that frees nothing says so once and is not tried again before
    // each later request of the tool loop (every try costs a summary call).
    compactedThisTurn = true;
    const outcome = await compressSession(options, () => undefined, force);
    if (!outcome.childSessionId) {
      options.logger.info({ session: options.sessionId }, outcome.message);
      options.onEvent?.({ type: 'recovery', message: outcome.message });
      return false;
    }
    options.onEvent?.({
      type: 'compacted',
      from: options.sessionId,
      to: outcome.childSessionId,
      message: outcome.message,
    });
    options = { ...options, sessionId: outcome.childSessionId };
    result.sessionId = outcome.childSessionId;
    history.splice(0, history.length, ...repairToolPairing(await store.listMessages(outcome.childSessionId)));
    modelConfig = (await store.getSession(outcome.childSessionId))?.modelConfig ?? modelConfig;
    compactedThisTurn = true;
    return true;
  };
  while (result.iterations < maxIterations) {
    result.iterations += 1;
    if (!compactedThisTurn && options.compaction?.contextWindow && needsCompaction(history, options, profile)) {
      await compact(false);
    }
    let response: Awaited<ReturnType<typeof requestOnce>>;
    try {
      response = await requestOnce(transport, history, modelConfig, profile, options);
    } catch (error) {
      // A context-length rejection compacts once and retries (never loops: one compaction per turn).
      if (!compactedThisTurn && error instanceof ApiError && isContextOverflow(error) && (await compact(true))) {
        result.iterations -= 1;
        continue;
      }
      throw error;
    }
    // SPEC §24.6: a reasoning-only Responses answer is continued in this turn and stored once, merged.
    const settled = await continueIncompleteTurn(response, {
      api: options.route.api,
      history,
      send: (partial) => requestOnce(transport, partial, modelConfig, profile, options),
      settle: async (partial) => {
        modelConfig = partial.config;
        addUsage(result, partial.usage);
        await recordRequestSafely(partial.record, options);
      },
      logger: options.logger,
      sessionId: options.sessionId,
      onEvent: options.onEvent,
    });
    const { message, usage, config, record } = settled;
    modelConfig = config;
    addUsage(result, usage);
    // A model that emits the same call twice gets it run once; sidecars lose it too (replay-tool-call-sync.ts).
    const answer = withOrigin(withoutDuplicateToolCalls(message), profile, usage);
    // The answer is stored before any diagnostic write, which may fail without losing it.
    await store.appendMessage(options.sessionId, answer);
    history.push(answer);
    await recordRequestSafely(record, options);
    if (answer.reasoning || answer.reasoning_content?.trim()) {
      result.reasoning = answer.reasoning ?? answer.reasoning_content ?? '';
    }
    if (!answer.tool_calls?.length) {
      result.answer = answer.content ?? '';
      return result;
    }
    await runToolCalls(answer, history, result, options);
  }
  result.stoppedAtCap = true;
  result.answer = `(stopped after ${maxIterations} tool iterations without a final answer; continue the session to go on)`;
  return result;
}

/**
 * Transports this process loaded, by wire API: a turn after the first takes its transport from
 * here instead of going through `import()` again (a long-running gateway runs many turns).
 */
const loadedTransports = new Map<Route['api'], Transport>();

async function loadedTransport(api: Route['api']): Promise<Transport> {
  const transport = await loadTransport(api);
  loadedTransports.set(api, transport);
  return transport;
}

/** Sends one request, learning a rejected carrier and retrying exactly once (SPEC §13.3). */
async function requestOnce(
  transport: Transport,
  history: readonly Message[],
  modelConfig: JsonObject,
  profile: RouteProfile,
  options: AgentTurnOptions,
): Promise<TurnResponse> {
  let config = modelConfig;
  let learned = await loadRouteLearned(options.store, config, profile);
  let retry: Recovery | null = null;
  for (let attempt = 1; ; attempt += 1) {
    const request = buildRequest(history, profile, learned, options);
    request.compactThreshold = requestCompactThreshold(profile, options.compaction, config);
    const built: PreparedRequest =
      retry?.stripAllThinking && hasPrepareWith(transport)
        ? transport.prepareWith(request, { stripAllThinking: true })
        : transport.prepare(request);
    const prepared: PreparedRequest = retry?.rewriteBody ? { ...built, body: retry.rewriteBody(built.body) } : built;
    const decisions = recentDecisions(prepared, history);
    logRequest(options.logger, options.sessionId, options.route, prepared, attempt, decisions);
    options.onEvent?.({ type: 'request-sent', routeKey: prepared.routeKey, attempt });
    const outcome = await consume(transport, request, prepared, options);
    const record: RequestRecordInput = {
      sessionId: options.sessionId,
      at: Date.now(),
      api: options.route.api,
      routeKey: prepared.routeKey,
      status: outcome.error instanceof ApiError ? outcome.error.status : outcome.error ? 0 : 200,
      decisions: decisions as unknown as JsonObject[],
    };
    if (!outcome.error) {
      return { message: outcome.message, usage: outcome.usage, finishReason: outcome.finishReason, config, record };
    }
    await recordRequestSafely(record, options);
    const error = outcome.error;
    if (error instanceof AbortError || options.signal?.aborted) {
      throw new TurnInterruptedError('turn interrupted; nothing partial was stored');
    }
    logProviderFailure(options.logger, {
      sessionId: options.sessionId,
      routeKey: prepared.routeKey,
      attempt,
      error,
      apiKey: options.apiKey,
    });
    const recovery: Recovery | null =
      attempt === 1
        ? await recoverFromError(error, prepared, profile, {
            store: options.store,
            sessionId: options.sessionId,
            config,
            rejected: learned.rejectedCarriers,
          })
        : null;
    if (!recovery) throw decorate(error, attempt);
    config = recovery.config;
    learned = learnedFrom(config, recovery.rejected, profile);
    retry = recovery;
    options.logger.warn(
      {
        session: options.sessionId,
        routeKey: prepared.routeKey,
        recovery: recovery.row,
        learned: recovery.learned.kind,
        fields: recovery.learned.fields,
      },
      recovery.log,
    );
    if (recovery.learned.kind === 'verdict') {
      options.onEvent?.({
        type: 'verdict-learned',
        routeKey: prepared.routeKey,
        fields: recovery.learned.fields as Carrier[],
      });
    } else {
      options.onEvent?.({ type: 'recovery', message: recovery.log });
    }
  }
}

/** What `recordRequest` takes. */
type RequestRecordInput = Parameters<SessionStore['recordRequest']>[0];

/** One answered request: the message, its usage and finish reason, the config and record to keep. */
interface TurnResponse {
  message: AssistantMessage;
  usage: Usage | null;
  finishReason: FinishReason | null;
  config: JsonObject;
  record: RequestRecordInput;
}

/** Records a request (a diagnostic write): a failure is logged and never fails the turn. */
async function recordRequestSafely(record: RequestRecordInput, options: AgentTurnOptions): Promise<void> {
  try {
    await options.store.recordRequest(record);
  } catch (error) {
    if (error instanceof SessionLeaseLostError) throw error;
    options.logger.warn(
      { session: record.sessionId, routeKey: record.routeKey, err: (error as Error).message },
      `could not record the request (the turn goes on): ${(error as Error).message}`,
    );
  }
}

function buildRequest(
  history: readonly Message[],
  profile: RouteProfile,
  learned: RouteLearned,
  options: AgentTurnOptions,
): TransportRequest {
  return {
    route: options.route,
    profile,
    learned,
    history,
    tools: toolDefinitions(options.tools ?? BUILTIN_TOOLS),
    reasoning: options.reasoning,
    stream: options.stream ?? true,
    apiKey: options.apiKey,
    signal: options.signal,
    fetch: options.fetch,
    timeouts: options.timeouts,
  };
}

async function consume(
  transport: Transport,
  request: TransportRequest,
  prepared: PreparedRequest,
  options: AgentTurnOptions,
): Promise<
  | { message: AssistantMessage; usage: Usage | null; finishReason: FinishReason | null; error?: undefined }
  | { error: HermesError }
> {
  const stream = transport.send(request, prepared);
  let usage: Usage | null = null;
  for await (const event of stream) {
    options.onEvent?.(event);
    if (event.type === 'retry') {
      logProviderRetry(options.logger, { sessionId: options.sessionId, routeKey: prepared.routeKey, ...event });
    }
    if (event.type === 'finish') {
      usage = event.usage;
      return { message: event.message, usage, finishReason: event.finishReason };
    }
    if (event.type === 'error') return { error: event.error };
  }
  try {
    return { message: await stream.result(), usage, finishReason: null };
  } catch (error) {
    return { error: error instanceof HermesError ? error : new HermesError(String(error)) };
  }
}

async function runToolCalls(
  assistant: AssistantMessage,
  history: Message[],
  result: TurnResult,
  options: AgentTurnOptions,
): Promise<void> {
  for (const call of assistant.tool_calls ?? []) {
    const interrupted = options.signal?.aborted ?? false;
    const outcome = interrupted
      ? { content: 'error: interrupted by the user before the tool ran', isError: true }
      : await executeToolCall(call.function.name, call.function.arguments, {
          workspace: options.workspace,
          approve: options.approve,
          signal: options.signal,
          ...(options.tools ? { tools: options.tools } : {}),
        });
    const toolMessage: ToolMessage = {
      role: 'tool',
      tool_call_id: call.id,
      tool_name: call.function.name,
      content: outcome.content,
      timestamp: Date.now(),
    };
    await options.store.appendMessage(options.sessionId, toolMessage);
    history.push(toolMessage);
    result.toolCalls.push({
      id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
      result: outcome.content,
      is_error: outcome.isError,
    });
    options.onEvent?.({ type: 'tool-result', id: call.id, name: call.function.name, ...outcome });
  }
  if (options.signal?.aborted) throw new TurnInterruptedError('turn interrupted; tool results were recorded');
}

function needsCompaction(history: readonly Message[], options: AgentTurnOptions, profile: RouteProfile): boolean {
  const settings = options.compaction;
  if (!settings) return false;
  return planCompaction(history, settings, profile.chargeStaleThinking).shouldCompact;
}

/** Assistant turns whose decisions each request logs and records (older ones: see `replay preview --explain`). */
export const LOGGED_DECISION_TURNS = 20;

/**
 * The decisions of the newest {@link LOGGED_DECISION_TURNS} assistant turns onwards. Logging and
 * recording every message's decisions on every request would grow `agent.log` and `state.db`
 * quadratically over a long session, and size every blob of the history each time; older turns
 * get the same rules on the same route, and `hermes replay preview --session ID --explain`
 * shows all of them.
 */
function recentDecisions(prepared: PreparedRequest, history: readonly Message[]): CarrierDecision[] {
  let from = 0;
  let seen = 0;
  for (let index = history.length - 1; index >= 0; index -= 1) {
    if (history[index]?.role !== 'assistant') continue;
    seen += 1;
    if (seen === LOGGED_DECISION_TURNS) {
      from = index;
      break;
    }
  }
  if (from === 0) return prepared.decisions;
  return prepared.decisionsFrom
    ? prepared.decisionsFrom(from)
    : prepared.decisions.filter((decision) => decision.messageIndex >= from);
}

/** Transports that can prepare a one-off variant (Anthropic: strip all thinking for one retry). */
function hasPrepareWith(transport: Transport): transport is Transport & {
  prepareWith(request: TransportRequest, options: { stripAllThinking: boolean }): PreparedRequest;
} {
  return typeof (transport as { prepareWith?: unknown }).prepareWith === 'function';
}

function withOrigin(message: AssistantMessage, profile: RouteProfile, usage: Usage | null): AssistantMessage {
  const stamped: AssistantMessage = { ...message, timestamp: message.timestamp ?? Date.now() };
  // The provider usage anchors later estimates (SPEC §15); a private key, never sent.
  if (usage) stamped['_usage'] = { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens };
  if (!stamped.origin) stamped.origin = { ...profile.origin };
  return stamped;
}

function addUsage(result: TurnResult, usage: Usage | null): void {
  if (!usage) return;
  result.usage.input_tokens += usage.inputTokens;
  result.usage.output_tokens += usage.outputTokens;
  result.usage.reasoning_tokens += usage.reasoningTokens ?? 0;
  result.usage.total_tokens += usage.totalTokens;
}

function decorate(error: HermesError, attempt: number): HermesError {
  if (error instanceof ApiError && attempt > 1) {
    const hint =
      ' (a learned verdict did not help: see `hermes routes verdicts` and `hermes replay preview --explain`)';
    return Object.assign(error, { message: error.message + hint });
  }
  return error;
}

/**
 * The session fields the turn sets: its route, and a title from the question when the session
 * has none; null when the record already says all of that (the append alone touches it).
 */
function sessionFieldsFor(session: SessionRecord, options: AgentTurnOptions, userText: string): SessionFields | null {
  const fields: SessionFields = {
    provider: options.sessionRoute?.provider ?? options.route.provider,
    model: options.route.model,
    baseUrl: options.sessionRoute ? options.sessionRoute.baseUrl : (options.route.baseUrl ?? null),
    api: options.route.api,
    ...(session.title ? {} : { title: titleFrom(userText) }),
  };
  const unchanged =
    fields.title === undefined &&
    fields.provider === session.provider &&
    fields.model === session.model &&
    fields.baseUrl === session.baseUrl &&
    fields.api === session.api;
  return unchanged ? null : fields;
}

function titleFrom(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 57)}...` : line || 'untitled';
}
