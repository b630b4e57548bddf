import { ApiError, HermesError } from '../core/errors.js';
import type { JsonObject } from '../core/json.js';
import type { AssistantMessage, Message, ToolMessage } from '../core/message.js';
import type { RouteProfile } from '../replay/replay-route-profile.js';
import { withoutDuplicateToolCalls } from '../replay/replay-recovery.js';
import { executeToolCall } from '../tools/tool-registry.js';
import { ShellProcesses } from '../tools/tool-shell-processes.js';
import { redactFromLogs } from '../logging/logger.js';
import type { SessionFields, SessionRecord } from '../storage/session-store.js';
import { holdSessionLease, leaseFencedStore, type HeldSessionLease } from '../storage/session-lease-hold.js';
import { storedBaseUrl } from '../storage/session-store-rules.js';
import { missingToolResults } from './runtime-history.js';
import { repairToolPairing } from './runtime-history-repair.js';
import { findKeyedTurn, finishedTurnResult, TURN_DIGEST, TURN_KEY, turnDigest } from './runtime-turn-key.js';
import { isContextOverflow } from './runtime-errors.js';
import { planCompaction } from './compaction-plan.js';
import { compressSession } from './compaction-run.js';
import { turnRouteProfile, type AgentTurnOptions, type TurnResult } from './runtime-turn-options.js';
import { continueIncompleteTurn } from './runtime-continuation.js';
import { openTurnHistory, type TurnHistory } from './runtime-warm-history.js';
import {
  addUsage,
  recordRequestSafely,
  requestOnce,
  TurnInterruptedError,
  turnTransport,
  withOrigin,
} from './runtime-request.js';

export type { AgentEvent, AgentTurnOptions, TurnResult, TurnToolCall } from './runtime-turn-options.js';
export { TurnInterruptedError } from './runtime-request.js';

/**
 * Runs one user turn under the session lease (SPEC §23.6: a session busy in another process
 * fails fast with `SessionBusyError`): appends the user message, then loops request → stream →
 * capture → persist → tools until a final answer or the iteration cap (docs/architecture.md).
 * Each append is one transaction (the question goes in with the session's route fields); a
 * partial assistant message is never stored.
 */
export async function runAgentTurn(userText: string, turnOptions: AgentTurnOptions): Promise<TurnResult> {
  const { store, sessionId } = turnOptions;
  // A key given on the command line is not in the environment: the log files learn it here.
  redactFromLogs(turnOptions.apiKey);
  // A caller that holds the lease already found the session; the leased turn reads it again.
  if ((turnOptions.newSession || !turnOptions.lease) && !(await store.getSession(sessionId))) {
    if (!turnOptions.newSession) throw new HermesError(`no session "${sessionId}"`);
    await store.createSession({ ...turnOptions.newSession, id: sessionId });
  }
  const ownLease = turnOptions.lease
    ? null
    : await holdSessionLease(store, sessionId, { owner: turnOptions.leaseOwner ?? 'hermes' });
  const lease = turnOptions.lease ?? (ownLease as HeldSessionLease);
  // What the turn's shell commands leave running in the background ends with the turn.
  const shellProcesses = turnOptions.shellProcesses ?? new ShellProcesses();
  try {
    return await runLeasedTurn(userText, { ...turnOptions, shellProcesses, store: leaseFencedStore(store, lease) });
  } finally {
    await shellProcesses.end();
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
  const keyed = findKeyedTurn(stored, options.turnKey, userText);
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
    if (options.turnKey !== undefined) {
      Object.assign(user, { [TURN_KEY]: options.turnKey, [TURN_DIGEST]: turnDigest(userText) });
    }
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
  const transport = await turnTransport(options);
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
    // The turn's reasoning is every request's, in order (a tool loop thinks before each call).
    const reasoning =
      answer.reasoning || answer.reasoning_content?.trim() ? (answer.reasoning ?? answer.reasoning_content ?? '') : '';
    if (reasoning) result.reasoning = result.reasoning ? `${result.reasoning}\n\n${reasoning}` : reasoning;
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
          processes: options.shellProcesses,
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
    storedBaseUrl(fields.baseUrl) === session.baseUrl &&
    fields.api === session.api;
  return unchanged ? null : fields;
}

function titleFrom(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 57)}...` : line || 'untitled';
}
