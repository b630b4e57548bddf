import { ApiError } from '../core/errors.js';
import { knownSecrets, redactError } from '../core/redact.js';
import { GatewayHttpError } from './gateway-errors.js';
import { toHttpError } from './gateway-turn.js';

/**
 * Failures of the front doors. `/v1/messages` answers in Anthropic's envelope
 * (`{"type":"error","error":{"type","message"}}`, WIRE §2.6), `/v1/responses` in OpenAI's (the
 * chat route's, gateway-errors.ts). A provider failure keeps the status class a client acts on:
 * the provider's 4xx about the request is a 400 (so Claude Code sees "prompt is too long" and
 * compacts instead of retrying), 429 stays 429 and 529 stays 529 (clients back off and retry),
 * the gateway's own credentials being refused (401/403) and every 5xx are 502 (the gateway's
 * upstream failed, not the client's request). The provider's text is kept, secrets redacted.
 */

/** A failure as a front door answers it. */
export function frontDoorHttpError(error: unknown, apiKey: string | undefined): GatewayHttpError {
  const base = toHttpError(error);
  if (error instanceof ApiError) {
    const status = upstreamStatus(error.status);
    const type = status === 400 ? 'invalid_request_error' : status === 429 ? 'rate_limit_error' : 'provider_error';
    const mapped = new GatewayHttpError(status, base.message, type, base.code, base.param);
    return redactError(mapped, knownSecrets(apiKey, process.env));
  }
  return redactError(base, knownSecrets(apiKey, process.env));
}

function upstreamStatus(status: number): 400 | 429 | 502 | 529 {
  if (status === 429) return 429;
  if (status === 529) return 529;
  if (status >= 400 && status < 500 && status !== 401 && status !== 403) return 400;
  return 502;
}

/** Anthropic's error `type` for a status (docs.anthropic.com "Errors"). */
function anthropicErrorType(status: number): string {
  switch (status) {
    case 400:
    case 409:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 529:
      return 'overloaded_error';
    default:
      return 'api_error';
  }
}

/** The Anthropic error body for a failure (also the `error` event of a stream). */
export function anthropicErrorBody(error: GatewayHttpError): {
  type: 'error';
  error: { type: string; message: string };
} {
  return { type: 'error', error: { type: anthropicErrorType(error.status), message: error.message } };
}

/**
 * An Anthropic error response. A failure that the same request cannot get past (4xx but 408,
 * 409 and 429) says `x-should-retry: false`, the header Anthropic's SDKs and Claude Code obey:
 * Claude Code otherwise sends a refused token 11 times over three minutes before it says
 * "Invalid API key", and retries a 400 once.
 */
export function anthropicErrorResponse(error: GatewayHttpError, headers: Record<string, string> = {}): Response {
  const safe = redactError(error, knownSecrets(undefined, process.env));
  const final = safe.status >= 400 && safe.status < 500 && ![408, 409, 429].includes(safe.status);
  return new Response(JSON.stringify(anthropicErrorBody(safe)), {
    status: safe.status,
    headers: { 'content-type': 'application/json', ...(final ? { 'x-should-retry': 'false' } : {}), ...headers },
  });
}
