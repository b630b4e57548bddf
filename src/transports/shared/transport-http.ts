import { Buffer } from 'node:buffer';
import { AbortError, ConnectionError, HermesError } from '../../core/errors.js';
import type { OriginStamp } from '../../core/origin.js';
import type { Route } from '../../core/route.js';
import { DEFAULT_TIMEOUTS } from '../../core/timeouts.js';
import { hostnameOf } from '../../replay/replay-host.js';
import type { TransportRequest } from './transport.js';
import { openWithDeadlines } from './transport-deadlines.js';
import { sendExchange, type HeaderLookup, type HttpAnswer, type HttpExchange } from './transport-http-client.js';
import { isRedirectStatus, redirectRefused } from './transport-redirect.js';
import { eventTooLargeError, MAX_EVENT_BYTES } from './transport-sse-reader.js';

/**
 * HTTP helpers every JSON-over-HTTP transport shares: opening a request (client, time limits,
 * redirect refusal), headers, request ids, bounded body reads, error-body trimming, secret
 * redaction, and mapping of network failures to typed errors.
 */

/** How {@link openProviderRequest} words a failure and which `fetch` it falls back to. */
export interface OpenOptions {
  /** Start of the error when no answer came (`could not reach openai at URL`). */
  unreachable: string;
  /** The transport factory's `fetch`, used when the request brings none (tests inject one). */
  fetch?: typeof globalThis.fetch | undefined;
}

/**
 * Opens one provider request: through the request's client (`transport-http-client.ts`), under
 * its time limits (`transport-deadlines.ts`, defaults {@link DEFAULT_TIMEOUTS}), a redirect
 * refused (`transport-redirect.ts`). A failure to get an answer is a retryable
 * {@link ConnectionError} whose message starts with `options.unreachable` (or the timeout or
 * abort error).
 */
export async function openProviderRequest(
  request: TransportRequest,
  exchange: Omit<HttpExchange, 'signal'>,
  options: OpenOptions,
): Promise<HttpAnswer> {
  const provider = request.route.provider;
  const client = { fetch: request.fetch ?? options.fetch, connectTo: request.connectTo };
  let answer: HttpAnswer;
  try {
    answer = await openWithDeadlines((signal) => sendExchange(client, { ...exchange, signal }), {
      timeouts: request.timeouts ?? DEFAULT_TIMEOUTS,
      provider,
      signal: request.signal,
    });
  } catch (error) {
    throw networkError(error, { signal: request.signal, retryable: true, what: options.unreachable });
  }
  if (isRedirectStatus(answer.status)) {
    await answer.body.cancel();
    throw redirectRefused(provider, answer.status, answer.headers, exchange.url);
  }
  return answer;
}

/** Whether the answer is a success (2xx). */
export function isSuccess(answer: HttpAnswer): boolean {
  return answer.status >= 200 && answer.status < 300;
}

/** Whether the answer is a `text/event-stream`. */
export function isEventStreamAnswer(answer: HttpAnswer): boolean {
  return (answer.headers.get('content-type') ?? '').toLowerCase().includes('text/event-stream');
}

/**
 * A whole success body (a non-streaming answer) as text. It is one answer event, so it is held to
 * the stream's one-event cap ({@link MAX_EVENT_BYTES}): past it, the rest is left unread and a
 * {@link StreamError} says so. A connection that fails mid-body rejects with what the body read threw.
 */
export async function readAnswerText(answer: HttpAnswer, limit: number = MAX_EVENT_BYTES): Promise<string> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const chunk = await answer.body.read();
    if (chunk === null) break;
    length += chunk.byteLength;
    if (length > limit) {
      await answer.body.cancel();
      throw eventTooLargeError(limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, length).toString('utf8');
}

/** Longest provider body kept on an error (characters). Enough for any validation message. */
export const ERROR_BODY_LIMIT = 4_000;

/** Response headers that carry a request id, most specific first. */
const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-amzn-requestid', 'x-goog-request-id', 'cf-ray'];

/** The request id a provider answered with, if any (quote it when reporting a provider bug). */
export function requestIdFromHeaders(headers: HeaderLookup): string | undefined {
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
export async function readBodyText(answer: HttpAnswer, limit: number = ERROR_BODY_READ_LIMIT): Promise<string> {
  const decoder = new TextDecoder('utf-8');
  let text = '';
  let read = 0;
  try {
    for (;;) {
      const chunk = await answer.body.read();
      if (chunk === null) return text + decoder.decode();
      const room = limit - read;
      read += chunk.byteLength;
      if (chunk.byteLength > room) {
        text += decoder.decode(chunk.subarray(0, room));
        await answer.body.cancel();
        return `${text}… [body cut at ${Math.round(limit / 1024)} KiB]`;
      }
      text += decoder.decode(chunk, { stream: true });
    }
  } catch {
    return text;
  }
}

/** True for errors a request or a body read raise because the request's signal aborted. */
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
 * Maps anything a request or body read threw to a typed error: {@link AbortError} when the
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
