import type { EmulatorIssuer } from './gemini-emulator-signatures.js';

/**
 * Gemini thinking texts users reported in 2026 (WIRE §8) that the emulator words as each issuer
 * does: Vertex AI refuses a signature it cannot verify as "Thought signature is not valid" (the
 * Gemini API says "Corrupted thought signature."), and refuses `includeThoughts` on a request whose
 * thinking is off (`thinkingBudget: 0`).
 */

/** Vertex AI's words for a signature it cannot verify (decolua/9router#301). */
export const VERTEX_INVALID_SIGNATURE_TEXT = 'Unable to submit request because Thought signature is not valid.';

/** Vertex AI's words for `include_thoughts` with thinking off (su-kaka/gcli2api#111). */
export const INCLUDE_THOUGHTS_WITHOUT_THINKING_TEXT =
  'Unable to submit request because Thinking_config.include_thoughts is only enabled when thinking is enabled.';

/** The refusal of a signature that does not verify, as `issuer` words it; `studioText` is the Gemini API's. */
export function invalidSignatureText(issuer: EmulatorIssuer, studioText: string): string {
  return issuer === 'vertex' ? VERTEX_INVALID_SIGNATURE_TEXT : studioText;
}

/** The refusal of `includeThoughts: true` with `thinkingBudget: 0`, or undefined when the config is fine. */
export function includeThoughtsViolation(body: Record<string, unknown>): string | undefined {
  const generation = (body['generationConfig'] ?? body['generation_config']) as Record<string, unknown> | undefined;
  const thinking = (generation?.['thinkingConfig'] ?? generation?.['thinking_config']) as
    Record<string, unknown> | undefined;
  const include = thinking?.['includeThoughts'] ?? thinking?.['include_thoughts'];
  const budget = thinking?.['thinkingBudget'] ?? thinking?.['thinking_budget'];
  return include === true && budget === 0 ? INCLUDE_THOUGHTS_WITHOUT_THINKING_TEXT : undefined;
}
