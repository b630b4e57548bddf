import { AbortError, ApiError, ConnectionError, HermesError, StreamError, TimeoutError } from '../../core/errors.js';
import type { EventStream } from '../../core/event-stream.js';
import { hostnameOf } from '../../replay/replay-host.js';
import { openTransportStream } from '../shared/transport-redact.js';
import { originStampFor, readBodyText, redactSecret } from '../shared/transport-http.js';
import { requestProfile } from '../transport-route-profile.js';
import { readServerSentEventBatches } from '../shared/transport-sse-reader.js';
import { serializeRequestBody } from '../shared/request-body.js';
import type { PreparedRequest, Transport, TransportRequest } from '../shared/transport.js';
import { GeminiDecoder, type GeminiDecodeContext } from './gemini-decode.js';
import { prepareGemini } from './gemini-encode.js';
import { geminiApiError, parseGeminiErrorBody } from './gemini-errors.js';
import type { GeminiResponse } from './gemini-wire.js';
import { requestFetch } from '../shared/transport-deadlines.js';

/**
 * The Gemini transport's I/O (WIRE.md §4): endpoint and auth (AI Studio `x-goog-api-key`;
 * Vertex AI bearer token from Application Default Credentials via `google-auth-library`, or an
 * API key in express mode), SSE framing, retries before the first event. Everything else is in
 * the pure encoder and decoder.
 */

// ---------------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------------

/** Injection points for tests and embedding. */
export interface GeminiTransportOptions {
  fetch?: typeof globalThis.fetch;
  sleep?: (milliseconds: number, signal?: AbortSignal) => Promise<void>;
  /** Vertex bearer token source; default: Application Default Credentials (`google-auth-library`). */
  accessTokenProvider?: () => Promise<string>;
  /** Environment for key and Vertex project/location defaults; default `process.env`. */
  environment?: Record<string, string | undefined>;
  /** Tool-call id factory for calls that arrive without an id (tests make it deterministic). */
  createToolCallId?: (index: number) => string;
}

const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/** Longest `retry-after` / `RetryInfo.retryDelay` slept through before retrying (as in transport-retry.ts). */
const MAX_RETRY_AFTER_MS = 60_000;

// ---------------------------------------------------------------------------------------------
// Transport
// ---------------------------------------------------------------------------------------------

/** Builds a Gemini transport with injected I/O. */
export function createGeminiTransport(options: GeminiTransportOptions = {}): Transport {
  const environment = options.environment ?? process.env;
  const defaults = () => ({
    vertexProject: environment['GOOGLE_CLOUD_PROJECT'],
    vertexLocation: environment['GOOGLE_CLOUD_LOCATION'],
  });
  const tokenProvider = options.accessTokenProvider ?? applicationDefaultToken();
  return {
    api: 'gemini',
    prepare: (request) => prepareGemini(request, defaults()),
    send(request, prepared) {
      const stream = openTransportStream(request);
      const ready = prepared ?? prepareGemini(request, defaults());
      run(stream, request, ready, { ...options, environment, accessTokenProvider: tokenProvider }).catch((error) =>
        stream.fail(error),
      );
      return stream;
    },
  };
}

/** The default Gemini transport (global `fetch`, ADC for Vertex). */
export const geminiTransport: Transport = createGeminiTransport();

type ResolvedOptions = GeminiTransportOptions & {
  environment: Record<string, string | undefined>;
  accessTokenProvider: () => Promise<string>;
};

async function run(
  stream: EventStream,
  request: TransportRequest,
  prepared: PreparedRequest,
  options: ResolvedOptions,
): Promise<void> {
  const fetchImplementation = requestFetch(request, options.fetch);
  const sleep = options.sleep ?? defaultSleep;
  const facts = requestProfile(request).gemini;
  const streaming = request.stream ?? true;
  const headers = await authHeaders(request, facts.issuerKind, options);
  const maxAttempts = Math.max(1, request.maxAttempts ?? 3);
  for (let attempt = 1; ; attempt++) {
    throwIfAborted(request.signal);
    let response: Response;
    try {
      response = await fetchImplementation(prepared.url, {
        method: 'POST',
        headers,
        body: serializeRequestBody(prepared),
        signal: request.signal ?? null,
      });
    } catch (error) {
      throwIfAborted(request.signal);
      const failure =
        error instanceof TimeoutError
          ? error
          : new ConnectionError(`could not reach ${hostOf(prepared.url)}: ${describe(error)}`, {
              retryable: true,
              cause: error,
            });
      if (attempt >= maxAttempts) throw failure;
      await retryPause(stream, sleep, attempt, failure.message, undefined, request.signal);
      continue;
    }
    if (!response.ok) {
      // The key (or Vertex access token) never reaches an error message, a log or state.db, even
      // if a proxy in front of Google echoes the credential it rejected.
      const rawBody = await readBodyText(response);
      const body = redactSecret(
        redactSecret(rawBody, headers['x-goog-api-key']),
        headers['authorization']?.replace(/^Bearer /, ''),
      );
      const error = geminiApiError(response.status, body, {
        requestId: response.headers.get('x-goog-request-id') ?? response.headers.get('x-request-id') ?? undefined,
        retryAfterMs: retryAfterMs(response.headers.get('retry-after'), body),
        provider: request.route.provider,
      });
      // A wait longer than MAX_RETRY_AFTER_MS (a daily quota's RetryInfo, say) surfaces the error
      // instead of an agent that silently sleeps for hours — the shared retry policy's rule.
      const waitsTooLong = error.retryAfterMs !== undefined && error.retryAfterMs > MAX_RETRY_AFTER_MS;
      if (!error.retryable || attempt >= maxAttempts || waitsTooLong) throw error;
      await retryPause(stream, sleep, attempt, error.message, error.retryAfterMs, request.signal);
      continue;
    }
    const context: GeminiDecodeContext = { origin: originStampFor(request.route), issuer: facts.issuer };
    if (options.createToolCallId) context.createToolCallId = options.createToolCallId;
    await deliver(stream, response, streaming, new GeminiDecoder(context), request.signal);
    return;
  }
}

/** Decodes a 200 answer into events; every failure from here on is the terminal `error` event. */
async function deliver(
  stream: EventStream,
  response: Response,
  streaming: boolean,
  decoder: GeminiDecoder,
  signal: AbortSignal | undefined,
): Promise<void> {
  stream.push({ type: 'start' });
  try {
    if (!streaming) {
      const text = await response.text();
      for (const event of decoder.push(parseChunk(text))) stream.push(event);
    } else {
      if (!response.body) throw new StreamError('the Gemini stream had no body', { retryable: true });
      for await (const batch of readServerSentEventBatches(response.body)) {
        for (const message of batch) {
          if (message.data.trim() === '') continue;
          for (const event of decoder.push(parseChunk(message.data))) stream.push(event);
        }
      }
    }
    const { events, result } = decoder.finish();
    for (const event of events) stream.push(event);
    stream.end({ type: 'finish', message: result.message, finishReason: result.finishReason, usage: result.usage });
  } catch (error) {
    if (signal?.aborted) stream.fail(new AbortError('the Gemini request was aborted'));
    else if (error instanceof HermesError) stream.fail(error);
    else stream.fail(new StreamError(`the Gemini stream broke: ${describe(error)}`, { retryable: true, cause: error }));
  }
}

function parseChunk(text: string): GeminiResponse {
  try {
    return JSON.parse(text) as GeminiResponse;
  } catch (error) {
    throw new StreamError('Gemini sent a chunk that is not JSON', { body: text.slice(0, 500), cause: error });
  }
}

// ---------------------------------------------------------------------------------------------
// Auth
// ---------------------------------------------------------------------------------------------

async function authHeaders(
  request: TransportRequest,
  issuerKind: 'ai-studio' | 'vertex',
  options: ResolvedOptions,
): Promise<Record<string, string>> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const environment = options.environment;
  const apiKey =
    request.apiKey ??
    (issuerKind === 'ai-studio' ? (environment['GEMINI_API_KEY'] ?? environment['GOOGLE_API_KEY']) : undefined);
  if (apiKey) {
    // Vertex express mode takes an API key the same way; it never goes in the URL, where logs would keep it.
    headers['x-goog-api-key'] = apiKey;
    return headers;
  }
  if (issuerKind === 'ai-studio') {
    throw new HermesError('no Gemini API key: set GEMINI_API_KEY (or GOOGLE_API_KEY) or pass --api-key');
  }
  let token: string;
  try {
    token = await options.accessTokenProvider();
  } catch (error) {
    throw new HermesError(
      `no Google credentials for Vertex AI (${describe(error)}); run \`gcloud auth application-default login\` or set GOOGLE_APPLICATION_CREDENTIALS`,
      { cause: error },
    );
  }
  headers['authorization'] = `Bearer ${token}`;
  return headers;
}

function applicationDefaultToken(): () => Promise<string> {
  let auth: Promise<{ getAccessToken(): Promise<string | null | undefined> }> | undefined;
  return async () => {
    auth ??= import('google-auth-library').then(({ GoogleAuth }) => new GoogleAuth({ scopes: [CLOUD_PLATFORM_SCOPE] }));
    const token = await (await auth).getAccessToken();
    if (!token) throw new Error('Application Default Credentials returned no access token');
    return token;
  };
}

// ---------------------------------------------------------------------------------------------
// Retry helpers
// ---------------------------------------------------------------------------------------------

async function retryPause(
  stream: EventStream,
  sleep: NonNullable<GeminiTransportOptions['sleep']>,
  attempt: number,
  reason: string,
  retryAfter: number | undefined,
  signal: AbortSignal | undefined,
): Promise<void> {
  const delayMs = retryAfter ?? Math.min(8000, 500 * 2 ** (attempt - 1));
  stream.push({ type: 'retry', attempt, delayMs, reason });
  await sleep(delayMs, signal);
  throwIfAborted(signal);
}

/** `retry-after` seconds or date, else Google's `RetryInfo.retryDelay` ("30s") from the error details. */
function retryAfterMs(header: string | null, body: string): number | undefined {
  if (header) {
    const seconds = Number(header);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(header);
    if (Number.isFinite(date)) return Math.max(0, date - Date.now());
  }
  for (const detail of parseGeminiErrorBody(body)?.details ?? []) {
    const delay =
      typeof detail === 'object' && detail !== null && !Array.isArray(detail) ? detail['retryDelay'] : undefined;
    const match = typeof delay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null;
    if (match) return Number(match[1]) * 1000;
  }
  return undefined;
}

function defaultSleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, milliseconds);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortError('the Gemini request was aborted');
}

function hostOf(url: string): string {
  return hostnameOf(url) || url;
}

function describe(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error)
    return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
  return String(error);
}
