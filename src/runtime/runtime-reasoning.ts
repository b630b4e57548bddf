import {
  type ReasoningEffort,
  type ReasoningOptions,
  type ReasoningOverrides,
  reasoningForModel,
} from '../core/reasoning-options.js';
import { nearestAcceptedEffort } from '../replay/replay-recovery.js';

/**
 * The reasoning one request is sent with: the turn's settings, the route model's
 * `reasoning_overrides` entry on top, then the effort moved to the nearest level the route has
 * not refused (runtime-recovery.ts `effort-value`; no level left: no effort). Computed for
 * every request from the request's own route, so `/model`, a resume on another route or a
 * fallback each get their model's settings and what was learned about that route.
 */
export function requestReasoning(
  base: ReasoningOptions,
  overrides: ReasoningOverrides | undefined,
  model: string,
  refusedEfforts: readonly ReasoningEffort[],
): ReasoningOptions {
  const chosen = reasoningForModel(base, overrides, model);
  if (chosen.effort === undefined || !refusedEfforts.includes(chosen.effort)) return chosen;
  const { effort: _refused, ...rest } = chosen;
  const effort = nearestAcceptedEffort(chosen.effort, refusedEfforts);
  return effort === undefined ? rest : { ...rest, effort };
}
