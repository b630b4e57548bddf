/**
 * Anthropic model policy (SPEC §9.1, WIRE.md §2.1): which Claude models keep prior-turn thinking
 * in context, which take `thinking: {type: "adaptive"}`, and which need the interleaved-thinking
 * beta. This is the only place in the codebase that reads Claude model ids (STYLE rule 2 (docs/architecture.md)).
 */

/** A parsed Claude model id: family plus version. */
export interface ClaudeModelVersion {
  family: string;
  major: number;
  minor: number;
}

/** Result of parsing a model id: not Claude at all, a Claude id we could not parse, or a version. */
export type ClaudeModelParse =
  | { kind: 'not-claude' }
  | { kind: 'legacy-claude-3' }
  | { kind: 'unparsed-claude' }
  | { kind: 'claude'; version: ClaudeModelVersion };

const FAMILIES = 'opus|sonnet|haiku|fable|mythos';
// `claude-sonnet-4-20250514` is 4.0: the minor is 1–2 digits and must not be followed by another
// digit, so an 8-digit date never reads as a minor.
const MODERN_PATTERN = new RegExp(`claude-(${FAMILIES})-(\\d{1,2})(?:[-.](\\d{1,2}))?(?!\\d)`);

/**
 * Parses a model id. Provider prefixes and suffixes are tolerated: Bedrock
 * `us.anthropic.claude-opus-4-8-v1:0`, Vertex `claude-opus-4-8@20251001`, relay `anthropic/claude-…`.
 */
export function parseClaudeModel(model: string): ClaudeModelParse {
  const lowered = model.trim().toLowerCase();
  const start = lowered.indexOf('claude');
  if (start < 0) return { kind: 'not-claude' };
  const id = lowered.slice(start);
  if (id.startsWith('claude-3') || id.startsWith('claude-2') || id.startsWith('claude-instant')) {
    return { kind: 'legacy-claude-3' };
  }
  const match = MODERN_PATTERN.exec(id);
  if (!match) return { kind: 'unparsed-claude' };
  return {
    kind: 'claude',
    version: { family: match[1] ?? '', major: Number(match[2]), minor: match[3] === undefined ? 0 : Number(match[3]) },
  };
}

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
