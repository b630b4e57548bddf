import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/**
 * Gateway authentication (issue 10 item 6): bound to a loopback address no token is needed;
 * bound to anything else the gateway refuses to start without one and then requires
 * `Authorization: Bearer <token>`. The token is never logged.
 */

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
