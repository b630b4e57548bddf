import type { JsonObject } from '../core/json.js';
import type { RouteProfile } from '../replay/replay-route-profile.js';
import type { CompactionSettings } from './compaction-plan.js';
import { nativeCompactionOffRoutes } from './runtime-route-memory.js';

/**
 * SPEC §24.7: the `compact_threshold` the runtime asks an eligible Responses route for. The
 * local compactor (SPEC §16) stays armed as a fallback; the server compacts a little earlier.
 */

/** How far below the local trigger the server compacts (SPEC §24.7). */
export const NATIVE_COMPACTION_MARGIN = 8192;

/**
 * N for `context_management` (SPEC §24.7): the local trigger (threshold × context window, SPEC
 * §16) minus {@link NATIVE_COMPACTION_MARGIN}, never below 1; undefined when there is no local
 * trigger (the encoder then sends its 200,000 default).
 */
export function nativeCompactThreshold(settings: CompactionSettings | undefined): number | undefined {
  if (!settings?.contextWindow) return undefined;
  const trigger = Math.floor(settings.contextWindow * settings.threshold);
  return Math.max(1, trigger - NATIVE_COMPACTION_MARGIN);
}

/**
 * The `compactThreshold` of a transport request (src/transports/shared/transport.ts): null when a
 * 4xx turned native compaction off for the route in this session, else
 * {@link nativeCompactThreshold}. Routes that are not eligible get undefined (ignored).
 */
export function requestCompactThreshold(
  profile: RouteProfile,
  settings: CompactionSettings | undefined,
  modelConfig: JsonObject,
): number | null | undefined {
  if (!profile.responses.nativeCompaction) return undefined;
  if (nativeCompactionOffRoutes(modelConfig).includes(profile.routeKey)) return null;
  return nativeCompactThreshold(settings);
}
