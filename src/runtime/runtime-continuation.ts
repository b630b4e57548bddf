import type { Route } from '../core/route.js';
import type { AssistantMessage, Message } from '../core/message.js';
import type { FinishReason } from '../core/usage.js';
import type { Logger } from '../logging/logger.js';
import type { AgentEvent } from './runtime-turn-options.js';

/**
 * Continuation of an incomplete Responses turn (SPEC §24.6). A Responses output that holds
 * reasoning but neither a message nor a function call (summary-only or `rs_tmp_` reasoning, or
 * cut by `max_output_tokens`) ends with `finish_reason.raw` = `incomplete`. The turn is not over:
 * up to {@link MAX_CONTINUATIONS} more requests are sent in the same turn, each with the history
 * plus the reasoning received so far (replayed as its items, no new user message), and the turn
 * stores one assistant message: everything received, merged.
 */

/** Continuation requests per incomplete turn (SPEC §24.6). */
export const MAX_CONTINUATIONS = 3;

/** One answered request of the turn, as the tool loop sees it. */
export interface ContinuableResponse {
  message: AssistantMessage;
  finishReason: FinishReason | null;
}

/** True when `response` is an incomplete Responses turn that must be continued (SPEC §24.6). */
export function isIncompleteTurn(api: Route['api'], response: ContinuableResponse): boolean {
  if (api !== 'codex_responses' || response.finishReason?.raw !== 'incomplete') return false;
  const { message } = response;
  return (message.tool_calls ?? []).length === 0 && (message.content ?? '') === '';
}

/**
 * The reasoning received so far merged with the next answer: the earlier reasoning items first
 * (they were produced first, and replay puts them before the answer's own), readable reasoning
 * joined, everything else (text, calls, message items, finish reason) from the next answer.
 */
export function mergeContinuation(received: AssistantMessage, next: AssistantMessage): AssistantMessage {
  const merged: AssistantMessage = { ...next };
  const items = [...(received.codex_reasoning_items ?? []), ...(next.codex_reasoning_items ?? [])];
  if (items.length > 0) merged.codex_reasoning_items = items;
  const reasoning = [received.reasoning, next.reasoning].filter((text) => text !== undefined && text !== '');
  if (reasoning.length > 0) merged.reasoning = reasoning.join('\n\n');
  return merged;
}

/** What {@link continueIncompleteTurn} needs from the tool loop. */
export interface ContinuationContext<T extends ContinuableResponse> {
  api: Route['api'];
  /** The turn's history so far (not changed here). */
  history: readonly Message[];
  /** Sends one request for a history (the tool loop's own request path: retries, verdicts, log). */
  send: (history: readonly Message[]) => Promise<T>;
  /** Accounts for an answer that is merged rather than stored (usage, learned config, request record). */
  settle: (response: T) => Promise<void>;
  logger: Logger;
  sessionId: string;
  onEvent?: ((event: AgentEvent) => void) | undefined;
}

/**
 * Continues `first` while it is incomplete, at most {@link MAX_CONTINUATIONS} times (SPEC §24.6),
 * and returns the last answer with its message merged with everything received before it. A
 * complete `first` is returned as it is. Still incomplete after the last continuation, the
 * merged reasoning is returned (stored as the turn's answer) and the user is told.
 */
export async function continueIncompleteTurn<T extends ContinuableResponse>(
  first: T,
  context: ContinuationContext<T>,
): Promise<T> {
  let current = first;
  for (let count = 1; count <= MAX_CONTINUATIONS && isIncompleteTurn(context.api, current); count += 1) {
    await context.settle(current);
    context.logger.info(
      { session: context.sessionId, continuation: count },
      `reasoning-only Responses turn: continuation ${count} of ${MAX_CONTINUATIONS} (SPEC §24.6)`,
    );
    const received = current.message;
    const next = await context.send([...context.history, received]);
    current = { ...next, message: mergeContinuation(received, next.message) };
  }
  if (isIncompleteTurn(context.api, current)) {
    const message = `the model returned reasoning only, also after ${MAX_CONTINUATIONS} continuation requests; the turn ends without an answer (ask again to go on)`;
    context.logger.warn({ session: context.sessionId }, message);
    context.onEvent?.({ type: 'recovery', message });
  }
  return current;
}
