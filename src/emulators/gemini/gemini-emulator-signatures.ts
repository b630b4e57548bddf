import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Emulator thought signatures. A real Gemini signature is an opaque, issuer-encrypted copy of the
 * model's thought context; the emulator's is `base64(mac ‖ sealed reasoning)`, where `mac` is
 * an HMAC keyed by the issuer (AI Studio vs Vertex) and model family over the part it is bound
 * to (a function call's name + arguments, or "text") and the reasoning. So the emulator can tell
 * byte-identical, altered, moved and foreign signatures apart, and recover the turn's reasoning
 * from a verified signature for the continuity probe, statelessly.
 */

/** Issuer of a request, from its path shape. */
export type EmulatorIssuer = 'ai-studio' | 'vertex';

const MAC_BYTES = 16;

/** The model family a signature is valid for (`gemini-3.0`, `gemini-2.5`; exact id for aliases). */
export function emulatorModelFamily(model: string): string {
  const match = /^(gemini|gemma)-(\d+)(?:\.(\d+))?/.exec(model.toLowerCase());
  return match ? `${match[1]}-${match[2]}.${match[3] ?? '0'}` : model.toLowerCase();
}

/** The major generation of a model id (3 for `gemini-3-pro-preview`), null when absent. */
export function emulatorModelGeneration(model: string): number | null {
  const match = /^(?:gemini|gemma)-(\d+)/.exec(model.toLowerCase());
  return match ? Number(match[1]) : null;
}

/** The binding of a function-call part: name plus canonical arguments. */
export function functionCallBinding(name: string, args: unknown): string {
  return `call\0${name}\0${canonicalJson(args ?? {})}`;
}

/** The binding of a text-part signature (it may move from the trailing empty part to the last text part). */
export const TEXT_BINDING = 'text';

/** Signs `reasoning` for a part of a response from `issuer` / `model`. */
export function signPart(issuer: EmulatorIssuer, model: string, binding: string, reasoning: string): string {
  const reasoningBytes = Buffer.from(reasoning, 'utf8');
  return Buffer.concat([mac(issuer, model, binding, reasoningBytes), reasoningBytes]).toString('base64');
}

/** Verifies a signature; returns the sealed reasoning it carries, or null when altered, moved or foreign. */
export function verifyPart(issuer: EmulatorIssuer, model: string, binding: string, signature: string): string | null {
  const bytes = Buffer.from(signature, 'base64');
  // Reject anything that is not canonical base64 of at least a MAC: a single changed character fails here or below.
  if (bytes.length < MAC_BYTES || bytes.toString('base64') !== signature) return null;
  const expected = mac(issuer, model, binding, bytes.subarray(MAC_BYTES));
  if (!timingSafeEqual(expected, bytes.subarray(0, MAC_BYTES))) return null;
  return bytes.subarray(MAC_BYTES).toString('utf8');
}

function mac(issuer: EmulatorIssuer, model: string, binding: string, reasoning: Buffer): Buffer {
  const key = `hermes-gemini-emulator/${issuer}/${emulatorModelFamily(model)}`;
  return createHmac('sha256', key).update(binding).update('\0').update(reasoning).digest().subarray(0, MAC_BYTES);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
