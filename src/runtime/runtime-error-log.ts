import { ApiError, type HermesError } from '../core/errors.js';
import type { Logger } from '../logging/logger.js';

/** Longest provider error text a log line keeps. */
const LOGGED_TEXT_LIMIT = 500;

/**
 * Logs a failed provider request at ERROR (so it reaches `errors.log` and `agent.log`, SPEC §20):
 * the status (0 when no answer came), the provider's text trimmed, the route key and the
 * provider's request id. The API key never appears, even if a provider echoed it.
 */
export function logProviderFailure(
  logger: Logger,
  failure: { sessionId: string; routeKey: string; attempt: number; error: HermesError; apiKey?: string | undefined },
): void {
  const { error } = failure;
  const api = error instanceof ApiError ? error : null;
  const text = trimmed(api?.body || error.message, failure.apiKey);
  logger.error(
    {
      session: failure.sessionId,
      routeKey: failure.routeKey,
      attempt: failure.attempt,
      status: api?.status ?? 0,
      requestId: api?.requestId ?? null,
      error: text,
    },
    `provider request failed: ${failure.routeKey} HTTP ${api?.status ?? 0}${api?.requestId ? ` (request id ${api.requestId})` : ''}: ${text}`,
  );
}

/** Logs a retryable failure the transport is about to retry, at WARN. */
export function logProviderRetry(
  logger: Logger,
  retry: { sessionId: string; routeKey: string; attempt: number; delayMs: number; reason: string },
): void {
  logger.warn(
    { session: retry.sessionId, routeKey: retry.routeKey, attempt: retry.attempt, delayMs: retry.delayMs },
    `provider request failed: ${retry.routeKey} ${retry.reason}; retrying (attempt ${retry.attempt}) in ${retry.delayMs} ms`,
  );
}

function trimmed(text: string, apiKey: string | undefined): string {
  let single = text.replace(/\s+/g, ' ').trim();
  if (apiKey) single = single.split(apiKey).join('[redacted]');
  return single.length > LOGGED_TEXT_LIMIT ? `${single.slice(0, LOGGED_TEXT_LIMIT - 1)}…` : single;
}
