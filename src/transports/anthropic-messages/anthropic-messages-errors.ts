/**
 * Error mapping for the Anthropic Messages API and its platforms (WIRE.md §2.5, §2.6). Anthropic
 * answers `{"type":"error","error":{"type":"invalid_request_error","message":…},"request_id":"req_…"}`;
 * Bedrock answers `{"message":"…"}` (with `x-amzn-errortype`); proxies in front of Vertex wrap the
 * Anthropic envelope as a JSON string inside `{"error":{"code":400,"message":"{…}","status":…}}`.
 */
import { type ApiError, apiErrorFromStatus } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';
import { isThinkingSignatureError } from '../../replay/anthropic-signature-memory.js';
import { redactSecret, requestIdFromHeaders, trimBody } from '../shared/transport-http.js';
import type { HeaderLookup } from '../shared/transport-http-client.js';
import { parseRetryAfterMs } from '../shared/transport-retry.js';

export { isThinkingSignatureError };

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The provider's human message inside an error body, unwrapping Bedrock and Vertex-proxy envelopes. */
export function anthropicErrorMessage(body: string): string | undefined {
  const parsed = parseJson(body);
  if (!isJsonObject(parsed)) return undefined;
  const error = parsed['error'];
  if (isJsonObject(error) && typeof error['message'] === 'string') {
    // Vertex proxies: the inner message is itself an Anthropic envelope.
    const inner = anthropicErrorMessage(error['message']);
    return inner ?? error['message'];
  }
  if (typeof parsed['message'] === 'string') return parsed['message'];
  if (typeof parsed['Message'] === 'string') return parsed['Message'];
  return undefined;
}

/** The request id from the body (`request_id`) or the response headers. */
export function anthropicRequestId(body: string, headers: HeaderLookup): string | undefined {
  const parsed = parseJson(body);
  if (isJsonObject(parsed) && typeof parsed['request_id'] === 'string') return parsed['request_id'];
  return requestIdFromHeaders(headers);
}

function hintFor(status: number, message: string): string {
  if (isThinkingSignatureError(message)) {
    return 'A replayed thinking signature was rejected; the runtime remembers that block and retries once without it.';
  }
  if (status === 401 || status === 403) return 'Check the API key or cloud credentials for this endpoint.';
  if (status === 429) return 'Rate limited: wait and retry, or lower the request rate.';
  if (status === 529 || status >= 500) return 'The provider is overloaded or failing; retry shortly.';
  return 'Fix the request (see the provider message) and retry.';
}

/** Builds the typed error for a non-2xx response; the API key never appears in it. */
export function anthropicApiError(options: {
  status: number;
  body: string;
  headers: HeaderLookup;
  provider: string;
  apiKey?: string | undefined;
}): ApiError {
  const body = trimBody(redactSecret(options.body, options.apiKey));
  const providerMessage = anthropicErrorMessage(body) ?? (body === '' ? 'no response body' : body);
  return apiErrorFromStatus(
    `${options.provider} answered HTTP ${options.status}: ${providerMessage} ${hintFor(options.status, providerMessage)}`,
    {
      status: options.status,
      body,
      requestId: anthropicRequestId(options.body, options.headers),
      retryAfterMs: parseRetryAfterMs(options.headers),
      provider: options.provider,
    },
  );
}
