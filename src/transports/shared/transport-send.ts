import { AbortError, HermesError } from '../../core/errors.js';
import type { EventStream } from '../../core/event-stream.js';
import type { StreamEvent } from '../../core/stream-event.js';
import { networkError } from './transport-http.js';
import type { HttpBody } from './transport-http-client.js';
import { openTransportStream } from './transport-redact.js';
import {
  runWithRetries,
  type BackoffOptions,
  type RetryNotice,
  type RetryOptions,
  type Sleep,
} from './transport-retry.js';
import { ServerSentEventFramer, type ByteFramer } from './transport-sse-reader.js';
import type { StreamDecoder } from './transport-stream-decoder.js';
import type { PreparedRequest, TransportRequest } from './transport.js';
import { withFields } from '../../core/with-fields.js';

/**
 * The one `send()` of every transport: prepare → open (retried) → decode → one terminal event.
 *
 * - `prepare` runs first; anything it throws becomes the stream's `error` event (`send` never
 *   throws, `Transport` in `transport.ts`).
 * - `open` is one attempt of the HTTP exchange. Typed errors it throws are retried by
 *   `runWithRetries` when `retryable` (429, 5xx, network), each retry announced as a `retry`
 *   event. A streamed answer is read up to its first decoded event inside the same retry window:
 *   a connection dropped before anything reached the caller is retried like a refused one.
 * - After the first event a failure is final (STYLE rule 5): it ends the stream with `error`.
 * - A streamed answer's bytes go straight from each network read into the framer and decoder
 *   (`framer.push` → `decoder.push` → `stream.push`, synchronously): one await per network
 *   read, no per-event promises.
 */

/** What one successful attempt answered. */
export type TransportAnswer =
  /** A whole (non-streaming) answer, already decoded into its events (terminal included). */
  | { kind: 'events'; events: StreamEvent[] }
  /** A byte stream: `frame` builds the framing (default SSE) that feeds `decoder`. */
  | {
      kind: 'bytes';
      body: HttpBody;
      decoder: StreamDecoder<string>;
      frame?: (onData: (data: string) => void) => ByteFramer;
    }
  /** Wire events an SDK already framed (Bedrock Converse through the AWS SDK). */
  | { kind: 'items'; items: AsyncIterable<unknown>; decoder: StreamDecoder<unknown> };

/** Retry knobs a transport factory takes (tests inject an instant sleep and fixed jitter). */
export interface SendRetryOptions {
  sleep?: Sleep | undefined;
  random?: (() => number) | undefined;
  backoff?: BackoffOptions | undefined;
}

/** The parts of `send()` that differ per wire API. */
export interface SendSteps {
  prepare(): PreparedRequest;
  /** One attempt: request, status check (typed error otherwise), and the answer to read. */
  open(prepared: PreparedRequest, attempt: number): Promise<TransportAnswer>;
  /**
   * The error a failure while reading the answer becomes. `afterEvents`: an event already
   * reached the caller (final, not retried). Default: {@link networkError} with the provider.
   */
  readError?(error: unknown, afterEvents: boolean): HermesError;
  /** Called before each event leaves (chat-completions stamps the origin on `finish`). */
  mapEvent?(event: StreamEvent): StreamEvent;
  /** Called once when the request is over, however it ended (Bedrock destroys its SDK client). */
  close?(): void;
}

const DEFAULT_MAX_ATTEMPTS = 3;

/** Runs {@link SendSteps} for `request` and returns the stream (never throws). */
export function sendTransportRequest(
  request: TransportRequest,
  retry: SendRetryOptions,
  steps: SendSteps,
): EventStream {
  const stream = openTransportStream(request);
  let prepared: PreparedRequest;
  try {
    prepared = steps.prepare();
  } catch (error) {
    stream.fail(
      error instanceof HermesError ? error : new HermesError(`could not build the request: ${String(error)}`),
    );
    return stream;
  }
  run(stream, request, retry, steps, prepared)
    .catch((error: unknown) => {
      if (request.signal?.aborted && !(error instanceof AbortError)) {
        stream.fail(new AbortError('request aborted', { cause: error }));
      } else {
        stream.fail(
          error instanceof HermesError
            ? error
            : networkError(error, { signal: request.signal, retryable: false, what: 'request failed' }),
        );
      }
    })
    .finally(() => steps.close?.());
  return stream;
}

async function run(
  stream: EventStream,
  request: TransportRequest,
  retry: SendRetryOptions,
  steps: SendSteps,
  prepared: PreparedRequest,
): Promise<void> {
  const provider = request.route.provider;
  const readError =
    steps.readError ??
    ((error: unknown, afterEvents: boolean) =>
      networkError(error, {
        signal: request.signal,
        retryable: !afterEvents,
        what: afterEvents
          ? `${provider} dropped the connection mid-stream; the partial answer was discarded`
          : `${provider} dropped the connection before the first event`,
      }));
  const mapEvent = steps.mapEvent;
  const emit = (event: StreamEvent) => stream.push(mapEvent === undefined ? event : mapEvent(event));

  const reading = await runWithRetries(
    retryOptions(retry, request.maxAttempts ?? DEFAULT_MAX_ATTEMPTS, request.signal, (notice) =>
      stream.push({ type: 'retry', ...notice }),
    ),
    async (attempt) => {
      const answer = await steps.open(prepared, attempt);
      const opened = readingOf(answer);
      try {
        await opened.read(true);
      } catch (error) {
        await opened.close();
        throw readError(error, false);
      }
      return opened;
    },
  );
  for (const event of reading.firstEvents) emit(event);
  reading.setSink(emit);
  try {
    await reading.read(false);
  } catch (error) {
    stream.fail(readError(error, true));
  } finally {
    // Stops the socket when the decoder finished early (error chunk) and the server keeps sending.
    await reading.close();
  }
}

/** The options of `runWithRetries` for one request (core/with-fields.ts: no spread-led literal). */
function retryOptions(
  retry: SendRetryOptions,
  maxAttempts: number,
  signal: AbortSignal | undefined,
  onRetry: (notice: RetryNotice) => void,
): RetryOptions {
  const options: RetryOptions = withFields(retry.backoff ?? {}, { maxAttempts, signal, onRetry });
  if (retry.sleep !== undefined) options.sleep = retry.sleep;
  if (retry.random !== undefined) options.random = retry.random;
  return options;
}

/**
 * An answer being read. `read(true)` reads until the decoder produced an event (kept in
 * `firstEvents`) or the input ended; `read(false)` reads to the end, handing events to the sink
 * `setSink` set.
 * The decoder's `end()` runs once, when the input is exhausted or the decoder is done.
 */
interface Reading {
  firstEvents: StreamEvent[];
  setSink(sink: (event: StreamEvent) => void): void;
  read(untilFirstEvent: boolean): Promise<void>;
  close(): Promise<void>;
}

/** Most bytes read after the decoder finished, hoping to reach the end of the body. */
const DRAIN_LIMIT = 64 * 1024;

/** Reads `body` to its end when that is within {@link DRAIN_LIMIT} bytes; otherwise cancels it. */
async function drain(body: HttpBody): Promise<void> {
  let read = 0;
  try {
    for (let chunk = await body.read(); chunk !== null; chunk = await body.read()) {
      read += chunk.byteLength;
      if (read > DRAIN_LIMIT) break;
    }
    if (read <= DRAIN_LIMIT) return;
  } catch {
    // The connection failed after the answer was complete: nothing is lost.
  }
  await body.cancel();
}

function readingOf(answer: TransportAnswer): Reading {
  // Each Reading is built once with its final methods: closures assigned later to an object
  // already built keep finished requests' objects alive through young-generation collections
  // (docs/performance.md).
  const firstEvents: StreamEvent[] = [];
  let sink: (event: StreamEvent) => void = (event) => void firstEvents.push(event);
  let ended = false;
  let answered = false;
  const setSink = (next: (event: StreamEvent) => void) => {
    sink = next;
  };
  const deliver = (events: readonly StreamEvent[]) => {
    for (const event of events) {
      if (event.type === 'finish') answered = true;
      sink(event);
    }
  };
  const finish = (decoder: StreamDecoder<never>) => {
    if (ended) return;
    ended = true;
    deliver(decoder.end());
  };
  if (answer.kind === 'events') {
    firstEvents.push(...answer.events);
    return { firstEvents, setSink, read: async () => undefined, close: async () => undefined };
  }
  if (answer.kind === 'items') {
    const { decoder } = answer;
    const iterator = answer.items[Symbol.asyncIterator]();
    return {
      firstEvents,
      setSink,
      read: async (untilFirstEvent) => {
        while (!ended && !decoder.done) {
          if (untilFirstEvent && firstEvents.length > 0) return;
          const next = await iterator.next();
          if (next.done === true) break;
          deliver(decoder.push(next.value));
        }
        finish(decoder);
      },
      close: async () => {
        await iterator.return?.().catch(() => undefined);
      },
    };
  }
  const { decoder } = answer;
  const onData = (data: string) => {
    if (!decoder.done) deliver(decoder.push(data));
  };
  const framer = answer.frame === undefined ? new ServerSentEventFramer(onData) : answer.frame(onData);
  const { body } = answer;
  let bodyEnded = false;
  let failed = false;
  return {
    firstEvents,
    setSink,
    read: async (untilFirstEvent) => {
      try {
        while (!ended && !decoder.done) {
          if (untilFirstEvent && firstEvents.length > 0) return;
          const chunk = await body.read();
          if (chunk === null) {
            bodyEnded = true;
            framer.end();
            break;
          }
          framer.push(chunk);
        }
      } catch (error) {
        failed = true;
        throw error;
      }
      finish(decoder);
    },
    close: async () => {
      if (bodyEnded) return;
      // The decoder finished with the answer (`[DONE]`, `message_stop`): what follows is usually
      // the body's last few bytes, read so the keep-alive connection is reused; a server that
      // keeps sending is cut off past DRAIN_LIMIT. An error event, a failed read or an early stop
      // cancels at once.
      if (!failed && answered) await drain(body);
      else await body.cancel();
    },
  };
}
