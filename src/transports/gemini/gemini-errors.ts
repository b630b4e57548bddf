import { apiErrorFromStatus, StreamError, type ApiError } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';
import type { GeminiErrorDetail } from './gemini-wire.js';

/**
 * Gemini error mapping (WIRE.md §4.5). Google answers `{"error":{"code","message","status"}}`;
 * the streaming endpoint without `alt=sse` wraps it in a one-element array, so both are read.
 * Messages quote the provider text (e.g. "Function call is missing a thought_signature in
 * functionCall parts. …") because it names the broken turn.
 */

/** Largest body kept on an error (the provider text plus a little context). */
const BODY_LIMIT = 4000;

/** Parses a Google error envelope from a response body; undefined when it is not one. */
export function parseGeminiErrorBody(body: string): GeminiErrorDetail | undefined {
  try {
    let value: unknown = JSON.parse(body);
    if (Array.isArray(value)) value = value[0];
    if (isJsonObject(value) && isJsonObject(value['error'])) return value['error'] as GeminiErrorDetail;
  } catch {
    return undefined;
  }
  return undefined;
}

/** The typed error for an HTTP error answer, carrying the trimmed body and the provider text. */
export function geminiApiError(
  status: number,
  body: string,
  options: { requestId?: string | undefined; retryAfterMs?: number | undefined; provider?: string } = {},
): ApiError {
  const detail = parseGeminiErrorBody(body);
  const providerText = detail?.message ?? (body.trim() === '' ? '(empty body)' : body.trim().slice(0, 300));
  const statusName = detail?.status ? ` ${detail.status}` : '';
  return apiErrorFromStatus(`Gemini API ${status}${statusName}: ${providerText}${nextStep(status)}`, {
    status,
    body: body.length > BODY_LIMIT ? `${body.slice(0, BODY_LIMIT)}…` : body,
    requestId: options.requestId,
    retryAfterMs: options.retryAfterMs,
    provider: options.provider,
  });
}

/** An error envelope that arrived inside a stream, after events were emitted. */
export function geminiStreamError(detail: GeminiErrorDetail): StreamError {
  const code = detail.code ?? 0;
  return new StreamError(
    `Gemini stream error${detail.status ? ` ${detail.status}` : ''}: ${detail.message ?? 'unknown'}`,
    {
      body: JSON.stringify({ error: detail }),
      retryable: code === 429 || code >= 500,
    },
  );
}

function nextStep(status: number): string {
  if (status === 401 || status === 403) return ' (check the API key, or the Google credentials for Vertex AI)';
  if (status === 429) return ' (rate limited; wait and retry)';
  if (status >= 500) return ' (Google-side failure; retry shortly)';
  return '';
}
