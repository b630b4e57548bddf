import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';
import type { TransportRequest } from './transport.js';
import type { HttpAnswer, HttpBody, HttpExchange } from './transport-http-exchange.js';
import { dispatchExchange, type UndiciErrors } from './transport-pooled-exchange.js';
import { toAbortSignal } from './transport-request-abort.js';
import { isBodyChunks, joinBodyChunks } from './request-body.js';

/**
 * The HTTP client every JSON-over-HTTP transport (and the Bedrock Converse SDK handler) sends
 * through. Default: one process-wide keep-alive pool (undici's `Agent` through its handler API,
 * `transport-pooled-exchange.ts`: no stream object per request, no web-stream adaptation);
 * measured against `fetch`, undici's `request` and `node:http` agents in bench/http-client. A
 * request's `fetch` (tests, library users) replaces it: then every byte goes through that `fetch`, which is told never to follow redirects. `connectTo` maps origins for
 * both (`HERMES_CONNECT_TO`, in-process emulators). The request's time limits are applied around
 * either (`transport-deadlines.ts`), and no redirect is ever followed (`transport-redirect.ts`).
 */

export type { HeaderLookup, HttpAnswer, HttpBody, HttpExchange } from './transport-http-exchange.js';

/** How long the pooled client waits for a TCP (and TLS) connection before failing (ms). */
export const CONNECT_TIMEOUT_MS = 10_000;

/** The longest a pooled connection stays open without a request (ms); a server's `Keep-Alive` hint can shorten it. */
const KEEP_ALIVE_MS = 30_000;

/** The pooled client: undici's `Agent`, and undici's errors for the abort reason it reports. */
interface PooledClient {
  dispatcher: Dispatcher;
  errors: UndiciErrors;
}

let loadingClient: Promise<PooledClient> | undefined;
/** The pooled client once loaded, so later requests start without an await. */
let loadedClient: PooledClient | undefined;

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
function pooledClient(): Promise<PooledClient> {
  loadingClient ??= loadUndici().then(({ Agent, errors }) => {
    loadedClient = {
      dispatcher: new Agent({
        connect: { timeout: CONNECT_TIMEOUT_MS },
        keepAliveTimeout: KEEP_ALIVE_MS,
        keepAliveMaxTimeout: KEEP_ALIVE_MS,
        headersTimeout: 0,
        bodyTimeout: 0,
      }),
      errors,
    };
    return loadedClient;
  });
  return loadingClient;
}

/** Origin and path of the URLs requests went to, so a URL is parsed once (bounded: the first {@link MAX_TARGETS}). */
const targets = new Map<string, { origin: string; path: string }>();
const MAX_TARGETS = 256;

function targetOf(url: string): { origin: string; path: string } {
  const known = targets.get(url);
  if (known !== undefined) return known;
  const parsed = new URL(url);
  const target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
  if (targets.size < MAX_TARGETS) targets.set(url, target);
  return target;
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

function sendPooled(exchange: HttpExchange, requestedUrl: string): Promise<HttpAnswer> {
  const target = targetOf(exchange.url);
  const client = loadedClient;
  if (client !== undefined) return dispatchExchange(client.dispatcher, client.errors, target, exchange, requestedUrl);
  return pooledClient().then((loaded) =>
    dispatchExchange(loaded.dispatcher, loaded.errors, target, exchange, requestedUrl),
  );
}

async function sendFetch(
  fetchImplementation: typeof globalThis.fetch,
  exchange: HttpExchange,
  requestedUrl: string,
): Promise<HttpAnswer> {
  const init: RequestInit = {
    method: exchange.method ?? 'POST',
    headers: exchange.headers,
    signal: toAbortSignal(exchange.signal),
    // Never followed: a redirect answer is refused by the caller (transport-redirect.ts).
    redirect: 'manual',
  };
  // A `fetch` takes one body: chunks are joined (the pooled client writes them one by one).
  if (exchange.body !== undefined)
    init.body = isBodyChunks(exchange.body) ? joinBodyChunks(exchange.body) : exchange.body;
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
