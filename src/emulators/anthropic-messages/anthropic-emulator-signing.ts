import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Verifiable thinking carriers for the Anthropic emulator. Real signatures bind a thinking block
 * to its text and to the conversation (the 2026 error text names the `system` prompt, WIRE.md
 * §2.6b), so the emulator's signature is an HMAC over the thinking text plus "\0" plus the system
 * prompt. Stateless: any later request can be checked, even after a restart.
 */

/** User text containing this string makes the emulator answer with a `redacted_thinking` block (Anthropic's documented trigger prefix). */
export const REDACTED_THINKING_TRIGGER = 'ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING';

/** Default HMAC secret (emulators are for offline trials, not security). */
export const DEFAULT_ANTHROPIC_EMULATOR_SECRET = 'hermes-anthropic-emulator-secret';

function mac(secret: string, ...parts: string[]): Buffer {
  const hmac = createHmac('sha256', secret);
  parts.forEach((part, index) => {
    if (index > 0) hmac.update('\0');
    hmac.update(part);
  });
  return hmac.digest();
}

/**
 * Signature of a thinking block: base64 of the 32-byte HMAC over `thinking + "\0" + system`
 * followed by 64 derived bytes, so it has a realistic length (128 characters).
 */
export function signThinking(secret: string, thinking: string, system: string): string {
  const digest = mac(secret, 'thinking', `${thinking}\0${system}`);
  const filler = Buffer.concat([
    mac(secret, 'filler-1', digest.toString('hex')),
    mac(secret, 'filler-2', digest.toString('hex')),
  ]);
  return Buffer.concat([digest, filler]).toString('base64');
}

/** True when `signature` is exactly {@link signThinking} of the text under `system`. */
export function verifyThinkingSignature(secret: string, thinking: string, system: string, signature: string): boolean {
  const expected = Buffer.from(signThinking(secret, thinking, system));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

function keystream(secret: string, system: string, length: number): Buffer {
  const blocks: Buffer[] = [];
  for (let counter = 0; blocks.length * 32 < length; counter += 1)
    blocks.push(mac(secret, 'keystream', system, String(counter)));
  return Buffer.concat(blocks).subarray(0, length);
}

/** `redacted_thinking.data`: the hidden reasoning XOR a keystream, then an HMAC tag; base64. */
export function sealRedactedThinking(secret: string, hidden: string, system: string): string {
  const plain = Buffer.from(hidden, 'utf8');
  const stream = keystream(secret, system, plain.length);
  const cipher = Buffer.from(plain.map((byte, index) => byte ^ (stream[index] ?? 0)));
  return Buffer.concat([cipher, mac(secret, 'redacted', hidden, system)]).toString('base64');
}

/** Opens {@link sealRedactedThinking} output; `undefined` when altered, truncated or foreign. */
export function openRedactedThinking(secret: string, data: string, system: string): string | undefined {
  const bytes = Buffer.from(data, 'base64');
  // Base64 decoding skips invalid characters; re-encoding proves the value came back byte for byte.
  if (bytes.toString('base64') !== data || bytes.length < 32) return undefined;
  const cipher = bytes.subarray(0, bytes.length - 32);
  const stream = keystream(secret, system, cipher.length);
  const hidden = Buffer.from(cipher.map((byte, index) => byte ^ (stream[index] ?? 0))).toString('utf8');
  const expected = mac(secret, 'redacted', hidden, system);
  const tag = bytes.subarray(bytes.length - 32);
  return timingSafeEqual(expected, tag) ? hidden : undefined;
}
