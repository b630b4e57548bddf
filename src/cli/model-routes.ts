import type { HermesConfig } from '../config/config-load.js';
import type { ProviderInfo } from '../providers/provider-registry.js';
import { routeReasoningReads } from '../replay/replay-route-reads.js';
import { routeProfileFor } from '../transports/transport-route-profile.js';

/** One known route of `hermes model --json`: what the route table sends it back (SPEC §26.5). */
export interface KnownRoute {
  model: string;
  base_url: string | null;
  /** The route gets some earlier reasoning back. */
  reads_reasoning: boolean;
  /** Which earlier turns: `all`, `loop` (the tool loop in flight only) or `none`. */
  reasoning_scope: string;
  /** The wire fields that carry it. */
  carriers: string[];
  /** The must-echo family (SPEC §4), or null. */
  must_echo: string | null;
}

/**
 * What the provider's route with `model` (at its default base URL) gets back, under the user's
 * route rows and echo opt-in: the same answer the continuity probe judges `not-read` by.
 */
export function knownRoute(info: ProviderInfo, model: string, config: HermesConfig): KnownRoute {
  const route = { api: info.api, provider: info.id, model, baseUrl: info.baseUrl };
  const reads = routeReasoningReads(
    routeProfileFor(route, { overrides: config.routes, echoOptIn: config.reasoningEcho }),
  );
  return {
    model,
    base_url: info.baseUrl ?? null,
    reads_reasoning: reads.scope !== 'none',
    reasoning_scope: reads.scope,
    carriers: reads.carriers,
    must_echo: reads.mustEcho,
  };
}
