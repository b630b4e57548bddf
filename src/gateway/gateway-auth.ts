import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/**
 * Gateway authentication: bound to a loopback address no token is needed;
 * bound to anything else the gateway refuses to start without one and then requires
 * `Authorization: Bearer <token>`. The token is never logged.
 */

/** Default bind address: loopback only. */
export const DEFAULT_GATEWAY_HOST = '127.0.0.1';
/** Default port. */
export const DEFAULT_GATEWAY_PORT = 8642;

/** True for addresses only this machine can reach: 127.0.0.0/8, ::1, `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (bare === '::1' || bare === '0:0:0:0:0:0:0:1') return true;
  // An IPv4-mapped loopback (`::ffff:127.0.0.1`) is loopback too.
  return /^::ffff:127\./.test(bare);
}

/**
 * Returns the message explaining why this bind is refused, or null when it is allowed:
 * a non-loopback host needs a token.
 */
export function bindRefusal(host: string, token: string | undefined): string | null {
  if (isLoopbackHost(host) || (token !== undefined && token !== '')) return null;
  return (
    `refusing to bind ${host} without a token: anyone who can reach that address could run tools in the ` +
    'workspace. Pass --token T (or set HERMES_GATEWAY_TOKEN), or bind 127.0.0.1'
  );
}

/**
 * Compares a presented `Authorization` header with the expected token in constant time: both
 * sides are hashed first, so neither the length nor a prefix of the token leaks through timing.
 */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(authorization?.trim() ?? '');
  const presented = match?.[1] ?? '';
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(token)) && presented !== '';
}

/**
 * True when the request presents the token, as `Authorization: Bearer <token>` (OpenAI clients)
 * or as `x-api-key: <token>` (the Anthropic SDK and Claude Code send `ANTHROPIC_API_KEY` there).
 */
export function presentedTokenMatches(
  authorization: string | null | undefined,
  apiKey: string | null | undefined,
  token: string,
): boolean {
  if (bearerMatches(authorization ?? undefined, token)) return true;
  return apiKey !== null && apiKey !== undefined && bearerMatches(`Bearer ${apiKey.trim()}`, token);
}

/**
 * Refuses requests a web page in the user's browser could forge against the gateway. Returns the
 * refusal message, or null when the request may proceed.
 *
 * - Cross-site request forgery: a page on any site can POST a "simple" request (`text/plain`, no
 *   CORS preflight) to `http://127.0.0.1:8642/v1/chat/completions`, and the gateway would run a
 *   whole agent turn (tools included, and `run_shell` under `--yolo`) even though the page cannot
 *   read the answer. Browsers send `Origin` on such requests, so a state-changing request whose
 *   `Origin` is not the gateway itself is refused. Clients that are not browsers (the `openai` SDK,
 *   curl) send no `Origin` and are unaffected.
 * - DNS rebinding: a hostile name that resolves to 127.0.0.1 makes the page same-origin with the
 *   gateway, so the `Origin` check passes and responses become readable. Without a token the
 *   gateway only serves requests addressed to a loopback name (`Host: 127.0.0.1:…`, `localhost`).
 */
export function browserRequestRefusal(request: {
  method: string;
  url: string;
  origin: string | undefined;
  tokenRequired: boolean;
}): string | null {
  const target = new URL(request.url);
  if (!request.tokenRequired && !isLoopbackHost(target.hostname)) {
    return `requests must be addressed to a loopback host (127.0.0.1 or localhost), not "${target.host}"; bind another address with --token to serve other names`;
  }
  const safeMethod = request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS';
  if (!safeMethod && request.origin !== undefined && request.origin !== target.origin) {
    return `cross-origin request from ${request.origin} refused: web pages other than the gateway's own inspector may not drive it`;
  }
  return null;
}
