import type { Message } from '../core/message.js';
import { serializeRequestBodyChunks } from '../transports/shared/request-body.js';
import type { Transport, TransportRequest } from '../transports/shared/transport.js';

/**
 * SPEC §26.7: long sessions never stall others. A request over a history this process never built
 * a request from (a long session's first turn after a start, a long client-held history on a
 * front door) would lower and serialize every message in one synchronous pass. Instead its
 * earlier turns are built first, about {@link SLICE_MESSAGES} messages at a time with the event
 * loop free between slices, as if they had been sent turn by turn: the encoders keep each
 * message's wire form and the body keeps the bytes of each run of stable messages, so the real
 * build that follows reuses them and is the same body byte for byte (the caches are keyed by the
 * stored message objects and everything that shapes them; request-body.ts).
 *
 * A slice ends with a user message that opens a turn, so every prefix is a history a request was
 * once built from; its body is never sent.
 */

/** Messages lowered between two yields to the event loop. */
export const SLICE_MESSAGES = 1000;

/** How far back from the end a history is searched for a message a request was built from. */
const BUILT_LOOKBACK = 64;

/** The last message of each history a request was built from in this process. */
const builtTails = new WeakSet<Message>();

/** Records that a request was built from `history` (its later turns are warm). */
export function rememberBuilt(history: readonly Message[]): void {
  const last = history.at(-1);
  if (last !== undefined) builtTails.add(last);
}

/** Builds the earlier turns of a long, never built history in slices (see the file comment). */
export async function warmLongHistory(transport: Transport, request: TransportRequest): Promise<void> {
  const { history } = request;
  if (history.length <= SLICE_MESSAGES || wasBuilt(history)) return;
  for (let end = turnEnd(history, SLICE_MESSAGES); end < history.length; end = turnEnd(history, end + SLICE_MESSAGES)) {
    serializeRequestBodyChunks(transport.prepare({ ...request, history: history.slice(0, end) }));
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** Whether a request was built from this history or one it grew from. */
function wasBuilt(history: readonly Message[]): boolean {
  const stop = Math.max(0, history.length - BUILT_LOOKBACK);
  for (let index = history.length - 1; index >= stop; index -= 1) {
    if (builtTails.has(history[index] as Message)) return true;
  }
  return false;
}

/** The length of the shortest prefix of at least `atLeast` messages ending with a user message; else the whole length. */
function turnEnd(history: readonly Message[], atLeast: number): number {
  for (let index = atLeast - 1; index < history.length; index += 1) {
    if (history[index]?.role === 'user') return index + 1;
  }
  return history.length;
}
