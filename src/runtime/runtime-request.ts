import { AbortError, ApiError, HermesError } from '../core/errors.js';
import type { JsonObject } from '../core/json.js';
import { withFields } from '../core/with-fields.js';
import type { Route } from '../core/route.js';
import type { AssistantMessage, Message } from '../core/message.js';
import type { FinishReason, Usage } from '../core/usage.js';
import type { StreamEvent } from '../core/stream-event.js';
import type { Carrier, CarrierDecision, RouteLearned, RouteProfile } from '../replay/replay-route-profile.js';
import { BUILTIN_TOOLS, toolDefinitions } from '../tools/tool-registry.js';
import type { SessionStore } from '../storage/session-store.js';
import { SessionLeaseLostError } from '../storage/session-lease.js';
import { rememberBuilt, warmLongHistory } from './runtime-request-warm.js';
import type { PreparedRequest, Transport, TransportRequest } from '../transports/shared/transport.js';
import { loadTransport } from '../transports/transport-registry.js';
import { logRequest } from './runtime-request-log.js';
import { requestTarget } from './runtime-request-target.js';
import { logProviderFailure, logProviderRetry } from './runtime-error-log.js';
import { learnFromFailedRetry, recoverFromError, type Recovery } from './runtime-recovery.js';
import { errorBodyOf } from './runtime-errors.js';
import { classifyRequiredCarrierRejection } from '../replay/replay-recovery.js';
import { learnedFrom, rejectedCarriersFrom, rejectedEffortsFrom } from './runtime-route-memory.js';
import { requestReasoning } from './runtime-reasoning.js';
import type { AgentTurnOptions, TurnResult } from './runtime-turn-options.js';
import { requestCompactThreshold } from './runtime-native-compaction.js';
import { settleAnthropicAnswer } from './runtime-thinking-binding.js';
import { reportProviderRequest } from './runtime-observer.js';

/**
 * One provider request of a turn: build it from the history and the route profile, log its
 * decisions, stream it, and on a 4xx a recovery row can fix, learn and retry exactly once
 * (SPEC §13.3). The agent loop (`agent-turn.ts`) calls it once per iteration.
 */

/** The turn was interrupted (Ctrl-C); the stored history stays valid. */
export class TurnInterruptedError extends HermesError {
  override readonly name = 'TurnInterruptedError';
}

/**
 * What one request needs of the turn: the turn's options, or a caller's own (the AI SDK
 * provider, which runs tools itself and passes their definitions as `clientTools`).
 */
export type RequestOptions = Pick<
  AgentTurnOptions,
  | 'store'
  | 'sessionId'
  | 'route'
  | 'apiKey'
  | 'reasoning'
  | 'reasoningOverrides'
  | 'logger'
  | 'stream'
  | 'tools'
  | 'clientTools'
  | 'signal'
  | 'fetch'
  | 'connectTo'
  | 'sessionRoute'
  | 'timeouts'
  | 'compaction'
  | 'onEvent'
  | 'observer'
> & {
  /** Max output tokens of the request. */
  maxTokens?: number | undefined;
};

/** Sends one request, learning a rejected carrier and retrying exactly once (SPEC §13.3). */
export async function requestOnce(
  transport: Transport,
  history: readonly Message[],
  modelConfig: JsonObject,
  profile: RouteProfile,
  options: RequestOptions,
): Promise<TurnResponse> {
  let config = modelConfig;
  // One read of the route's store-wide verdict serves both: the carriers and the effort levels it refused.
  const verdict = await options.store.getVerdict(profile.routeKey);
  let learned = learnedFrom(config, rejectedCarriersFrom(config, profile, verdict), profile, verdict);
  let refusedEfforts = rejectedEffortsFrom(config, profile, verdict);
  let retry: Recovery | null = null;
  for (let attempt = 1; ; attempt += 1) {
    const reasoning = requestReasoning(
      options.reasoning,
      options.reasoningOverrides,
      options.route.model,
      refusedEfforts,
    );
    const request = buildRequest(history, profile, learned, { ...options, reasoning });
    request.compactThreshold = requestCompactThreshold(profile, options.compaction, config);
    if (attempt === 1) await warmLongHistory(transport, request);
    const built: PreparedRequest =
      retry?.stripAllThinking && hasPrepareWith(transport)
        ? transport.prepareWith(request, { stripAllThinking: true })
        : transport.prepare(request);
    rememberBuilt(request.history);
    // A rewritten body is not the one the encoder digested: the answer is bound against the body sent.
    const prepared: PreparedRequest = retry?.rewriteBody
      ? withFields(built, { body: retry.rewriteBody(built.body), bindingPrefix: undefined })
      : built;
    const decisions = recentDecisions(prepared, history);
    logRequest(options.logger, options.sessionId, options.route, prepared, attempt, decisions, () =>
      requestTarget(options.route, options.connectTo, options.sessionRoute),
    );
    options.onEvent?.({ type: 'request-sent', routeKey: prepared.routeKey, attempt });
    const startedAt = Date.now();
    const started = performance.now();
    const outcome = await consume(transport, request, prepared, options);
    const durationMs = performance.now() - started;
    const observe = (recovery: Recovery | null) =>
      reportProviderRequest(options.observer, () => ({
        route: options.route,
        routeKey: prepared.routeKey,
        sessionId: options.sessionId,
        attempt,
        stream: request.stream !== false,
        startedAt,
        durationMs,
        status: record.status,
        errorType: outcome.error ? outcome.error.name : null,
        usage: outcome.error ? null : outcome.usage,
        finishReason: outcome.error ? null : outcome.finishReason,
        decisions,
        carriersSent: [...prepared.carriersSent, ...(prepared.nativeCarriersSent ?? [])],
        recovery: recovery && { row: recovery.row, learned: recovery.learned.kind, fields: recovery.learned.fields },
        history,
        message: outcome.error ? null : outcome.message,
      }));
    const record: RequestRecordInput = {
      sessionId: options.sessionId,
      at: Date.now(),
      api: options.route.api,
      routeKey: prepared.routeKey,
      status: outcome.error instanceof ApiError ? outcome.error.status : outcome.error ? 0 : 200,
      decisions: decisions as unknown as JsonObject[],
    };
    if (!outcome.error) {
      observe(null);
      const settled = settleAnthropicAnswer(outcome.message, prepared, {
        profile,
        logger: options.logger,
        sessionId: options.sessionId,
        note: (message) => options.onEvent?.({ type: 'recovery', message }),
      });
      if (settled.decisions.length > 0) {
        record.decisions = [...record.decisions, ...(settled.decisions as unknown as JsonObject[])];
      }
      return { message: settled.message, usage: outcome.usage, finishReason: outcome.finishReason, config, record };
    }
    // The provider's complaint travels with the record (already redacted by the transport).
    record.error = complaintOf(outcome.error);
    await recordRequestSafely(record, options);
    const error = outcome.error;
    if (error instanceof AbortError || options.signal?.aborted) {
      observe(null);
      throw new TurnInterruptedError('turn interrupted; nothing partial was stored');
    }
    logProviderFailure(options.logger, {
      sessionId: options.sessionId,
      routeKey: prepared.routeKey,
      attempt,
      error,
      apiKey: options.apiKey,
    });
    const state = {
      store: options.store,
      sessionId: options.sessionId,
      config,
      rejected: learned.rejectedCarriers,
      reasoning,
      rejectedEfforts: refusedEfforts,
      standIn: learned.standIn,
    };
    let lesson: Recovery | null = null;
    if (attempt > 1) {
      lesson = await learnFromFailedRetry(error, prepared, profile, state);
      if (lesson) {
        options.logger.warn(
          {
            session: options.sessionId,
            routeKey: prepared.routeKey,
            recovery: lesson.row,
            fields: lesson.learned.fields,
          },
          `${lesson.log.replace(/; retrying once$/, '')} (for the next request: this one was already retried)`,
        );
      }
    }
    const recovery: Recovery | null =
      attempt === 1 ? await recoverFromError(error, prepared, profile, state, outcome.delivered) : null;
    // What this failed request taught: before its retry, or for the next request after a failed retry.
    observe(recovery ?? lesson);
    if (!recovery) throw decorate(error, attempt, prepared);
    config = recovery.config;
    learned = learnedFrom(config, recovery.rejected, profile, verdict);
    refusedEfforts = recovery.rejectedEfforts ?? refusedEfforts;
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
export type RequestRecordInput = Parameters<SessionStore['recordRequest']>[0];

/** One answered request: the message, its usage and finish reason, the config and record to keep. */
export interface TurnResponse {
  message: AssistantMessage;
  usage: Usage | null;
  finishReason: FinishReason | null;
  config: JsonObject;
  record: RequestRecordInput;
}

/** Records a request (a diagnostic write): a failure is logged and never fails the turn. */
export async function recordRequestSafely(
  record: RequestRecordInput,
  options: Pick<RequestOptions, 'store' | 'logger'>,
): Promise<void> {
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
  options: RequestOptions,
): TransportRequest {
  const request: TransportRequest = {
    route: options.route,
    profile,
    learned,
    history,
    tools: options.clientTools ?? toolDefinitions(options.tools ?? BUILTIN_TOOLS),
    reasoning: options.reasoning,
    stream: options.stream ?? true,
    apiKey: options.apiKey,
    signal: options.signal,
    fetch: options.fetch,
    connectTo: options.connectTo,
    timeouts: options.timeouts,
  };
  if (options.maxTokens !== undefined) request.maxTokens = options.maxTokens;
  return request;
}

async function consume(
  transport: Transport,
  request: TransportRequest,
  prepared: PreparedRequest,
  options: RequestOptions,
): Promise<
  | { message: AssistantMessage; usage: Usage | null; finishReason: FinishReason | null; error?: undefined }
  | { error: HermesError; delivered: boolean }
> {
  const stream = transport.send(request, prepared);
  let usage: Usage | null = null;
  // Whether any of the answer reached the caller: a failure after that is never retried.
  let delivered = false;
  for (;;) {
    const taken = stream.take();
    const event = taken instanceof Promise ? await taken : taken;
    if (event === undefined) break;
    options.onEvent?.(event);
    if (CONTENT_EVENTS.has(event.type)) delivered = true;
    if (event.type === 'retry') {
      logProviderRetry(options.logger, { sessionId: options.sessionId, routeKey: prepared.routeKey, ...event });
    }
    if (event.type === 'finish') {
      usage = event.usage;
      return { message: event.message, usage, finishReason: event.finishReason };
    }
    if (event.type === 'error') return { error: event.error, delivered };
  }
  try {
    return { message: await stream.result(), usage, finishReason: null };
  } catch (error) {
    return { error: error instanceof HermesError ? error : new HermesError(String(error)), delivered };
  }
}

/** Stream events that show the user part of the answer. */
const CONTENT_EVENTS: ReadonlySet<StreamEvent['type']> = new Set([
  'text-delta',
  'reasoning-delta',
  'tool-call-start',
  'tool-call-delta',
]);

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

export function withOrigin(message: AssistantMessage, profile: RouteProfile, usage: Usage | null): AssistantMessage {
  const stamped: AssistantMessage = { ...message, timestamp: message.timestamp ?? Date.now() };
  // The provider usage anchors later estimates (SPEC §15); a private key, never sent.
  if (usage) stamped['_usage'] = { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens };
  if (!stamped.origin) stamped.origin = { ...profile.origin };
  return stamped;
}

export function addUsage(result: TurnResult, usage: Usage | null): void {
  if (!usage) return;
  result.usage.input_tokens += usage.inputTokens;
  result.usage.output_tokens += usage.outputTokens;
  result.usage.reasoning_tokens += usage.reasoningTokens ?? 0;
  result.usage.total_tokens += usage.totalTokens;
}

/** Longest provider complaint a request record keeps. */
const COMPLAINT_LIMIT = 4096;

/** What a failed request's record says went wrong: the provider's text (or the error's message), cut. */
function complaintOf(error: HermesError): string {
  const text = error instanceof ApiError ? errorBodyOf(error) || error.message : error.message;
  return text.length > COMPLAINT_LIMIT ? `${text.slice(0, COMPLAINT_LIMIT)}…` : text;
}

function decorate(error: HermesError, attempt: number, prepared: PreparedRequest): HermesError {
  const missing =
    error instanceof ApiError ? classifyRequiredCarrierRejection(errorBodyOf(error), prepared.body) : null;
  if (missing !== null) {
    // SPEC §26.2: a turn that still fails says which carrier and which route, in one line.
    const carrier = missing === 'signed-thinking' ? 'signed thinking' : 'a thought signature';
    const line = `${prepared.routeKey} still requires ${carrier} on a tool-call step after its stand-in`;
    return Object.assign(error, { message: `${line}: ${error.message}` });
  }
  if (error instanceof ApiError && attempt > 1) {
    const hint =
      ' (a learned verdict did not help: see `hermes routes verdicts` and `hermes replay preview --explain`)';
    return Object.assign(error, { message: error.message + hint });
  }
  return error;
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

/** The transport of the turn's route: `transportFor` when the caller supplies one, else the loaded one. */
export async function turnTransport(options: Pick<AgentTurnOptions, 'transportFor' | 'route'>): Promise<Transport> {
  return options.transportFor
    ? options.transportFor(options.route.api)
    : (loadedTransports.get(options.route.api) ?? (await loadedTransport(options.route.api)));
}
