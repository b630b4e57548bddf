import { apiErrorFromStatus } from '../../core/errors.js';
import type { ApiError } from '../../core/errors.js';
import {
  isInvalidEncryptedContentError,
  isItemNotFoundError,
  responsesErrorFields,
} from '../../replay/responses-rejections.js';
import { trimBody } from '../shared/transport-http.js';

/**
 * Responses API errors (WIRE.md §5.5): bodies in, typed errors out. What a rejection teaches
 * the replay (the verdict predicates) lives in replay/responses-rejections.ts.
 */

// ---------------------------------------------------------------------------------------------
// Typed errors
// ---------------------------------------------------------------------------------------------

/** The typed error for an HTTP failure, its message quoting the provider text and the next step. */
export function responsesApiError(
  status: number,
  body: string,
  details: { requestId?: string | undefined; retryAfterMs?: number | undefined; provider?: string | undefined },
): ApiError {
  const { message } = responsesErrorFields(body);
  const providerText = message ?? (body.trim() === '' ? `HTTP ${status}` : trimBody(body));
  let next = '';
  if (isInvalidEncryptedContentError(body)) {
    next = ' Encrypted reasoning from this history is not accepted here; resend with encrypted replay off.';
  } else if (isItemNotFoundError(body)) {
    next = ' A reasoning item id was sent without its encrypted content; drop the item or its id.';
  } else if (status === 401) {
    next = ' Check the API key for this provider.';
  }
  return apiErrorFromStatus(`Responses API answered ${status}: ${providerText}${next}`, {
    status,
    body: trimBody(body),
    requestId: details.requestId,
    retryAfterMs: details.retryAfterMs,
    provider: details.provider,
  });
}
