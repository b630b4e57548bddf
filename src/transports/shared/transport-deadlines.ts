import { TimeoutError, type TimeoutLimit } from '../../core/errors.js';
import type { Timeouts } from '../../core/timeouts.js';
import type { HttpAnswer, HttpBody } from './transport-http-client.js';
import type { ExchangeAbort } from './transport-http-exchange.js';
import { RequestAbort } from './transport-request-abort.js';
import { Deadline, deadlineClock } from './deadline-clock.js';

const HINTS: Record<TimeoutLimit, string> = {
  first_byte: 'no response headers arrived',
  idle: 'the stream sent no data',
  total: 'the request did not finish',
};

/** The one-line error for a limit that was hit. */
export function timeoutError(provider: string, limit: TimeoutLimit, limitMs: number): TimeoutError {
  const seconds = `${Number((limitMs / 1000).toFixed(limitMs < 1000 ? 2 : 1))} s`;
  return new TimeoutError(
    `${provider}: ${HINTS[limit]} within the ${limit} timeout (${seconds}); ` +
      `raise timeouts.${limit} in config.yaml if the provider is just slow`,
    { limit, limitMs, retryable: true },
  );
}

/** What {@link openWithDeadlines} needs besides the request itself. */
export interface DeadlineOptions {
  timeouts: Timeouts;
  provider: string;
  /** The caller's signal: aborting it still aborts, as an abort and not a timeout. */
  signal?: AbortSignal | undefined;
}

/**
 * Opens one HTTP request (`open` gets the signal to send it with) under `timeouts`: it fails with
 * a {@link TimeoutError} when a limit is hit. The answer's body restarts the idle clock on every
 * chunk carrying data (for `text/event-stream`, a chunk of only comments, blank lines or ping
 * events does not) and fails with the timeout error once a limit fires; `total` covers headers
 * and body.
 */
export async function openWithDeadlines(
  open: (signal: ExchangeAbort) => Promise<HttpAnswer>,
  options: DeadlineOptions,
): Promise<HttpAnswer> {
  const { timeouts, provider, signal: callerSignal } = options;
  const controller = new RequestAbort();
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted) onCallerAbort();
  else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });

  let hit: TimeoutError | null = null;
  const fire = (limit: TimeoutLimit, limitMs: number) => {
    if (hit !== null) return;
    hit = timeoutError(provider, limit, limitMs);
    controller.abort(hit);
  };
  // The limits share the process's one timer (deadline-clock.ts).
  const opened = performance.now();
  const totalDeadline = new Deadline(() => fire('total', timeouts.total));
  const firstByteDeadline = new Deadline(() => fire('first_byte', timeouts.firstByte));
  deadlineClock.schedule(totalDeadline, opened + timeouts.total);
  deadlineClock.schedule(firstByteDeadline, opened + timeouts.firstByte);
  const done = () => {
    deadlineClock.cancel(totalDeadline);
    deadlineClock.cancel(firstByteDeadline);
    callerSignal?.removeEventListener('abort', onCallerAbort);
  };

  let answer: HttpAnswer;
  try {
    answer = await open(controller);
  } catch (error) {
    done();
    throw hit ?? error;
  } finally {
    deadlineClock.cancel(firstByteDeadline);
  }
  const isEventStream = (answer.headers.get('content-type') ?? '').toLowerCase().includes('text/event-stream');
  answer.body = watchBody(answer.body, {
    idleMs: timeouts.idle,
    isProgress: isEventStream ? sseProgress() : () => true,
    onIdle: () => fire('idle', timeouts.idle),
    failure: () => hit,
    signal: controller,
    done,
  });
  return answer;
}

interface WatchOptions {
  idleMs: number;
  isProgress(chunk: Uint8Array): boolean;
  onIdle(): void;
  failure(): TimeoutError | null;
  signal: ExchangeAbort;
  done(): void;
}

/** `source` failing with the timeout error once a limit fires, with the idle clock armed. */
function watchBody(source: HttpBody, options: WatchOptions): HttpBody {
  // Progress only moves the idle deadline later; the shared clock finds it when it wakes.
  const idle = new Deadline(() => options.onIdle());
  deadlineClock.schedule(idle, performance.now() + options.idleMs);
  let finished = false;
  // Whatever the source does with the abort, a pending read ends now.
  const stop = () => void source.cancel();
  const finish = () => {
    if (finished) return;
    finished = true;
    deadlineClock.cancel(idle);
    options.signal.removeEventListener('abort', stop);
    options.done();
  };
  options.signal.addEventListener('abort', stop, { once: true });
  return {
    async read() {
      let chunk: Uint8Array | null;
      try {
        chunk = await source.read();
      } catch (error) {
        finish();
        throw options.failure() ?? error;
      }
      if (chunk === null) {
        finish();
        // A body cut short by a limit or the caller's abort is an error, never a clean end.
        if (options.signal.aborted) throw options.failure() ?? options.signal.reason;
        return null;
      }
      if (options.isProgress(chunk)) idle.at = performance.now() + options.idleMs;
      return chunk;
    },
    cancel() {
      finish();
      return source.cancel();
    },
  };
}

const PING_EVENT = /^event:[ \t]*ping[ \t]*\r?$/;
const PING_DATA = /^data:[ \t]*\{[ \t]*"type"[ \t]*:[ \t]*"ping"[ \t]*\}[ \t]*\r?$/;
/** Longest keep-alive line classified by its text; longer lines carry data (or are comments). */
const SHORT_LINE = 48;
/** A line in flight longer than this (not a comment) is data arriving. */
const LONG_LINE = 256;
const NEWLINE = 10;
const COLON = 58;
const latin1 = new TextDecoder('latin1');

/**
 * Whether a line keeps a connection alive without carrying data: blank, a `:` comment, or an
 * Anthropic-style ping (`event: ping`, `data: {"type": "ping"}`). `head` holds the line's first
 * bytes (at least SHORT_LINE + 1 of them when it is that long), `length` its full length.
 */
function isKeepAliveLine(head: Uint8Array, length: number): boolean {
  if (length === 0) return true;
  const first = head[0];
  if (first === COLON || first === 13 /* \r */) return true;
  if (length > SHORT_LINE) return false;
  const text = latin1.decode(head.subarray(0, length));
  return text.trim() === '' || PING_EVENT.test(text) || PING_DATA.test(text);
}

function joinBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

/**
 * A progress test for SSE bytes. It works on bytes (no decoding) and stops at the first line
 * that carries data, so a data chunk costs a few comparisons; the first bytes of an unfinished
 * line are carried to the next chunk.
 */
function sseProgress(): (chunk: Uint8Array) => boolean {
  let carry: Uint8Array = new Uint8Array(0);
  let carryLength = 0;
  return (chunk) => {
    let progress = false;
    const lastBreak = chunk.lastIndexOf(NEWLINE);
    if (lastBreak === -1) {
      if (carry.length <= SHORT_LINE) carry = joinBytes(carry, chunk.subarray(0, SHORT_LINE + 1 - carry.length));
      carryLength += chunk.length;
    } else {
      let end = chunk.indexOf(NEWLINE);
      progress = !isKeepAliveLine(
        joinBytes(carry, chunk.subarray(0, Math.min(end, SHORT_LINE + 1))),
        carryLength + end,
      );
      for (let start = end + 1; !progress && start <= lastBreak; start = end + 1) {
        end = chunk.indexOf(NEWLINE, start);
        progress = !isKeepAliveLine(chunk.subarray(start, Math.min(end, start + SHORT_LINE + 1)), end - start);
      }
      carry = chunk.slice(lastBreak + 1, Math.min(chunk.length, lastBreak + 2 + SHORT_LINE));
      carryLength = chunk.length - lastBreak - 1;
    }
    return progress || (carryLength > LONG_LINE && carry[0] !== COLON);
  };
}
