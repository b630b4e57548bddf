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

/**
 * Per-model reasoning settings (`reasoning_overrides` in config.yaml), keyed by model id. A
 * key matches the exact model id of a route, or the id with different letter case.
 */
export type ReasoningOverrides = Readonly<Record<string, Partial<ReasoningOptions>>>;

/**
 * The reasoning a request to `model` asks for: `base` with the model's override on top (each
 * key it sets wins). Resolved per request, so a route change (`/model`, resume, a fallback) gets
 * the new model's settings.
 */
export function reasoningForModel(
  base: ReasoningOptions,
  overrides: ReasoningOverrides | undefined,
  model: string,
): ReasoningOptions {
  if (overrides === undefined) return base;
  const lower = model.toLowerCase();
  const key =
    model in overrides ? model : Object.keys(overrides).find((candidate) => candidate.toLowerCase() === lower);
  const override = key === undefined ? undefined : overrides[key];
  if (override === undefined) return base;
  const resolved: ReasoningOptions = { enabled: override.enabled ?? base.enabled };
  const effort = 'effort' in override ? override.effort : base.effort;
  const budgetTokens = 'budgetTokens' in override ? override.budgetTokens : base.budgetTokens;
  if (effort !== undefined) resolved.effort = effort;
  if (budgetTokens !== undefined) resolved.budgetTokens = budgetTokens;
  return resolved;
}

/** `overrides` with every entry's effort replaced by `effort` (a command-line choice that wins); unchanged without one. */
export function pinnedEffort(overrides: ReasoningOverrides, effort: ReasoningEffort | undefined): ReasoningOverrides {
  if (effort === undefined) return overrides;
  return Object.fromEntries(Object.entries(overrides).map(([model, override]) => [model, { ...override, effort }]));
}
