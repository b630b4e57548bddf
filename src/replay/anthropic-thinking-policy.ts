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

/**
 * First version, per family, whose thinking blocks Anthropic checks against their prefix
 * (preserved thinking, SPEC §26.4): Claude Fable 5.1, Opus 5.5, Sonnet 5.5 and Haiku 5.5 run the
 * check; Claude Mythos 5.1 records the binding but does not run it, so its line starts at 5.2.
 */
const PREFIX_CHECKED_FROM: Readonly<Record<string, readonly [number, number]>> = {
  fable: [5, 1],
  mythos: [5, 2],
  opus: [5, 5],
  sonnet: [5, 5],
  haiku: [5, 5],
};
/** A family the table does not name checks from 5.5 (the version every named family has reached). */
const PREFIX_CHECKED_FROM_OTHER: readonly [number, number] = [5, 5];

/**
 * First version, per family, that Anthropic's docs list as accepting
 * `thinking.block_binding.prefix_mismatch_behavior` (beta `thinking-binding-controls-2026-08-01`):
 * Fable and Mythos 5.1, Opus, Sonnet and Haiku 5.5, and later versions of those families.
 */
const BINDING_CONTROLS_FROM: Readonly<Record<string, readonly [number, number]>> = {
  fable: [5, 1],
  mythos: [5, 1],
  opus: [5, 5],
  sonnet: [5, 5],
  haiku: [5, 5],
};

/**
 * True when Anthropic checks the model's replayed thinking blocks against their prefix, so Hermes
 * leaves out any block whose captured prefix no longer holds (SPEC §26.4). Unparsable Claude ids
 * are assumed newer than this table ("later models will enforce it", the preserved-thinking docs).
 */
export function checksThinkingPrefix(model: string): boolean {
  const parsed = parseClaudeModel(model);
  if (parsed.kind === 'unparsed-claude') return true;
  if (parsed.kind !== 'claude') return false;
  return atLeast(parsed.version, PREFIX_CHECKED_FROM[parsed.version.family] ?? PREFIX_CHECKED_FROM_OTHER);
}

/**
 * True when Anthropic's docs say the model takes `thinking.block_binding` (SPEC §26.4). Only
 * documented families: an id Hermes cannot place gets no beta field (a refusal would be learned,
 * but a request that needs no learning is better).
 */
export function acceptsBindingControls(model: string): boolean {
  const parsed = parseClaudeModel(model);
  if (parsed.kind !== 'claude') return false;
  const floor = BINDING_CONTROLS_FROM[parsed.version.family];
  return floor !== undefined && atLeast(parsed.version, floor);
}

/** The beta that lets a request carry `thinking.block_binding` and adds `input_transformations` to answers. */
export const THINKING_BINDING_BETA = 'thinking-binding-controls-2026-08-01';
