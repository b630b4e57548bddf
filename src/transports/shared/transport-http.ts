import { AbortError, ConnectionError, HermesError } from '../../core/errors.js';
import type { OriginStamp } from '../../core/origin.js';
import type { Route } from '../../core/route.js';
import { hostnameOf } from '../../replay/replay-host.js';

/**
 * HTTP helpers every JSON-over-HTTP transport shares: headers, request ids, error-body
 * trimming, secret redaction, and mapping of `fetch` failures to typed errors.
 */

/** Longest provider body kept on an error (characters). Enough for any validation message. */
export const ERROR_BODY_LIMIT = 4_000;

/** Response headers that carry a request id, most specific first. */
const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-amzn-requestid', 'x-goog-request-id', 'cf-ray'];

/** The request id a provider answered with, if any (quote it when reporting a provider bug). */
export function requestIdFromHeaders(headers: Headers): string | undefined {
  for (const name of REQUEST_ID_HEADERS) {
    const value = headers.get(name);
    if (value !== null && value.trim() !== '') return value.trim();
  }
  return undefined;
}

/** Trims whitespace and caps `text` at `limit` characters, marking the cut. */
export function trimBody(text: string, limit: number = ERROR_BODY_LIMIT): string {
  const trimmed = text.trim();
  return trimmed.length <= limit ? trimmed : `${trimmed.slice(0, limit)}… [${trimmed.length - limit} more characters]`;
}

/** Replaces every occurrence of `secret` in `text` (providers sometimes echo the key they rejected). */
export function redactSecret(text: string, secret: string | undefined): string {
  if (secret === undefined || secret.length < 4) return text;
  return text.split(secret).join('[redacted]');
}

/** Headers for a JSON POST. `authorization` only when a key is given (local servers need none). */
export function jsonRequestHeaders(options: {
  apiKey?: string | undefined;
  stream: boolean;
  extra?: Record<string, string>;
}): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: options.stream ? 'text/event-stream' : 'application/json',
  };
  if (options.apiKey !== undefined && options.apiKey !== '') headers['authorization'] = `Bearer ${options.apiKey}`;
  return { ...headers, ...options.extra };
}

/**
 * Most bytes of an error body read (the rest is discarded unread): a provider or proxy that
 * answers an error with a huge body must not fill memory; the message needs a few KB.
 */
export const ERROR_BODY_READ_LIMIT = 1024 * 1024;

/**
 * Reads an error body as text, at most `limit` bytes, without ever throwing (a body that fails
 * mid-read yields what arrived). A longer body is cut, marked, and its connection closed.
 */
export async function readBodyText(response: Response, limit: number = ERROR_BODY_READ_LIMIT): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder('utf-8');
  let text = '';
  let read = 0;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) return text + decoder.decode();
      const room = limit - read;
      read += next.value.byteLength;
      if (next.value.byteLength > room) {
        text += decoder.decode(next.value.subarray(0, room));
        await reader.cancel().catch(() => undefined);
        return `${text}… [body cut at ${Math.round(limit / 1024)} KiB]`;
      }
      text += decoder.decode(next.value, { stream: true });
    }
  } catch {
    return text;
  }
}

/** True for errors `fetch` or a body read raise because the request's signal aborted. */
export function isAbortLike(error: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted) return true;
  return error instanceof Error && (error.name === 'AbortError' || error instanceof AbortError);
}

/** Describes a low-level network error: `fetch failed (ECONNREFUSED)`, `terminated (other side closed)`. */
export function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return `${error.message} (${typeof code === 'string' ? code : cause.message})`;
  }
  return error.message;
}

/**
 * Maps anything a `fetch` call or body read threw to a typed error: {@link AbortError} when the
 * caller aborted, otherwise a {@link ConnectionError} (`retryable` as given: true before any
 * event reached the caller, false after).
 */
export function networkError(
  error: unknown,
  options: { signal?: AbortSignal | undefined; retryable: boolean; what: string },
): HermesError {
  if (error instanceof HermesError) return error;
  if (isAbortLike(error, options.signal)) return new AbortError('request aborted', { cause: error });
  return new ConnectionError(
    `${options.what}: ${describeNetworkError(error)}. Check the base URL and your network, then retry.`,
    {
      retryable: options.retryable,
      cause: error,
    },
  );
}

/** The origin stamp (SPEC §23.2) for a message captured on `route`. */
export function originStampFor(route: Route): OriginStamp {
  return {
    api: route.api,
    provider: route.provider.trim().toLowerCase(),
    host: hostnameOf(route.baseUrl),
    model: route.model,
  };
}
