/**
 * Session ids: sortable by creation time and short enough to type. Format
 * `YYYYMMDD-HHMMSS-xxxxxx` (UTC time plus 6 lowercase base-36 random characters), e.g.
 * `20261129-192233-k3f9qa`.
 */
export function newSessionId(now: Date = new Date()): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  const date = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}`;
  const time = `${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
  return `${date}-${time}-${randomSuffix(6)}`;
}

/** True when `value` has the session id shape. */
export function isSessionId(value: string): boolean {
  return /^\d{8}-\d{6}-[0-9a-z]{6}$/.test(value);
}

/** A random lowercase base-36 string (crypto-quality randomness from the Web Crypto global). */
export function randomSuffix(length: number): string {
  const alphabet = '0123456789abcdefghijklmnopqrstuvwxyz';
  const bytes = new Uint8Array(length);
  globalThis.crypto.getRandomValues(bytes);
  let out = '';
  for (const byte of bytes) out += alphabet[byte % alphabet.length];
  return out;
}
