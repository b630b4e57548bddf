import { ApiError } from '../core/errors.js';
import type { JsonObject } from '../core/json.js';
import type { AssistantMessage, Message, ToolMessage } from '../core/message.js';
import type { RouteProfile } from '../replay/replay-route-profile.js';
import { withoutDuplicateToolCalls } from '../replay/replay-recovery.js';
import { executeToolCall } from '../tools/tool-registry.js';
import { ShellProcesses } from '../tools/tool-shell-processes.js';
import { redactFromLogs } from '../logging/logger.js';
import { leaseFencedStore } from '../storage/session-lease-hold.js';
import type { SessionStore } from '../storage/session-store.js';
import { repairToolPairing } from './runtime-history-repair.js';
import { isContextOverflow } from './runtime-errors.js';
import { planCompaction } from './compaction-plan.js';
import { compressSession } from './compaction-run.js';
import { turnRouteProfile, type AgentTurnOptions, type TurnResult } from './runtime-turn-options.js';
import { continueIncompleteTurn } from './runtime-continuation.js';
import { openTurnHistory } from './runtime-warm-history.js';
import {
  addUsage,
  recordRequestSafely,
  requestOnce,
  TurnInterruptedError,
  turnTransport,
  withOrigin,
} from './runtime-request.js';
import { startTurn, type TurnLease, type TurnStart } from './runtime-turn-start.js';
import { storeAnswer, storeTurnMessages } from './runtime-turn-store.js';
import { providerDroppedCount } from './runtime-thinking-binding.js';
import { withFields } from '../core/with-fields.js';

export type { AgentEvent, AgentTurnOptions, TurnResult, TurnToolCall } from './runtime-turn-options.js';
export { TurnInterruptedError } from './runtime-request.js';

/**
 * Runs one user turn under the session lease (SPEC §23.6: a session busy in another process
 * fails fast with `SessionBusyError`): stores the question with the lease in one transaction
 * (`runtime-turn-start.ts`), then loops request → stream → capture → persist → tools until a
 * final answer or the iteration cap (docs/architecture.md). Each answer is stored with its
 * request record in one transaction, the last one also releasing the lease
 * (`runtime-turn-store.ts`); a partial assistant message is never stored.
 */
export async function runAgentTurn(userText: string, turnOptions: AgentTurnOptions): Promise<TurnResult> {
  const observer = turnOptions.observer;
  if (observer?.agentTurn) {
    const turn = { sessionId: turnOptions.sessionId, route: turnOptions.route };
    return observer.agentTurn(turn, () => runTurn(userText, turnOptions));
  }
  return runTurn(userText, turnOptions);
}

async function runTurn(userText: string, turnOptions: AgentTurnOptions): Promise<TurnResult> {
  // A key given on the command line is not in the environment: the log files learn it here.
  redactFromLogs(turnOptions.apiKey);
  const turnHistory = openTurnHistory(turnOptions.store, turnOptions.sessionId, turnOptions.warmHistories);
  const start = await startTurn(userText, turnOptions, turnHistory);
  if (start.kind === 'finished') return start.result;
  const { lease } = start;
  // What the turn's shell commands leave running in the background ends with the turn.
  const shellProcesses = turnOptions.shellProcesses ?? new ShellProcesses();
  const store = leaseFencedStore(turnHistory.store, lease.held);
  try {
    const result = await runStartedTurn(withFields(turnOptions, { shellProcesses, store }), start);
    await turnHistory.settle(result.sessionId);
    return result;
  } catch (error) {
    if (turnOptions.takeBackWhenInterrupted && turnOptions.signal?.aborted) {
      await takeBackTurn(store, turnOptions, start);
    }
    throw error;
  } finally {
    await shellProcesses.end();
    if (lease.own) await lease.held.release();
  }
}

/**
 * Takes back an interrupted turn (`AgentTurnOptions.takeBackWhenInterrupted`) under its lease: a
 * session it created is deleted, else its exchange is marked undone. A failure is logged: the
 * turn's own error is what the caller sees.
 */
async function takeBackTurn(
  store: SessionStore,
  options: AgentTurnOptions,
  start: Extract<TurnStart, { kind: 'started' }>,
): Promise<void> {
  try {
    // Only while this turn still holds the session: another holder's messages are not ours to take.
    await start.lease.held.ensureHeld();
    if (start.created) await store.deleteSession(options.sessionId);
    else await store.undoLastExchange(options.sessionId);
  } catch (error) {
    options.logger.warn(
      { session: options.sessionId, err: (error as Error).message },
      `the interrupted turn could not be taken back: ${(error as Error).message}`,
    );
  }
}

async function runStartedTurn(
  turnOptions: AgentTurnOptions,
  start: Extract<TurnStart, { kind: 'started' }>,
): Promise<TurnResult> {
  let options = turnOptions;
  const { store } = options;
  const { history, lease } = start;
  let modelConfig: JsonObject = start.modelConfig;
  options.onEvent?.({ type: 'user-stored', sessionId: options.sessionId });

  const result: TurnResult = {
    sessionId: options.sessionId,
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
    const onLeased = options.sessionId === lease.held.sessionId;
    const outcome = await compressSession(
      onLeased ? withFields(options, { leaseId: lease.held.record.leaseId }) : options,
      (message) => options.onEvent?.({ type: 'compacting', message }),
      force,
    );
    if (!outcome.compacted) {
      options.logger.info({ session: options.sessionId }, outcome.message);
      options.onEvent?.({ type: 'recovery', message: outcome.message });
      return false;
    }
    options.logger.info({ session: options.sessionId, compaction: outcome.record }, outcome.message);
    options.onEvent?.({
      type: 'compacted',
      from: options.sessionId,
      to: outcome.sessionId,
      message: outcome.message,
    });
    // In place the session keeps its id; a child (`compaction.in_place: false`) continues the turn.
    if (outcome.sessionId !== options.sessionId) {
      options = { ...options, sessionId: outcome.sessionId };
      result.sessionId = outcome.sessionId;
    }
    history.splice(0, history.length, ...repairToolPairing(await store.listMessages(outcome.sessionId)));
    modelConfig = (await store.getSession(outcome.sessionId))?.modelConfig ?? modelConfig;
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
    const dropped = providerDroppedCount(answer);
    if (dropped > 0) result.thinkingDroppedByProvider = (result.thinkingDroppedByProvider ?? 0) + dropped;
    // The answer and its request record in one commit; the record never costs the answer.
    await storeAnswer(options, lease, answer, record, !answer.tool_calls?.length);
    history.push(answer);
    // The turn's reasoning is every request's, in order (a tool loop thinks before each call).
    const reasoning =
      answer.reasoning || answer.reasoning_content?.trim() ? (answer.reasoning ?? answer.reasoning_content ?? '') : '';
    if (reasoning) result.reasoning = result.reasoning ? `${result.reasoning}\n\n${reasoning}` : reasoning;
    if (!answer.tool_calls?.length) {
      result.answer = answer.content ?? '';
      return result;
    }
    await runToolCalls(answer, history, result, options, lease);
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
  lease: TurnLease,
): Promise<void> {
  for (const call of assistant.tool_calls ?? []) {
    const interrupted = options.signal?.aborted ?? false;
    const execute = () =>
      executeToolCall(call.function.name, call.function.arguments, {
        workspace: options.workspace,
        approve: options.approve,
        signal: options.signal,
        processes: options.shellProcesses,
        ...(options.tools ? { tools: options.tools } : {}),
      });
    const observer = options.observer;
    const outcome = interrupted
      ? { content: 'error: interrupted by the user before the tool ran', isError: true }
      : observer?.toolCall
        ? await observer.toolCall({ id: call.id, name: call.function.name, sessionId: options.sessionId }, execute)
        : await execute();
    const toolMessage: ToolMessage = {
      role: 'tool',
      tool_call_id: call.id,
      tool_name: call.function.name,
      content: outcome.content,
      timestamp: Date.now(),
    };
    await storeTurnMessages(options, lease, [toolMessage]);
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
