/**
 * Anthropic model policy (SPEC §9.1, WIRE.md §2.1): which Claude models keep prior-turn thinking
 * in context, which take `thinking: {type: "adaptive"}`, and which need the interleaved-thinking
 * beta. Claude model ids are parsed in replay-model-ids.ts (STYLE rule 2 (docs/architecture.md)).
 */
import { parseClaudeModel, type ClaudeModelVersion } from './replay-model-ids.js';

export { parseClaudeModel, type ClaudeModelParse, type ClaudeModelVersion } from './replay-model-ids.js';

/** Minimum version per family from which prior thinking is kept (SPEC §9.1). */
const PRESERVES_FROM: Readonly<Record<string, readonly [number, number]>> = {
  opus: [4, 5],
  sonnet: [4, 6],
  haiku: [5, 5],
};
/** Any other family keeps prior thinking from 5.0. */
const PRESERVES_FROM_OTHER: readonly [number, number] = [5, 0];

/** Minimum version per family that accepts `thinking: {type: "adaptive"}` (WIRE.md §2.1). */
const ADAPTIVE_FROM: Readonly<Record<string, readonly [number, number]>> = {
  opus: [4, 6],
  sonnet: [4, 6],
};
const ADAPTIVE_FROM_OTHER: readonly [number, number] = [5, 0];

function atLeast(version: ClaudeModelVersion, floor: readonly [number, number]): boolean {
  return version.major > floor[0] || (version.major === floor[0] && version.minor >= floor[1]);
}

/**
 * `native_anthropic_preserves_prior_thinking` (SPEC §9.1): true when the model keeps every prior
 * assistant turn's thinking in context (so it must be replayed), false when only the in-flight
 * tool loop matters. Unparsable Claude ids are assumed to be newer than this table; non-Claude
 * models and Claude 3 are false.
 */
export function nativeAnthropicPreservesPriorThinking(model: string): boolean {
  const parsed = parseClaudeModel(model);
  if (parsed.kind === 'unparsed-claude') return true;
  if (parsed.kind !== 'claude') return false;
  return atLeast(parsed.version, PRESERVES_FROM[parsed.version.family] ?? PRESERVES_FROM_OTHER);
}

/**
 * True when the model takes `thinking: {type: "adaptive"}` plus `output_config.effort`
 * (Opus 4.6+, Sonnet 4.6+, any family ≥ 5). Unparsable Claude ids are assumed new.
 */
export function supportsAdaptiveThinking(model: string): boolean {
  const parsed = parseClaudeModel(model);
  if (parsed.kind === 'unparsed-claude') return true;
  if (parsed.kind !== 'claude') return false;
  return atLeast(parsed.version, ADAPTIVE_FROM[parsed.version.family] ?? ADAPTIVE_FROM_OTHER);
}

/**
 * True when `thinking: {type: "enabled"}` on this model needs the
 * `anthropic-beta: interleaved-thinking-2025-05-14` header to think between tool calls: Claude 4.x
 * models without adaptive thinking (adaptive implies interleaving, WIRE.md §2.1).
 */
export function needsInterleavedThinkingBeta(model: string): boolean {
  const parsed = parseClaudeModel(model);
  return parsed.kind === 'claude' && parsed.version.major === 4 && !supportsAdaptiveThinking(model);
}

/** The interleaved-thinking beta value (WIRE.md §2.1). */
export const INTERLEAVED_THINKING_BETA = 'interleaved-thinking-2025-05-14';
