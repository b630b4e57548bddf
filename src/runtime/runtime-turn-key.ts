import type { AssistantMessage, Message, ToolMessage } from '../core/message.js';
import type { TurnResult } from './runtime-turn-options.js';

/**
 * Turn keys make a retried turn safe (SPEC §23.6: no turn lost or duplicated across a gateway
 * fleet). A client that sends a turn with a key (`Idempotency-Key`) and loses the answer — its
 * gateway died mid-turn — sends it again, to any gateway, with the same key. The user message
 * stores the key in the private `_turn_key` (private keys never reach a provider), so the retry
 * finds its turn: finished, it is answered from the store without a new request; unfinished, it
 * goes on from what was stored instead of adding a second user message.
 */

/** The private message key holding a turn's key. */
export const TURN_KEY = '_turn_key';

/** Where a keyed turn stands in the stored history. */
export type KeyedTurn =
  | { state: 'new' }
  /** The user message is stored; the turn never finished. */
  | { state: 'unfinished' }
  /** The turn finished: the messages it stored after its user message. */
  | { state: 'finished'; messages: Message[] };

/** Finds the turn `key` names: only the LAST user turn counts (an older key is a new turn). */
export function findKeyedTurn(history: readonly Message[], key: string | undefined): KeyedTurn {
  if (key === undefined) return { state: 'new' };
  let userIndex = -1;
  for (let index = history.length - 1; index >= 0; index -= 1) {
    if (history[index]?.role === 'user') {
      userIndex = index;
      break;
    }
  }
  const user = history[userIndex] as (Message & Record<string, unknown>) | undefined;
  if (user === undefined || user[TURN_KEY] !== key) return { state: 'new' };
  const after = history.slice(userIndex + 1);
  const last = after.at(-1);
  if (last?.role === 'assistant' && !last.tool_calls?.length) return { state: 'finished', messages: after };
  return { state: 'unfinished' };
}

/** The tool calls of a finished turn, with their stored results, as `TurnResult.toolCalls`. */
export function storedToolCalls(messages: readonly Message[]) {
  const results = new Map<string, ToolMessage>();
  for (const message of messages) if (message.role === 'tool') results.set(message.tool_call_id, message);
  return messages
    .filter((message): message is AssistantMessage => message.role === 'assistant')
    .flatMap((message) => message.tool_calls ?? [])
    .map((call) => {
      const result = results.get(call.id)?.content ?? '';
      return {
        id: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
        result,
        is_error: result.startsWith('error:'),
      };
    });
}

/** The result of a keyed turn that already finished: rebuilt from what it stored, no request sent. */
export function finishedTurnResult(sessionId: string, messages: readonly Message[]): TurnResult {
  const assistants = messages.filter((message): message is AssistantMessage => message.role === 'assistant');
  const reasoning = assistants
    .map((message) => message.reasoning ?? (message.reasoning_content?.trim() ? message.reasoning_content : ''))
    .filter((text) => text)
    .at(-1);
  return {
    sessionId,
    answer: assistants.at(-1)?.content ?? '',
    reasoning: reasoning ?? '',
    toolCalls: storedToolCalls(messages),
    usage: { input_tokens: 0, output_tokens: 0, reasoning_tokens: 0, total_tokens: 0 },
    iterations: assistants.length,
    stoppedAtCap: false,
  };
}
