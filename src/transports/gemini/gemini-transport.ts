import { AbortError, HermesError, StreamError } from '../../core/errors.js';
import { hostnameOf } from '../../replay/replay-host.js';
import {
  describeNetworkError,
  isSuccess,
  networkError,
  openProviderRequest,
  originStampFor,
  readAnswerText,
  readBodyText,
  redactSecret,
  requestIdFromHeaders,
} from '../shared/transport-http.js';
import { parseRetryAfterMs, type Sleep } from '../shared/transport-retry.js';
import { sendTransportRequest, type TransportAnswer } from '../shared/transport-send.js';
import { requestProfile } from '../transport-route-profile.js';
import type { PreparedRequest, Transport, TransportRequest } from '../shared/transport.js';
import { GeminiDecoder, type GeminiDecodeContext } from './gemini-decode.js';
import { prepareGemini } from './gemini-encode.js';
import { geminiApiError, parseGeminiErrorBody } from './gemini-errors.js';
import { serializeRequestBodyChunks } from '../shared/request-body.js';

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
  /** A `fetch` for requests that bring none of their own (default: the pooled client, TransportRequest.fetch). */
  fetch?: typeof globalThis.fetch;
  sleep?: Sleep;
  /** Random source for backoff jitter (tests pass `() => 0`). */
  random?: () => number;
  /** Vertex bearer token source; default: Application Default Credentials (`google-auth-library`). */
  accessTokenProvider?: () => Promise<string>;
  /** Environment for key and Vertex project/location defaults; default `process.env`. */
  environment?: Record<string, string | undefined>;
  /** Tool-call id factory for calls that arrive without an id (tests make it deterministic). */
  createToolCallId?: (index: number) => string;
}

const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

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
  const resolved: ResolvedOptions = { ...options, environment, accessTokenProvider: tokenProvider };
  return {
    api: 'gemini',
    prepare: (request) => prepareGemini(request, defaults()),
    send(request, prepared) {
      return sendTransportRequest(request, options, {
        prepare: () => prepared ?? prepareGemini(request, defaults()),
        open: (ready) => open(request, ready, resolved),
        readError: (error) => {
          if (request.signal?.aborted) return new AbortError('the Gemini request was aborted');
          if (error instanceof HermesError) return error;
          return new StreamError(`the Gemini stream broke: ${describeNetworkError(error)}`, {
            retryable: true,
            cause: error,
          });
        },
      });
    },
  };
}

/** The default Gemini transport (the pooled HTTP client, ADC for Vertex). */
export const geminiTransport: Transport = createGeminiTransport();

type ResolvedOptions = GeminiTransportOptions & {
  environment: Record<string, string | undefined>;
  accessTokenProvider: () => Promise<string>;
};

/** One attempt: auth, POST, status check, and the answer to decode. */
async function open(
  request: TransportRequest,
  prepared: PreparedRequest,
  options: ResolvedOptions,
): Promise<TransportAnswer> {
  const facts = requestProfile(request).gemini;
  const streaming = request.stream ?? true;
  const headers = await authHeaders(request, facts.issuerKind, options);
  const response = await openProviderRequest(
    request,
    { url: prepared.url, headers, body: serializeRequestBodyChunks(prepared) },
    { unreachable: `could not reach ${hostnameOf(prepared.url) || prepared.url}`, fetch: options.fetch },
  );
  if (!isSuccess(response)) {
    // The key (or Vertex access token) never reaches an error message, a log or state.db, even
    // if a proxy in front of Google echoes the credential it rejected.
    const rawBody = await readBodyText(response);
    const body = redactSecret(
      redactSecret(rawBody, headers['x-goog-api-key']),
      headers['authorization']?.replace(/^Bearer /, ''),
    );
    // A wait past the shared retry's limit (a daily quota's RetryInfo, say) surfaces the error.
    throw geminiApiError(response.status, body, {
      requestId: requestIdFromHeaders(response.headers),
      retryAfterMs: parseRetryAfterMs(response.headers) ?? retryInfoDelayMs(body),
      provider: request.route.provider,
    });
  }
  const context: GeminiDecodeContext = { origin: originStampFor(request.route), issuer: facts.issuer };
  if (options.createToolCallId) context.createToolCallId = options.createToolCallId;
  const decoder = new GeminiDecoder(context);
  if (streaming) return { kind: 'bytes', body: response.body, decoder };
  let text: string;
  try {
    text = await readAnswerText(response);
  } catch (error) {
    throw networkError(error, { signal: request.signal, retryable: true, what: 'the Gemini response broke' });
  }
  return { kind: 'events', events: [...decoder.push(text), ...decoder.end()] };
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

/** Google's `RetryInfo.retryDelay` ("30s") from the error details, when the body has one. */
function retryInfoDelayMs(body: string): number | undefined {
  for (const detail of parseGeminiErrorBody(body)?.details ?? []) {
    const delay =
      typeof detail === 'object' && detail !== null && !Array.isArray(detail) ? detail['retryDelay'] : undefined;
    const match = typeof delay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null;
    if (match) return Number(match[1]) * 1000;
  }
  return undefined;
}

function describe(error: unknown): string {
  if (error instanceof Error)
    return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
  return String(error);
}
