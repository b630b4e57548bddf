import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';
import { isBodyChunks } from './request-body.js';
import type { ExchangeAbort, HeaderLookup, HttpAnswer, HttpBody, HttpExchange } from './transport-http-exchange.js';

/**
 * One request on the pooled client through undici's handler API (`Dispatcher.dispatch`): the
 * response's status, headers and chunks arrive as callbacks, and the body is a queue the
 * transport reads in one piece per read (every chunk that arrived since the last one). undici's
 * `request` would wrap the same callbacks in a Node `Readable` per request, read here through its
 * async iterator; skipping both halves the client's CPU per streamed request
 * (`npm run bench -- http-client`, "undici dispatch").
 *
 * Rules kept from `request`: the exchange's signal aborts the request at any point (before the
 * headers the answer rejects, after them a pending or later read rejects) with the signal's
 * reason; a connection failure rejects the answer or the read in flight; more than
 * {@link HIGH_WATER_BYTES} unread bytes pause the socket until the reader catches up; cancelling
 * a body that has not ended aborts its request (undici then closes the connection), while an
 * ended body leaves the connection to the pool.
 */

/** Unread bytes past which the socket is paused (what `request`'s body stream buffers by default). */
const HIGH_WATER_BYTES = 64 * 1024;

/** The errors module of the undici that sends, for the abort reason `request` would use. */
export type UndiciErrors = Pick<typeof Undici.errors, 'RequestAbortedError'>;

/** Sends `exchange` on `dispatcher`; resolves with the answer once its headers arrived. */
export function dispatchExchange(
  dispatcher: Dispatcher,
  errors: UndiciErrors,
  target: { origin: string; path: string },
  exchange: HttpExchange,
  requestedUrl: string,
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const handler = new PooledExchange(exchange.signal, errors, requestedUrl, resolve, reject);
    dispatcher.dispatch(
      {
        origin: target.origin,
        path: target.path,
        method: exchange.method ?? 'POST',
        ...wireBody(exchange),
      },
      handler,
    );
  });
}

/** undici's legacy handler (the interface its HTTP/1 client calls) for one exchange. */
class PooledExchange implements Dispatcher.DispatchHandler {
  private abortRequest: ((reason?: Error) => void) | null = null;
  private body: QueuedBody | null = null;
  private settled = false;
  /** The abort reason once the signal fired. */
  private reason: Error | null = null;
  private readonly onAbort: (() => void) | null = null;

  constructor(
    private readonly signal: ExchangeAbort,
    private readonly errors: UndiciErrors,
    private readonly url: string,
    private readonly resolve: (answer: HttpAnswer) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    if (signal.aborted) {
      this.reason = abortReason(signal, errors);
      return;
    }
    this.onAbort = () => {
      this.reason = abortReason(signal, errors);
      this.body?.fail(this.reason);
      this.abortRequest?.(this.reason);
    };
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  onConnect(abort: (reason?: Error) => void): void {
    if (this.reason) {
      abort(this.reason);
      return;
    }
    this.abortRequest = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    // 1xx (100 Continue, 103 Early Hints): the real answer follows.
    if (statusCode < 200) return true;
    const body = new QueuedBody(resume, () => this.cancel());
    this.body = body;
    this.settled = true;
    this.resolve({ status: statusCode, headers: headerLookup(rawHeaders), url: this.url, body });
    return true;
  }

  onData(chunk: Buffer): boolean {
    return this.body?.push(chunk) ?? true;
  }

  onComplete(): void {
    this.stopListening();
    this.body?.end();
  }

  onError(error: Error): void {
    this.stopListening();
    if (!this.settled) {
      this.settled = true;
      this.reject(error);
      return;
    }
    this.body?.fail(error);
  }

  /** The reader let go of a body that has not ended: the request is aborted. */
  private cancel(): void {
    this.stopListening();
    this.abortRequest?.(new this.errors.RequestAbortedError());
  }

  private stopListening(): void {
    if (this.onAbort) this.signal.removeEventListener('abort', this.onAbort);
  }
}

function abortReason(signal: ExchangeAbort, errors: UndiciErrors): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new errors.RequestAbortedError();
}

/** A response body fed by the handler and read by the transport (see {@link HttpBody}). */
class QueuedBody implements HttpBody {
  private readonly chunks: Buffer[] = [];
  private queuedBytes = 0;
  private paused = false;
  private ended = false;
  private failure: unknown = null;
  private cancelled = false;
  private waiting: { resolve: (chunk: Uint8Array | null) => void; reject: (error: unknown) => void } | null = null;

  constructor(
    private readonly resume: () => void,
    private readonly abort: () => void,
  ) {}

  /** Queues a chunk; false asks undici to pause the socket. */
  push(chunk: Buffer): boolean {
    if (this.cancelled) return true;
    const waiting = this.waiting;
    if (waiting !== null) {
      this.waiting = null;
      waiting.resolve(chunk);
      return true;
    }
    this.chunks.push(chunk);
    this.queuedBytes += chunk.byteLength;
    this.paused = this.queuedBytes >= HIGH_WATER_BYTES;
    return !this.paused;
  }

  end(): void {
    this.ended = true;
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.resolve(null);
  }

  fail(error: unknown): void {
    if (this.ended || this.cancelled || this.failure !== null) return;
    this.failure = error;
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.reject(error);
  }

  /**
   * The next bytes: every chunk queued since the last read, joined (a provider's SSE answer comes
   * as one HTTP chunk per event, often many per socket read; the reader then takes them in one
   * step instead of one promise per event).
   */
  read(): Promise<Uint8Array | null> {
    if (this.chunks.length > 0) {
      const chunk =
        this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.queuedBytes);
      this.chunks.length = 0;
      this.queuedBytes = 0;
      if (this.paused) {
        this.paused = false;
        this.resume();
      }
      return Promise.resolve(chunk);
    }
    if (this.failure !== null) return Promise.reject(this.failure);
    if (this.ended || this.cancelled) return Promise.resolve(null);
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  cancel(): Promise<void> {
    if (this.cancelled) return Promise.resolve();
    this.cancelled = true;
    this.chunks.length = 0;
    this.queuedBytes = 0;
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.resolve(null);
    if (!this.ended && this.failure === null) this.abort();
    return Promise.resolve();
  }
}

/**
 * Raw response headers (`[name, value, …]` as bytes) as a {@link HeaderLookup}: names lower-cased,
 * repeated headers joined by `, ` as `Headers` does. undici decodes header bytes as latin1.
 */
function headerLookup(raw: Buffer[]): HeaderLookup {
  const values = new Map<string, string>();
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = (raw[index] as Buffer).toString('latin1').toLowerCase();
    const value = (raw[index + 1] as Buffer).toString('latin1');
    const before = values.get(name);
    values.set(name, before === undefined ? value : `${before}, ${value}`);
  }
  return {
    get: (name) => values.get(name.toLowerCase()) ?? null,
    forEach(callback) {
      for (const [name, value] of values) callback(value, name);
    },
  };
}

/**
 * The headers and body undici sends: byte chunks go as an iterable it writes chunk by chunk, with
 * their total as `content-length` (undici checks the bytes written against it). undici's
 * `dispatch` takes an `Iterable` body (docs/api/Dispatcher.md, `DispatchOptions.body`); its type
 * declarations leave that out.
 */
function wireBody(exchange: HttpExchange): {
  headers: Record<string, string>;
  body: NonNullable<Dispatcher.DispatchOptions['body']> | null;
} {
  const { body, headers } = exchange;
  if (!isBodyChunks(body)) return { headers, body: body ?? null };
  if (body.length === 1) return { headers, body: body[0] as Uint8Array };
  let length = 0;
  for (const chunk of body) length += chunk.byteLength;
  return {
    headers: { ...headers, 'content-length': String(length) },
    body: body as unknown as NonNullable<Dispatcher.DispatchOptions['body']> | null,
  };
}
