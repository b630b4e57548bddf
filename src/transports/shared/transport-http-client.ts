import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';
import type { TransportRequest } from './transport.js';

/**
 * The HTTP client every JSON-over-HTTP transport (and the Bedrock Converse SDK handler) sends
 * through. Default: one process-wide keep-alive pool (undici's `Agent`, its `request` API: Node
 * streams, no web-stream adaptation); measured against `fetch` and `node:http` agents in
 * bench/http-client. A request's `fetch` (tests, library users) replaces it: then every byte goes
 * through that `fetch`, which is told never to follow redirects. `connectTo` maps origins for
 * both (`HERMES_CONNECT_TO`, in-process emulators). The request's time limits are applied around
 * either (`transport-deadlines.ts`), and no redirect is ever followed (`transport-redirect.ts`).
 */

/** Response headers, read by name (case-insensitive) or all at once: what `Headers` offers. */
export interface HeaderLookup {
  get(name: string): string | null;
  forEach(callback: (value: string, name: string) => void): void;
}

/** A response body, read one network chunk at a time. */
export interface HttpBody {
  /** The next chunk; null at the end. Rejects when the connection fails or the request is aborted. */
  read(): Promise<Uint8Array | null>;
  /** Stops reading and lets the connection go (idempotent, never rejects). */
  cancel(): Promise<void>;
}

/** One provider answer. */
export interface HttpAnswer {
  status: number;
  headers: HeaderLookup;
  /** The address that answered: the request URL (no redirect is ever followed). */
  url: string;
  body: HttpBody;
}

/** One HTTP request a transport sends. */
export interface HttpExchange {
  url: string;
  /** Default `POST`. */
  method?: 'POST' | 'GET';
  headers: Record<string, string>;
  body?: string | Uint8Array | undefined;
  signal: AbortSignal;
}

/** How long the pooled client waits for a TCP (and TLS) connection before failing (ms). */
export const CONNECT_TIMEOUT_MS = 10_000;

/** The longest a pooled connection stays open without a request (ms); a server's `Keep-Alive` hint can shorten it. */
const KEEP_ALIVE_MS = 30_000;

let pooledAgent: Promise<Dispatcher> | undefined;

/** The process-wide dispatcher slot undici keeps on `globalThis`: every `fetch` dispatches through it. */
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

/**
 * Loads undici without changing the process's `fetch`. The package installs an Agent of its own
 * version as every `fetch`'s dispatcher when the slot is empty, and Node's built-in `fetch` (its
 * own undici version) then fails on some requests ("invalid content-length header"). Node's
 * `fetch` fills the slot with its own dispatcher when it loads, so it is loaded first (reading
 * `Headers` does that); the pool here is passed explicitly to every request it sends.
 */
async function loadUndici(): Promise<typeof Undici> {
  const slots = globalThis as unknown as Record<symbol, unknown>;
  void globalThis.Headers;
  const before = slots[GLOBAL_DISPATCHER];
  const undici = await import('undici');
  if (before !== undefined && slots[GLOBAL_DISPATCHER] !== before) slots[GLOBAL_DISPATCHER] = before;
  return undici;
}

/**
 * The process-wide pool, created on first use (undici is loaded then, so commands that send
 * nothing never load it). The pool's own header and body timeouts are off: the request's time
 * limits (first byte, idle, total) are the only ones, as config.yaml says.
 */
function agent(): Promise<Dispatcher> {
  pooledAgent ??= loadUndici().then(
    ({ Agent }) =>
      new Agent({
        connect: { timeout: CONNECT_TIMEOUT_MS },
        keepAliveTimeout: KEEP_ALIVE_MS,
        keepAliveMaxTimeout: KEEP_ALIVE_MS,
        headersTimeout: 0,
        bodyTimeout: 0,
      }),
  );
  return pooledAgent;
}

/** `url` with its origin replaced when `connectTo` maps it (path and query unchanged). */
export function mappedUrl(url: string, connectTo: ReadonlyMap<string, string> | undefined): string {
  if (connectTo === undefined || connectTo.size === 0) return url;
  const origin = new URL(url).origin;
  const target = connectTo.get(origin);
  return target === undefined ? url : target + url.slice(origin.length);
}

/** Sends one exchange through the request's `fetch` when it has one, else the pooled client. */
export function sendExchange(
  request: Pick<TransportRequest, 'fetch' | 'connectTo'>,
  exchange: HttpExchange,
): Promise<HttpAnswer> {
  const url = mappedUrl(exchange.url, request.connectTo);
  const routed = url === exchange.url ? exchange : { ...exchange, url };
  return request.fetch === undefined
    ? sendPooled(routed, exchange.url)
    : sendFetch(request.fetch, routed, exchange.url);
}

async function sendPooled(exchange: HttpExchange, requestedUrl: string): Promise<HttpAnswer> {
  const target = new URL(exchange.url);
  const dispatcher = await agent();
  const response = await dispatcher.request({
    origin: target.origin,
    path: `${target.pathname}${target.search}`,
    method: exchange.method ?? 'POST',
    headers: exchange.headers,
    body: exchange.body ?? null,
    signal: exchange.signal,
  });
  return {
    status: response.statusCode,
    headers: headerLookup(response.headers),
    url: requestedUrl,
    body: nodeStreamBody(response.body),
  };
}

/** Node's header object (lower-case names; repeated headers as arrays) as a {@link HeaderLookup}. */
function headerLookup(raw: Dispatcher.ResponseData['headers']): HeaderLookup {
  const text = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value);
  return {
    get: (name) => text(raw[name.toLowerCase()]) ?? null,
    forEach(callback) {
      for (const [name, value] of Object.entries(raw)) {
        const joined = text(value);
        if (joined !== undefined) callback(joined, name);
      }
    },
  };
}

/** A Node readable stream as an {@link HttpBody}. */
function nodeStreamBody(stream: Dispatcher.ResponseData['body']): HttpBody {
  // Destroying an unfinished body emits an abort error on it; a read that fails rejects on its
  // own, so that event has nothing left to tell (and must not become an uncaught exception).
  stream.on('error', () => undefined);
  const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  return {
    read: async () => {
      const next = await chunks.next();
      return next.done === true ? null : next.value;
    },
    cancel: async () => {
      stream.destroy();
    },
  };
}

async function sendFetch(
  fetchImplementation: typeof globalThis.fetch,
  exchange: HttpExchange,
  requestedUrl: string,
): Promise<HttpAnswer> {
  const init: RequestInit = {
    method: exchange.method ?? 'POST',
    headers: exchange.headers,
    signal: exchange.signal,
    // Never followed: a redirect answer is refused by the caller (transport-redirect.ts).
    redirect: 'manual',
  };
  if (exchange.body !== undefined) init.body = exchange.body;
  const response = await fetchImplementation(exchange.url, init);
  return { status: response.status, headers: response.headers, url: requestedUrl, body: webStreamBody(response.body) };
}

/** A web `ReadableStream` (a `fetch` body, or a test's) as an {@link HttpBody}; null is an empty body. */
export function webStreamBody(stream: ReadableStream<Uint8Array> | null): HttpBody {
  if (stream === null) return { read: async () => null, cancel: async () => undefined };
  const reader = stream.getReader();
  return {
    read: async () => {
      const next = await reader.read();
      return next.done ? null : next.value;
    },
    cancel: () => reader.cancel().catch(() => undefined),
  };
}
