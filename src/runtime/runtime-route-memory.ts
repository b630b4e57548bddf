import type { JsonObject } from '../core/json.js';
import { readRejectedThinking } from '../replay/anthropic-signature-memory.js';
import type { Carrier, RouteLearned, RouteProfile } from '../replay/replay-route-profile.js';
import type { SessionStore } from '../storage/session-store.js';
import { encryptedReplayOffRoutes } from './runtime-recovery.js';
import { loadRejectedCarriers } from './runtime-verdicts.js';

/**
 * What a session learned about a route, read from its `model_config` (verdicts, rejected
 * signature fingerprints, the Responses kill switch) and the store-wide verdict table
 * (SPEC §9.4, §12, §13.3, §23.1).
 */
export async function loadRouteLearned(
  store: SessionStore,
  modelConfig: JsonObject,
  profile: RouteProfile,
): Promise<RouteLearned> {
  return learnedFrom(modelConfig, await loadRejectedCarriers(store, modelConfig, profile), profile);
}

/** {@link loadRouteLearned} for verdicts already loaded. */
export function learnedFrom(
  modelConfig: JsonObject,
  rejectedCarriers: readonly Carrier[],
  profile: RouteProfile,
): RouteLearned {
  return {
    rejectedCarriers,
    rejectedThinkingFingerprints: readRejectedThinking(modelConfig),
    replayEncryptedReasoning: !encryptedReplayOffRoutes(modelConfig).includes(profile.routeKey),
  };
}
