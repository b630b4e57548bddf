import { AbortError, ApiError, HermesError } from '../../core/errors.js';
import type { HeaderLookup } from './transport-http-client.js';

/**
 * Retry with exponential backoff for failures that happen before a stream emitted anything
 * (HTTP 429 / 5xx, connection refused or reset). Generic over the wire API: an attempt is any
 * async function, and an error is retried when it is a {@link HermesError} with `retryable`.
 * Once an event reached the caller a failure is final (STYLE rule 5 (docs/architecture.md)), so callers wrap only
 * the part of a request that precedes the first event.
 */

/** Backoff shape. Defaults: 500 ms base, doubling, 8 s cap, up to 25 % jitter, 60 s max `retry-after`. */
export interface BackoffOptions {
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Fraction of the delay removed at random (0 = no jitter). */
  jitter?: number;
  /**
   * Longest `retry-after` we are willing to sleep through. A provider asking for longer (a
   * daily quota, say) gets its error surfaced instead of an agent that silently hangs.
   */
  maxRetryAfterMs?: number;
}

/** A sleep that rejects with {@link AbortError} when `signal` aborts. Injectable for tests. */
export type Sleep = (milliseconds: number, signal?: AbortSignal) => Promise<void>;

/** What the caller is told before each wait (becomes a `retry` stream event). */
export interface RetryNotice {
  /** The attempt about to start (2 for the first retry). */
  attempt: number;
  delayMs: number;
  reason: string;
}

/** Options of {@link runWithRetries}. */
export interface RetryOptions extends BackoffOptions {
  /** Attempts in total, including the first (at least 1). */
  maxAttempts: number;
  signal?: AbortSignal | undefined;
  sleep?: Sleep;
  /** Random source in [0, 1) for jitter; tests pass `() => 0` for exact delays. */
  random?: () => number;
  onRetry?: (notice: RetryNotice) => void;
}

const DEFAULT_BASE_DELAY_MS = 500;
const DEFAULT_MAX_DELAY_MS = 8_000;
const DEFAULT_JITTER = 0.25;
const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

/** The real sleep: a timer that is cleared and rejects with {@link AbortError} on abort. */
export const abortableSleep: Sleep = (milliseconds, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(new AbortError('request aborted while waiting to retry'));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortError('request aborted while waiting to retry'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, milliseconds);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** Exponential backoff for `attempt` (1 = delay after the first failure), with jitter and cap. */
export function backoffDelayMs(
  attempt: number,
  options: BackoffOptions = {},
  random: () => number = Math.random,
): number {
  const base = options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  const cap = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const jitter = options.jitter ?? DEFAULT_JITTER;
  const exponential = Math.min(cap, base * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential * (1 - jitter * random()));
}

/**
 * Milliseconds a response asked us to wait: `retry-after-ms` (OpenAI-style, fractional ms),
 * else `retry-after` as seconds or as an HTTP date. Undefined when absent or unparsable.
 */
export function parseRetryAfterMs(headers: HeaderLookup, now: number = Date.now()): number | undefined {
  const milliseconds = headers.get('retry-after-ms');
  if (milliseconds !== null && milliseconds.trim() !== '') {
    const value = Number(milliseconds);
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
  }
  const retryAfter = headers.get('retry-after');
  if (retryAfter === null || retryAfter.trim() === '') return undefined;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.round(seconds * 1000) : undefined;
  const date = Date.parse(retryAfter);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** A short reason for a retry notice: `HTTP 429`, `connection failed: ...`. */
export function retryReason(error: HermesError): string {
  if (error instanceof ApiError) return `HTTP ${error.status}`;
  return error.message;
}

/**
 * Runs `attempt` until it succeeds, a non-retryable error occurs, or `maxAttempts` ran out.
 * Waits honour the error's `retryAfterMs` (when within `maxRetryAfterMs`) else exponential
 * backoff. Throws the last error; throws {@link AbortError} as soon as `signal` aborts.
 */
export async function runWithRetries<T>(
  options: RetryOptions,
  attempt: (attemptNumber: number) => Promise<T>,
): Promise<T> {
  const sleep = options.sleep ?? abortableSleep;
  const random = options.random ?? Math.random;
  const maxAttempts = Math.max(1, Math.floor(options.maxAttempts));
  const maxRetryAfterMs = options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
  for (let attemptNumber = 1; ; attemptNumber += 1) {
    if (options.signal?.aborted) throw new AbortError('request aborted');
    try {
      return await attempt(attemptNumber);
    } catch (error) {
      if (options.signal?.aborted) throw new AbortError('request aborted', { cause: error });
      if (!(error instanceof HermesError) || !error.retryable || attemptNumber >= maxAttempts) throw error;
      const asked = error instanceof ApiError ? error.retryAfterMs : undefined;
      if (asked !== undefined && asked > maxRetryAfterMs) throw error;
      const delayMs = asked ?? backoffDelayMs(attemptNumber, options, random);
      options.onRetry?.({ attempt: attemptNumber + 1, delayMs, reason: retryReason(error) });
      await sleep(delayMs, options.signal);
    }
  }
}
