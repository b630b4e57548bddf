/**
 * Reasoning effort levels, lowest first. Each wire API and provider receives its own word or
 * token budget for a level (`src/providers/provider-effort.ts`, WIRE.md §1); `none` asks for
 * no reasoning where the API has an explicit off switch.
 */
export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;

/** One reasoning effort level (see {@link REASONING_EFFORTS}). */
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

/** True when `value` is one of {@link REASONING_EFFORTS}. */
export function isReasoningEffort(value: unknown): value is ReasoningEffort {
  return typeof value === 'string' && (REASONING_EFFORTS as readonly string[]).includes(value);
}

/** How reasoning is requested for a turn. */
export interface ReasoningOptions {
  /** Ask the provider for reasoning (and send keep-thinking flags, SPEC §8). */
  enabled: boolean;
  effort?: ReasoningEffort | undefined;
  /** Token budget for providers that take one (Anthropic `budget_tokens`, Gemini `thinkingBudget`). */
  budgetTokens?: number | undefined;
}
