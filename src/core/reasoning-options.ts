/** Reasoning effort levels; transports map them to each provider's vocabulary (WIRE.md §1). */
export type ReasoningEffort = 'minimal' | 'low' | 'medium' | 'high' | 'max';

/** How reasoning is requested for a turn. */
export interface ReasoningOptions {
  /** Ask the provider for reasoning (and send keep-thinking flags, SPEC §8). */
  enabled: boolean;
  effort?: ReasoningEffort | undefined;
  /** Token budget for providers that take one (Anthropic `budget_tokens`, Gemini `thinkingBudget`). */
  budgetTokens?: number | undefined;
}
