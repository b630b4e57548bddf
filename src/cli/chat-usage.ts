import type { Usage } from '../core/usage.js';
import { modelPrice, usageCost } from '../providers/provider-models.js';

/** Token totals of one turn or of the whole interactive run. */
export interface UsageTotals {
  requests: number;
  input: number;
  output: number;
  reasoning: number;
  /** Cached input tokens; reported tells whether any response said (0 reported ≠ unknown). */
  cached: number;
  cachedReported: boolean;
  /** US dollars, when every priced request's model has a known price; undefined otherwise. */
  cost: number | undefined;
  costKnown: boolean;
}

/** Empty totals. */
export function emptyTotals(): UsageTotals {
  return {
    requests: 0,
    input: 0,
    output: 0,
    reasoning: 0,
    cached: 0,
    cachedReported: false,
    cost: 0,
    costKnown: true,
  };
}

/** Adds one response's usage (priced by the route's provider and model) to `totals`. */
export function addUsage(totals: UsageTotals, usage: Usage, provider: string, model: string): void {
  totals.requests += 1;
  totals.input += usage.inputTokens;
  totals.output += usage.outputTokens;
  totals.reasoning += usage.reasoningTokens ?? 0;
  if (usage.cacheReadTokens !== undefined) {
    totals.cached += usage.cacheReadTokens;
    totals.cachedReported = true;
  }
  const cost = usageCost(modelPrice(provider, model), {
    input: usage.inputTokens,
    output: usage.outputTokens,
    cachedInput: usage.cacheReadTokens ?? 0,
  });
  if (cost === undefined) totals.costKnown = false;
  else if (totals.cost !== undefined) totals.cost += cost;
}

/** Adds `from` into `into` (turn totals into the run's). */
export function mergeTotals(into: UsageTotals, from: UsageTotals): void {
  into.requests += from.requests;
  into.input += from.input;
  into.output += from.output;
  into.reasoning += from.reasoning;
  into.cached += from.cached;
  into.cachedReported ||= from.cachedReported;
  if (!from.costKnown) into.costKnown = false;
  else if (into.cost !== undefined && from.cost !== undefined) into.cost += from.cost;
}

const count = (value: number) => value.toLocaleString('en-US');

/**
 * The line shown after a turn: `in 1,234 · out 56 · reasoning 20 · cached 1,000 · 3.2 s · $0.0012`.
 * Cached tokens only when a response reported them, cost only when the model's price is known.
 */
export function usageLine(totals: UsageTotals, elapsedMs?: number): string {
  const parts = [`in ${count(totals.input)}`, `out ${count(totals.output)}`, `reasoning ${count(totals.reasoning)}`];
  if (totals.cachedReported) parts.push(`cached ${count(totals.cached)}`);
  if (elapsedMs !== undefined) parts.push(`${(elapsedMs / 1000).toFixed(1)} s`);
  if (totals.costKnown && totals.cost !== undefined && totals.requests > 0) parts.push(`$${totals.cost.toFixed(4)}`);
  return parts.join(' · ');
}
