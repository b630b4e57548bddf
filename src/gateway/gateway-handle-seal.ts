import { createCipheriv, createDecipheriv } from 'node:crypto';
import { uniqueBytes } from './gateway-random-ids.js';

/**
 * The sealed reasoning handle (SPEC §25.6, docs/gateway.md "Sealed reasoning handles"): an
 * AES-256-GCM envelope (node:crypto) around the carriers of one assistant message, returned to a
 * stateless client in the one field it echoes byte for byte (a thinking block's `signature`, a
 * reasoning item's `encrypted_content`, a Gemini part's `thoughtSignature`).
 *
 *     hermes.1.<key id>.<base64url(nonce ‖ ciphertext ‖ tag)>
 *
 * - `1` is the envelope version; the key id names the store key that sealed it (`handle_keys`),
 *   so any gateway sharing the store opens it and a rotated key still opens old handles.
 * - The additional authenticated data binds the envelope to its purpose (the field it was
 *   returned in) and to its key id: a handle moved from `signature` to `encrypted_content`, or
 *   relabelled with another key id, does not open.
 * - A 96-bit random nonce per seal (NIST SP 800-38D §8.2.2), drawn from the CSPRNG pool of
 *   `gateway-random-ids.ts` (unique, not secret: the handle carries it); the 128-bit tag
 *   authenticates everything, so a truncated or altered handle does not open either.
 */

/** The field a handle is returned in: the purpose its envelope is bound to. */
export type HandlePurpose =
  'messages.thinking.signature' | 'responses.reasoning.encrypted_content' | 'gemini.part.thoughtSignature';

/** What every handle starts with (version 1). */
export const HANDLE_PREFIX = 'hermes.1.';

/** A key that seals or opens handles. */
export interface HandleKey {
  id: string;
  /** 32 bytes. */
  key: Buffer;
}

/** Why a value did not open as a handle (each becomes a dropped decision, never an error). */
export type HandleFailure = 'empty' | 'not-a-handle' | 'malformed' | 'unknown-key' | 'tampered';

/** A parsed, not yet authenticated handle. */
export interface ParsedHandle {
  keyId: string;
  sealed: Buffer;
}

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Seals `plaintext` (UTF-8) for `purpose` with `key`. */
export function sealHandle(plaintext: string, purpose: HandlePurpose, key: HandleKey): string {
  const nonce = uniqueBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(additionalData(purpose, key.id));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const sealed = Buffer.concat([nonce, body, cipher.getAuthTag()]);
  return `${HANDLE_PREFIX}${key.id}.${sealed.toString('base64url')}`;
}

/** True when `value` is shaped like a gateway handle (it may still fail to open). */
export function looksLikeHandle(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(HANDLE_PREFIX);
}

/**
 * Splits a handle into its key id and sealed bytes, or says why it is not one: absent, `null`
 * and `""` are `empty`; a value without the prefix is `not-a-handle` (a real provider
 * signature, for one); a prefix with a broken rest is `malformed`.
 */
export function parseHandle(value: unknown): ParsedHandle | HandleFailure {
  if (value === undefined || value === null || value === '') return 'empty';
  if (!looksLikeHandle(value)) return 'not-a-handle';
  const rest = value.slice(HANDLE_PREFIX.length);
  const dot = rest.indexOf('.');
  const keyId = dot < 0 ? '' : rest.slice(0, dot);
  const encoded = dot < 0 ? '' : rest.slice(dot + 1);
  if (!KEY_ID.test(keyId) || !BASE64URL.test(encoded)) return 'malformed';
  const sealed = Buffer.from(encoded, 'base64url');
  if (sealed.length < NONCE_BYTES + TAG_BYTES) return 'malformed';
  return { keyId, sealed };
}

/** Opens a parsed handle with its key; `tampered` when it does not authenticate. */
export function openParsedHandle(
  parsed: ParsedHandle,
  purpose: HandlePurpose,
  key: Buffer,
): { plaintext: string } | 'tampered' {
  const { sealed } = parsed;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, NONCE_BYTES), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(additionalData(purpose, parsed.keyId));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    const body = sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES);
    return { plaintext: Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8') };
  } catch {
    return 'tampered';
  }
}

/** A line a person reads for each failure (decisions, `--explain`, the inspector). */
export function describeHandleFailure(failure: HandleFailure): string {
  switch (failure) {
    case 'empty':
      return 'empty or null';
    case 'not-a-handle':
      return 'not a gateway handle';
    case 'malformed':
      return 'malformed (truncated, or not base64url)';
    case 'unknown-key':
      return 'sealed with a key this store does not hold (another gateway, or a retired key)';
    case 'tampered':
      return 'does not authenticate (altered, truncated, or moved from another field)';
  }
}

function additionalData(purpose: HandlePurpose, keyId: string): Buffer {
  return Buffer.from(`hermes-handle/1/${purpose}/${keyId}`, 'utf8');
}
