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
    const totalTimer = setTimeout(() => fire('total', timeouts.total), timeouts.total);
    const firstByteTimer = setTimeout(() => fire('first_byte', timeouts.firstByte), timeouts.firstByte);
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
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(options.onIdle, options.idleMs);
  };
  const finish = () => {
    clearTimeout(idleTimer);
    options.signal.removeEventListener('abort', stop);
    options.done();
  };
  // Whatever the source does with the abort, a pending read ends now.
  const stop = () => void reader.cancel(options.signal.reason).catch(() => undefined);
  options.signal.addEventListener('abort', stop, { once: true });
  arm();
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
          if (options.isProgress(next.value)) arm();
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

/** Lines that keep a connection alive without carrying data: blank, `:` comments, ping events. */
function isKeepAliveLine(line: string): boolean {
  return (
    line.trim() === '' ||
    line.startsWith(':') ||
    /^event:\s*ping\s*$/.test(line) ||
    /^data:\s*\{\s*"type"\s*:\s*"ping"\s*\}\s*$/.test(line)
  );
}

/** Longest unfinished line kept for classification; a longer one is data in flight. */
const PARTIAL_LINE_LIMIT = 256;

/** A progress test for SSE bytes that remembers an unfinished line across chunks. */
function sseProgress(): (chunk: Uint8Array) => boolean {
  const decoder = new TextDecoder('utf-8');
  let partial = '';
  return (chunk) => {
    const lines = (partial + decoder.decode(chunk, { stream: true })).split('\n');
    partial = lines.pop() ?? '';
    let progress = lines.some((line) => !isKeepAliveLine(line.replace(/\r$/, '')));
    if (partial.length > PARTIAL_LINE_LIMIT) {
      progress ||= !partial.startsWith(':');
      partial = partial.startsWith(':') ? ':' : '';
    }
    return progress;
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
