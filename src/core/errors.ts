/**
 * Typed errors (STYLE rule 5 (docs/architecture.md)). Everything a person reads says what happened and what to do
 * next. Bodies are trimmed and never contain the API key (the transport never echoes headers).
 */

/** Base of every error Hermes TS raises on purpose. */
export class HermesError extends Error {
  override readonly name: string = 'HermesError';
  /** Whether retrying the same request may succeed. */
  readonly retryable: boolean;

  constructor(message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryable = options.retryable ?? false;
  }
}

/** Bad user input (flags, files, config). The CLI exits 2 on these. */
export class UsageError extends HermesError {
  override readonly name: string = 'UsageError';
}

/** Fields every provider HTTP error carries. */
export interface ApiErrorDetails {
  status: number;
  /** Response body, trimmed to a readable size; OpenRouter `error.metadata.raw` already unwrapped. */
  body: string;
  requestId?: string | undefined;
  /** Milliseconds the provider asked us to wait (`retry-after`), when given. */
  retryAfterMs?: number | undefined;
  provider?: string | undefined;
}

/** An HTTP error answered by a provider. Use {@link apiErrorFromStatus} to get the right subclass. */
export class ApiError extends HermesError {
  override readonly name: string = 'ApiError';
  readonly status: number;
  readonly body: string;
  readonly requestId: string | undefined;
  readonly retryAfterMs: number | undefined;
  readonly provider: string | undefined;

  constructor(message: string, details: ApiErrorDetails, retryable = false) {
    super(message, { retryable });
    this.status = details.status;
    this.body = details.body;
    this.requestId = details.requestId;
    this.retryAfterMs = details.retryAfterMs;
    this.provider = details.provider;
  }
}

/** HTTP 400. */
export class BadRequestError extends ApiError {
  override readonly name: string = 'BadRequestError';
}
/** HTTP 401. */
export class AuthenticationError extends ApiError {
  override readonly name: string = 'AuthenticationError';
}
/** HTTP 403. */
export class PermissionDeniedError extends ApiError {
  override readonly name: string = 'PermissionDeniedError';
}
/** HTTP 404. */
export class NotFoundError extends ApiError {
  override readonly name: string = 'NotFoundError';
}
/** HTTP 409. */
export class ConflictError extends ApiError {
  override readonly name: string = 'ConflictError';
}
/** HTTP 422. */
export class UnprocessableEntityError extends ApiError {
  override readonly name: string = 'UnprocessableEntityError';
}
/** HTTP 429. Retryable; honours `retry-after`. */
export class RateLimitError extends ApiError {
  override readonly name: string = 'RateLimitError';
}
/** HTTP 5xx. Retryable. */
export class InternalServerError extends ApiError {
  override readonly name: string = 'InternalServerError';
}

/** The connection failed or dropped before a complete response arrived. Retryable before any event was emitted. */
export class ConnectionError extends HermesError {
  override readonly name: string = 'ConnectionError';
}

/** The time limits of one provider request (`timeouts.<limit>` in config.yaml). */
export type TimeoutLimit = 'first_byte' | 'idle' | 'total';

/** A request hit one of its time limits. Retryable like a dropped connection while nothing was emitted. */
export class TimeoutError extends ConnectionError {
  override readonly name: string = 'TimeoutError';
  readonly limit: TimeoutLimit;
  readonly limitMs: number;

  constructor(
    message: string,
    options: { limit: TimeoutLimit; limitMs: number; retryable?: boolean; cause?: unknown },
  ) {
    super(message, options);
    this.limit = options.limit;
    this.limitMs = options.limitMs;
  }
}

/** A stream started but ended badly: provider error chunk, malformed chunk, or truncated stream. */
export class StreamError extends HermesError {
  override readonly name: string = 'StreamError';
  /** Provider text from the error chunk, when there was one. */
  readonly body: string | undefined;

  constructor(message: string, options: { body?: string; retryable?: boolean; cause?: unknown } = {}) {
    super(message, options);
    this.body = options.body;
  }
}

/** The request was aborted by the caller (Ctrl-C, gateway client gone). */
export class AbortError extends HermesError {
  override readonly name: string = 'AbortError';
}

/** Maps an HTTP status to the matching {@link ApiError} subclass. */
export function apiErrorFromStatus(message: string, details: ApiErrorDetails): ApiError {
  const { status } = details;
  if (status === 400) return new BadRequestError(message, details);
  if (status === 401) return new AuthenticationError(message, details);
  if (status === 403) return new PermissionDeniedError(message, details);
  if (status === 404) return new NotFoundError(message, details);
  if (status === 409) return new ConflictError(message, details);
  if (status === 422) return new UnprocessableEntityError(message, details);
  if (status === 429) return new RateLimitError(message, details, true);
  if (status >= 500) return new InternalServerError(message, details, true);
  return new ApiError(message, details);
}
