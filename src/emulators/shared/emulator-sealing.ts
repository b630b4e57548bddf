import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Verifiable opaque values for emulators. Real providers sign or encrypt reasoning (Anthropic
 * thinking signatures, OpenAI encrypted reasoning, Gemini thought signatures, Copilot opaque
 * blobs) and reject anything not returned byte for byte. Emulators reproduce that without state:
 * a value is an HMAC over its content, so any later request can be checked, even after the
 * emulator restarted. `purpose` separates value kinds so one kind cannot be passed off as another.
 */

const DEFAULT_SECRET = 'hermes-emulator-signing-secret';

/** Base64 HMAC-SHA256 of `text`, bound to `purpose`. */
export function signText(purpose: string, text: string, secret: string = DEFAULT_SECRET): string {
  return createHmac('sha256', secret).update(purpose).update('\0').update(text).digest('base64');
}

/** True when `signature` is exactly {@link signText} of `text` (constant-time comparison). */
export function verifyTextSignature(
  purpose: string,
  text: string,
  signature: string,
  secret: string = DEFAULT_SECRET,
): boolean {
  const expected = Buffer.from(signText(purpose, text, secret));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** Seals a JSON payload: base64 of `{"p":payload,"m":mac}` — opaque-looking but checkable. */
export function sealPayload(purpose: string, payload: unknown, secret: string = DEFAULT_SECRET): string {
  const body = JSON.stringify(payload);
  const sealed = JSON.stringify({ p: body, m: signText(purpose, body, secret) });
  return Buffer.from(sealed, 'utf8').toString('base64');
}

/** Opens a value made by {@link sealPayload}; `undefined` when it was altered, truncated or foreign. */
export function openPayload(purpose: string, token: string, secret: string = DEFAULT_SECRET): unknown {
  try {
    const decoded = Buffer.from(token, 'base64').toString('utf8');
    // Base64 decoding is lenient (it skips invalid characters); re-encoding proves byte identity.
    if (Buffer.from(decoded, 'utf8').toString('base64') !== token) return undefined;
    const sealed = JSON.parse(decoded) as { p?: unknown; m?: unknown };
    if (typeof sealed.p !== 'string' || typeof sealed.m !== 'string') return undefined;
    if (!verifyTextSignature(purpose, sealed.p, sealed.m, secret)) return undefined;
    return JSON.parse(sealed.p) as unknown;
  } catch {
    return undefined;
  }
}
