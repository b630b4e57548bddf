import { createHash } from 'node:crypto';
import { HermesError } from '../core/errors.js';
import type { AssistantMessage, Message, ToolMessage } from '../core/message.js';
import type { TurnResult } from './runtime-turn-options.js';
import { toolResultIsError } from '../tools/tool-registry.js';

/**
 * Turn keys make a retried turn safe (SPEC §23.6: no turn lost or duplicated across a gateway
 * fleet). A client that sends a turn with a key (`Idempotency-Key`) and loses the answer — its
 * gateway died mid-turn — sends it again, to any gateway, with the same key. The user message
 * stores the key in the private `_turn_key` (private keys never reach a provider), so the retry
 * finds its turn: finished, it is answered from the store without a new request; unfinished, it
 * goes on from what was stored instead of adding a second user message.
 *
 * A key names ONE request: the user message also stores a digest of what the turn was asked
 * (`_turn_digest`, the SHA-256 of the user text, which is all of the request a turn stores and
 * answers). A key sent again with a different request is a client bug (a reused or colliding
 * key): it fails with {@link TurnKeyReusedError} (the gateway's 422), never answered with the
 * first turn's answer while the new message is dropped.
 */

/** The private message key holding a turn's key. */
export const TURN_KEY = '_turn_key';

/** The private message key holding the digest of the request a turn's key was first sent with. */
export const TURN_DIGEST = '_turn_digest';

/** Longest part of a client's key repeated in a message. */
const SHOWN_KEY_LENGTH = 100;

/** The digest stored with a turn key: `sha256:` and the hex SHA-256 of the turn's user text. */
export function turnDigest(userText: string): string {
  return `sha256:${createHash('sha256').update(userText).digest('hex')}`;
}

/** A turn key sent again with a different request than the one it was first used for. */
export class TurnKeyReusedError extends HermesError {
  override readonly name: string = 'TurnKeyReusedError';

  constructor(key: string) {
    const shown = key.length > SHOWN_KEY_LENGTH ? `${key.slice(0, SHOWN_KEY_LENGTH)}…` : key;
    super(
      `Idempotency-Key "${shown}" was already used in this session for a different request (another user ` +
        'message); the new message was not stored or sent. Use a new key for a new turn, or resend the original request ' +
        'unchanged to get its answer',
    );
  }
}

/** Where a keyed turn stands in the stored history. */
export type KeyedTurn =
  | { state: 'new' }
  /** The user message is stored; the turn never finished. */
  | { state: 'unfinished' }
  /** The turn finished: the messages it stored after its user message. */
  | { state: 'finished'; messages: Message[] };

/**
 * Finds the turn `key` names: only the LAST user turn counts (an older key is a new turn).
 * Throws {@link TurnKeyReusedError} when that turn was asked something else than `userText`
 * (a message stored without a digest is compared by its text).
 */
export function findKeyedTurn(history: readonly Message[], key: string | undefined, userText: string): KeyedTurn {
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
  const stored = typeof user[TURN_DIGEST] === 'string' ? user[TURN_DIGEST] : turnDigest(String(user.content ?? ''));
  if (stored !== turnDigest(userText)) throw new TurnKeyReusedError(key);
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
        is_error: toolResultIsError(call.function.name, result),
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
