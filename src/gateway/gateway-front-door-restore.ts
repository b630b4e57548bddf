import type { JsonValue } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import type { AssistantMessage, Message, ToolCall } from '../core/message.js';
import type { CarrierDecision } from '../runtime/runtime-client-turn.js';
import type { ClientHistory } from './gateway-front-door-handles.js';
import { ARCHIVED_KEY } from '../storage/session-archive.js';
import { carriersOf, restoreCarriers, type SealedCarriers } from './gateway-handle-carriers.js';

/**
 * A front door never knows less than the session it mirrors (SPEC §26.1). When a request names
 * its session, each assistant turn of the client's history is matched, in order, with the
 * session's assistant turns by what the client can see — its text, and each tool call's id,
 * name and arguments. A matched turn gets its carriers from the session's copy: what the client
 * dropped (Claude Code strips every thinking block when the model changes), blanked
 * (`"signature":""`, `encrypted_content: null`), cut (the `openai` SDK's stream helper keeps the
 * last `reasoning_content` chunk only) or never had (the chat-completions door returns only
 * readable reasoning) comes back. Where an opened handle agrees with the session nothing
 * changes; where they disagree, the session wins. The route table and origin scoping then decide
 * what travels, as for a stored session's turn. A turn the session does not hold (the client
 * edited it) keeps the client's bytes; both outcomes are decisions.
 */

/** Field name the decisions of this step carry (`--explain`, the inspector). */
export const SESSION_COPY_FIELD = 'session copy';

/** The assistant turns of a stored session with their visible keys, in order. */
export interface StoredTurns {
  turns: AssistantMessage[];
  keys: string[];
}

/** The assistant turns of `stored` with their visible keys. */
export function storedTurnsOf(stored: readonly Message[]): StoredTurns {
  const turns = stored.filter((message): message is AssistantMessage => message.role === 'assistant');
  return { turns, keys: turns.map(visibleKey) };
}

/** Where a restoration starts: after a prefix of the client's history that was restored before. */
export interface RestoreStart {
  /** The first message of the client's history to restore. */
  from: number;
  /** The position among the stored turns that matching continues from. */
  nextStoredTurn: number;
}

/**
 * Restores the client's assistant turns from `stored` (the session's assistant turns and their
 * visible keys, in order), in place in `history.messages`; returns one decision per turn restored
 * or left unmatched. `inputDecisions` are the handle decisions already made (they say why a
 * client copy is short). With `start`, the messages before `start.from` are left as they are;
 * `onMessage` hears, for each message restoration looked at, the position matching continues from
 * and whether it is an assistant turn no stored turn matched (`false` for any other message).
 */
export function restoreFromSession(
  history: ClientHistory,
  stored: StoredTurns,
  inputDecisions: readonly CarrierDecision[],
  /** The session `stored` comes from when it is not the one the request names (a fork's origin). */
  origin?: string,
  start: RestoreStart = { from: 0, nextStoredTurn: 0 },
  onMessage?: (index: number, nextStoredTurn: number, unmatched: boolean) => void,
): CarrierDecision[] {
  const decisions: CarrierDecision[] = [];
  let next = start.nextStoredTurn;
  for (let index = start.from; index < history.messages.length; index += 1) {
    const message = history.messages[index] as Message;
    let unmatched = false;
    if (message.role === 'assistant') {
      const found = stored.keys.indexOf(visibleKey(message), next);
      unmatched = found < 0;
      if (stored.turns.length > 0)
        next = restoreTurn(history, index, message, stored, found, next, inputDecisions, origin, decisions);
    }
    onMessage?.(index, next, unmatched);
  }
  return decisions;
}

/** Restores one assistant turn; returns the stored position matching continues from. */
function restoreTurn(
  history: ClientHistory,
  index: number,
  message: AssistantMessage,
  stored: StoredTurns,
  found: number,
  next: number,
  inputDecisions: readonly CarrierDecision[],
  origin: string | undefined,
  decisions: CarrierDecision[],
): number {
  if (found < 0) {
    decisions.push({
      messageIndex: index,
      field: SESSION_COPY_FIELD,
      action: 'kept',
      reason: "client's copy: no turn of the session matches it (edited or not mirrored)",
    });
    return next;
  }
  const copy = storedCarriers(stored.turns[found] as AssistantMessage);
  if (copy === null) return found + 1;
  const restored = restoreCarriers(visibleTurn(message), copy.carriers);
  if (!('message' in restored)) return found + 1;
  history.messages[index] = restored.message;
  if (copy.reasoning === reasoningOf(message)) return found + 1;
  decisions.push({
    messageIndex: index,
    field: SESSION_COPY_FIELD,
    action: 'restored',
    reason: `restored from ${origin === undefined ? 'session' : `session ${origin}`}: ${whatTheClientHad(message, index, history, inputDecisions)}`,
    bytes: copy.bytes,
  });
  return found + 1;
}

/** A stored turn's carriers as restoration uses them, worked out once per stored object. */
interface StoredCarriers {
  carriers: SealedCarriers;
  /** {@link reasoningOf} a turn restored from them. */
  reasoning: string;
  bytes: number;
}

const carriersByTurn = new WeakMap<AssistantMessage, StoredCarriers | null>();

function storedCarriers(turn: AssistantMessage): StoredCarriers | null {
  const known = carriersByTurn.get(turn);
  if (known !== undefined) return known;
  const carriers = carriersOf(turn);
  if (carriers !== null) {
    // Store marks describe the stored row, not the turn: never carried into a request.
    delete carriers.m[ARCHIVED_KEY];
  }
  const copy =
    carriers === null
      ? null
      : {
          carriers,
          reasoning: reasoningOfCarriers(carriers),
          bytes: Buffer.byteLength(JSON.stringify(carriers), 'utf8'),
        };
  carriersByTurn.set(turn, copy);
  return copy;
}

/** Why the client's copy was not enough, in a few words. */
function whatTheClientHad(
  message: AssistantMessage,
  index: number,
  history: ClientHistory,
  inputDecisions: readonly CarrierDecision[],
): string {
  const handle = inputDecisions.find((decision) => decision.messageIndex === index && decision.action === 'dropped');
  if (handle) return `the client's handle was dropped (${handle.reason})`;
  const echo = history.echoes.get(index);
  const readable = message.reasoning ?? message.reasoning_content ?? '';
  if (!echo && readable === '') return 'the client sent no reasoning';
  if (
    echo &&
    echo.reasoning.every((entry) => entry.value === '' || entry.value === null || entry.value === undefined)
  ) {
    return 'the client sent its reasoning blank';
  }
  if (!echo) return `the client sent only readable reasoning (${Buffer.byteLength(readable, 'utf8')} B)`;
  return "the client's copy differs from the session's";
}

/**
 * What the client sees of a turn, as one string: its text (trimmed) and each call's id, name and
 * arguments (as a canonical JSON value, so re-serialised arguments still match).
 */
export function visibleKey(message: AssistantMessage): string {
  const calls = (message.tool_calls ?? []).map((call) => [call.id, call.function.name, canonicalArguments(call)]);
  return JSON.stringify([textOf(message.content).trim(), calls]);
}

function textOf(content: Message['content']): string {
  if (typeof content === 'string') return content;
  if (content === null) return '';
  return content.map((part) => (typeof part['text'] === 'string' ? part['text'] : '')).join('');
}

function canonicalArguments(call: ToolCall): string {
  try {
    return canonicalJson(JSON.parse(call.function.arguments || '{}') as JsonValue);
  } catch {
    return call.function.arguments;
  }
}

function canonicalJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key] as JsonValue)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The visible turn alone: text and calls (no carriers, no call sidecars). */
function visibleTurn(message: AssistantMessage): AssistantMessage {
  const visible: AssistantMessage = { role: 'assistant', content: message.content };
  if (message.tool_calls) {
    visible.tool_calls = message.tool_calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.function.name, arguments: call.function.arguments },
    }));
  }
  return visible;
}

/**
 * The reasoning a turn carries, as one comparable string: every sealed carrier except the stamps
 * (origin, finish reason), which a client never echoes and whose restoring is not news.
 */
function reasoningOf(message: AssistantMessage): string {
  const carriers = carriersOf(message);
  return carriers === null ? '' : reasoningOfCarriers(carriers);
}

function reasoningOfCarriers(carriers: SealedCarriers): string {
  const { origin: _origin, finish_reason: _finish, ...rest } = carriers.m;
  return canonicalJson({ m: rest, c: carriers.c as unknown as JsonValue });
}
