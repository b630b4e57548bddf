import { TimeoutError, type TimeoutLimit } from '../../core/errors.js';
import { DEFAULT_TIMEOUTS, type Timeouts } from '../../core/timeouts.js';
import type { TransportRequest } from './transport.js';

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

/**
 * Wraps `fetch` so a request fails with a {@link TimeoutError} when a limit of `timeouts` is hit.
 * The caller's `signal` still aborts as before. The returned response's body is a stream that
 * restarts the idle clock on every chunk carrying data (for `text/event-stream`, a chunk of only
 * comments, blank lines or ping events does not).
 */
export function fetchWithDeadlines(
  fetchImplementation: typeof globalThis.fetch,
  timeouts: Timeouts,
  provider: string,
): typeof globalThis.fetch {
  return async (input, init) => {
    const controller = new AbortController();
    const callerSignal = init?.signal ?? undefined;
    const onCallerAbort = () => controller.abort(callerSignal?.reason);
    if (callerSignal?.aborted) onCallerAbort();
    else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });

    let hit: TimeoutError | null = null;
    const fire = (limit: TimeoutLimit, limitMs: number) => {
      if (hit !== null) return;
      hit = timeoutError(provider, limit, limitMs);
      controller.abort(hit);
    };
    // Unref'd: a limit never keeps the process alive on its own (the open socket does).
    const totalTimer = setTimeout(() => fire('total', timeouts.total), timeouts.total).unref();
    const firstByteTimer = setTimeout(() => fire('first_byte', timeouts.firstByte), timeouts.firstByte).unref();
    const done = () => {
      clearTimeout(totalTimer);
      clearTimeout(firstByteTimer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    };

    let response: Response;
    try {
      response = await fetchImplementation(input, { ...init, signal: controller.signal });
    } catch (error) {
      done();
      throw hit ?? error;
    } finally {
      clearTimeout(firstByteTimer);
    }
    if (response.body === null) {
      done();
      return response;
    }
    const isEventStream = (response.headers.get('content-type') ?? '').toLowerCase().includes('text/event-stream');
    const body = watchBody(response.body, {
      idleMs: timeouts.idle,
      isProgress: isEventStream ? sseProgress() : () => true,
      onIdle: () => fire('idle', timeouts.idle),
      failure: () => hit,
      signal: controller.signal,
      done,
    });
    const watched = new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    // A constructed Response has an empty `url`; error messages name the address.
    Object.defineProperty(watched, 'url', { value: response.url });
    return watched;
  };
}

interface WatchOptions {
  idleMs: number;
  isProgress(chunk: Uint8Array): boolean;
  onIdle(): void;
  failure(): TimeoutError | null;
  signal: AbortSignal;
  done(): void;
}

/** A copy of `source` that fails with the timeout error once a limit fires and arms the idle clock. */
function watchBody(source: ReadableStream<Uint8Array>, options: WatchOptions): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  // One timer per request, not one per chunk: progress only stamps the time, and the timer
  // sleeps again for whatever is left of the idle window when it wakes early.
  let lastProgress = performance.now();
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  const checkIdle = () => {
    const left = options.idleMs - (performance.now() - lastProgress);
    if (left <= 0) options.onIdle();
    else idleTimer = setTimeout(checkIdle, Math.ceil(left)).unref();
  };
  idleTimer = setTimeout(checkIdle, options.idleMs).unref();
  const finish = () => {
    clearTimeout(idleTimer);
    options.signal.removeEventListener('abort', stop);
    options.done();
  };
  // Whatever the source does with the abort, a pending read ends now.
  const stop = () => void reader.cancel(options.signal.reason).catch(() => undefined);
  options.signal.addEventListener('abort', stop, { once: true });
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        for (;;) {
          const next = await reader.read();
          if (next.done) {
            finish();
            // A body cut short by a limit or the caller's abort is an error, never a clean end.
            if (options.signal.aborted) controller.error(options.failure() ?? options.signal.reason);
            else controller.close();
            return;
          }
          if (options.isProgress(next.value)) lastProgress = performance.now();
          controller.enqueue(next.value);
          if (next.value.byteLength > 0) return;
        }
      } catch (error) {
        finish();
        controller.error(options.failure() ?? error);
      }
    },
    cancel(reason) {
      finish();
      return reader.cancel(reason);
    },
  });
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

/**
 * The `fetch` a transport sends `request` through: the request's own (or `fallback`, else the
 * global one) under the request's time limits (defaults: {@link DEFAULT_TIMEOUTS}).
 */
export function requestFetch(request: TransportRequest, fallback?: typeof globalThis.fetch): typeof globalThis.fetch {
  const base = request.fetch ?? fallback ?? ((input, init) => globalThis.fetch(input, init));
  return fetchWithDeadlines(base, request.timeouts ?? DEFAULT_TIMEOUTS, request.route.provider);
}
