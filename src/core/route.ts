import type { WireApi } from './origin.js';

/**
 * The route a request is sent through (SPEC §1): wire API, provider id, model id and base URL.
 * Replay decisions are a pure function of this plus learned verdicts.
 */
export interface Route {
  api: WireApi;
  /** Provider id as configured (matching lower-cases it where SPEC says so). */
  provider: string;
  /** Exact model id. */
  model: string;
  /** Base URL, e.g. `https://openrouter.ai/api/v1`. Undefined means the provider default. */
  baseUrl?: string | undefined;
}
