import type { SessionStore } from '../storage/session-store.js';
import { presentedTokenMatches } from './gateway-auth.js';
import { GatewayHttpError, type GatewayErrorType } from './gateway-errors.js';
import type { ChatRequestSource } from './gateway-request-source.js';
import { looksLikeUserKey, userKeyHash } from './gateway-users.js';

/**
 * Who may call the gateway (SPEC §26.10, docs/operations.md "Users"), one check for every route
 * but the static inspector page and the probes, so a door added later is covered too:
 *
 * - a user key (`hermes-user-…`, as `Authorization: Bearer` or `x-api-key`) is looked up by its
 *   SHA-256: unknown or revoked is a 401; a working one makes the request that user's (its
 *   sessions only, `ChatRequestSource.owner`), and a POST over the user's requests-per-minute is a
 *   429 with `retry-after`;
 * - otherwise, with a gateway token, the token is required (401 without it); it sees everything;
 * - without a token (loopback only) any other request is let through, as before users existed.
 *
 * Paths for the operator only (`/metrics`) refuse user keys (403).
 */

/** A refused request: the error and the headers its response carries. */
export interface AccessRefusal {
  error: GatewayHttpError;
  headers: Record<string, string>;
}

/** What a request without the token is told; the Gemini door's clients send Google's key header. */
const TOKEN_HINT =
  'missing or wrong token: send "Authorization: Bearer <token>", or the token in the x-api-key header (the token the gateway was started with)';
const GOOGLE_KEY_HINT =
  'missing or wrong key: send the gateway token as the API key (the x-goog-api-key header, the key query parameter, or "Authorization: Bearer <token>")';

/** Paths only the gateway's token (or an open loopback gateway) may read. */
const OPERATOR_PATHS = new Set(['/metrics']);

/** What {@link gatewayAccess} needs. */
export interface GatewayAccessOptions {
  token: string | undefined;
  store: SessionStore;
  /** Clock of the rate windows (epoch ms). */
  now?: () => number;
}

/** The access check: null lets the request through (its `owner` set); a refusal answers it. */
export function gatewayAccess(
  options: GatewayAccessOptions,
): (source: ChatRequestSource, method: string, path: string) => Promise<AccessRefusal | null> {
  const { token, store } = options;
  const now = options.now ?? Date.now;
  return async (source, method, path) => {
    const credential = presentedCredential(source);
    if (credential !== null && looksLikeUserKey(credential)) {
      const user = await store.gatewayUserByKeyHash(userKeyHash(credential));
      if (user === null || user.revokedAt !== null) {
        return unauthorized(
          user === null
            ? 'unknown user key: ask the gateway operator for a key (hermes gateway users add NAME)'
            : `the key of user "${user.name}" was revoked: ask the gateway operator for a new one`,
        );
      }
      if (OPERATOR_PATHS.has(path)) {
        return refusal(403, `${path} needs the gateway token, not a user key`, 'permission_error', 'operator_only');
      }
      source.owner = user.name;
      if (method !== 'POST' || user.requestsPerMinute === null) return null;
      const admission = await store.admitGatewayRequest(user.name, user.requestsPerMinute, now());
      if (admission.admitted) return null;
      const seconds = Math.max(1, Math.ceil(admission.retryAfterMs / 1000));
      const limited = refusal(
        429,
        `user "${user.name}" is over its limit of ${user.requestsPerMinute} requests per minute; retry in ${seconds} s`,
        'rate_limit_error',
        'rate_limit_exceeded',
      );
      limited.headers['retry-after'] = String(seconds);
      return limited;
    }
    if (token === undefined || token === '') return null;
    if (presentedTokenMatches(source.header('authorization'), source.header('x-api-key'), token)) return null;
    return unauthorized(path.startsWith('/v1beta/') ? GOOGLE_KEY_HINT : TOKEN_HINT);
  };
}

/** The key a request presents: the bearer token, else `x-api-key`; null when neither. */
function presentedCredential(source: ChatRequestSource): string | null {
  const bearer = /^Bearer\s+(.+)$/i.exec(source.header('authorization')?.trim() ?? '')?.[1]?.trim();
  if (bearer) return bearer;
  return source.header('x-api-key')?.trim() || null;
}

function unauthorized(message: string): AccessRefusal {
  const refused = refusal(401, message, 'authentication_error', 'invalid_token');
  refused.headers['WWW-Authenticate'] = 'Bearer';
  return refused;
}

function refusal(
  status: GatewayHttpError['status'],
  message: string,
  type: GatewayErrorType,
  code: string,
): AccessRefusal {
  return { error: new GatewayHttpError(status, message, type, code), headers: {} };
}
