import { HermesError } from '../../core/errors.js';
import type { HeaderLookup } from './transport-http-client.js';

/**
 * Redirects are never followed, on any transport. A provider API answers its POST where it is;
 * a `3xx` means the base URL points somewhere else (a web page, a login proxy, `http://` for an
 * `https://` host), and following it would re-send the request's credentials — `Authorization`,
 * `x-api-key`, `x-goog-api-key`, `api-key`, a SigV4 signature — to whatever the `Location` names.
 * The same goes for a redirect within the same origin: the request body and key would still be
 * replayed somewhere nobody configured, and the user fixes it once by setting the base URL to
 * the address that answers. The refusal is one line naming the status and the target origin
 * (never its path or query, which may carry a token), and it is not retried.
 */

/** A provider answered with a redirect; nothing was re-sent. */
export class RedirectRefusedError extends HermesError {
  override readonly name: string = 'RedirectRefusedError';

  constructor(
    message: string,
    /** The HTTP status of the redirect (301, 302, 303, 307, 308, …). */
    readonly status: number,
    /** The origin the redirect pointed to, or null when its `Location` was missing or not a URL. */
    readonly targetOrigin: string | null,
  ) {
    super(message, { retryable: false });
  }
}

/** Whether `status` is a redirect answer (any 3xx). */
export function isRedirectStatus(status: number): boolean {
  return status >= 300 && status < 400;
}

/** The origin `location` points to, resolved against `requestUrl`; null when it is absent or no http(s) URL. */
function originOf(location: string | null, requestUrl: string): string | null {
  if (location === null || location.trim() === '') return null;
  try {
    const target = new URL(location.trim(), requestUrl);
    return target.protocol === 'http:' || target.protocol === 'https:' ? target.origin : null;
  } catch {
    return null;
  }
}

/** The one-line refusal of a redirect answer to a request sent to `requestUrl`. */
export function redirectRefused(
  provider: string,
  status: number,
  headers: HeaderLookup,
  requestUrl: string,
): RedirectRefusedError {
  const target = originOf(headers.get('location'), requestUrl);
  let own: string | null = null;
  try {
    own = new URL(requestUrl).origin;
  } catch {
    own = null;
  }
  const where =
    target === null
      ? 'without a usable Location'
      : target === own
        ? `to another address on ${target}`
        : `to another origin, ${target}`;
  return new RedirectRefusedError(
    `${provider} answered HTTP ${status}, a redirect ${where}; hermes does not follow redirects, so the API key ` +
      'was not sent again: set the base URL to the address that answers',
    status,
    target,
  );
}
