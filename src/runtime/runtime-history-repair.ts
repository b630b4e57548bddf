import type { Message, ToolMessage } from '../core/message.js';
import { INTERRUPTED_TOOL_RESULT } from './runtime-history.js';

/**
 * The request history of a stored session whose tool messages are out of place: every
 * assistant tool call is followed, immediately and in call order, by exactly one result. Such
 * damage comes from two processes that wrote one session at once before the session lease
 * existed (stored order `u,u,aT,aT,t,t,a,a`, duplicate results) or from rows lost to a damaged
 * file. The stored history is never rewritten: this runs on every load, on a copy.
 *
 * Rules: each assistant tool call takes the first not yet taken tool message with its call id
 * stored after it (ids may repeat across turns: some providers number calls `call_0`, ... each
 * turn), and those results follow it in call order; a tool message no call takes (a duplicate,
 * or an orphan whose call was never stored) is dropped, since providers reject it; a call with
 * no stored result gets the interrupted-tool placeholder. A valid history comes back unchanged.
 */
export function repairToolPairing(history: readonly Message[]): Message[] {
  // The common case, checked in one pass without building anything: nothing to repair.
  if (pairedInOrder(history)) return [...history];
  const positions = new Map<string, number[]>();
  history.forEach((message, index) => {
    if (message.role !== 'tool') return;
    const list = positions.get(message.tool_call_id);
    if (list) list.push(index);
    else positions.set(message.tool_call_id, [index]);
  });
  const taken = new Set<number>();
  const repaired: Message[] = [];
  history.forEach((message, index) => {
    if (message.role === 'tool') return;
    repaired.push(message);
    if (message.role !== 'assistant' || !message.tool_calls?.length) return;
    for (const call of message.tool_calls) {
      const position = positions.get(call.id)?.find((candidate) => candidate > index && !taken.has(candidate));
      if (position !== undefined) {
        taken.add(position);
        repaired.push(history[position] as ToolMessage);
        continue;
      }
      repaired.push({
        role: 'tool',
        tool_call_id: call.id,
        tool_name: call.function.name,
        content: INTERRUPTED_TOOL_RESULT,
      });
    }
  });
  const unchanged =
    repaired.length === history.length && repaired.every((message, index) => message === history[index]);
  return unchanged ? [...history] : repaired;
}

/**
 * How much of each stored history was last found paired in order, and the message that ended it.
 * A session's warm history only grows by appends (runtime-warm-history.ts), so a turn checks only
 * what was appended since its last turn instead of the whole history (SPEC §26.7). An array whose
 * message at the boundary is no longer the one recorded is checked whole again.
 */
const pairedPrefixes = new WeakMap<readonly Message[], { length: number; last: Message }>();

/**
 * `repairToolPairing([...stored, ...appended])`, where `stored` is a session's stored history and
 * `appended` what the turn adds after it before its first request (results for tool calls a gone
 * turn left). Only the part of `stored` not found paired by an earlier call is checked.
 *
 * Exact because the check is one scan that, on a paired history, ends at a message boundary with
 * every call answered: a paired prefix followed by a suffix that is paired on its own is paired
 * whole, and a prefix that is not paired makes the whole history unpaired.
 */
export function repairStoredHistory(stored: readonly Message[], appended: readonly Message[]): Message[] {
  const known = pairedPrefixes.get(stored);
  const from = known !== undefined && stored[known.length - 1] === known.last ? known.length : 0;
  const whole = [...stored, ...appended];
  if (pairedInOrder(stored, from)) {
    const last = stored.at(-1);
    if (last !== undefined) pairedPrefixes.set(stored, { length: stored.length, last });
    if (pairedInOrder(whole, stored.length)) return whole;
  }
  return repairToolPairing(whole);
}

/**
 * True when every assistant tool call is followed at once, in call order, by its result and no
 * tool message stands anywhere else: the history {@link repairToolPairing} gives back unchanged.
 * With `from`, only the messages from that index on are checked, the ones before it taken as
 * paired (a boundary where a paired scan ends).
 */
function pairedInOrder(history: readonly Message[], from = 0): boolean {
  let index = from;
  while (index < history.length) {
    const message = history[index] as Message;
    if (message.role === 'tool') return false;
    index += 1;
    if (message.role !== 'assistant' || !message.tool_calls?.length) continue;
    for (const call of message.tool_calls) {
      const next = history[index];
      if (next?.role !== 'tool' || next.tool_call_id !== call.id) return false;
      index += 1;
    }
  }
  return true;
}
