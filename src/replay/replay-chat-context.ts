import type { RouteReads } from './replay-carrier-shaping.js';
import type { IssuerRoute } from './replay-origin-scope.js';
import { chatReplayDecision, type ReplayRouteDecision } from './replay-policy.js';
import type { RouteLearned, RouteProfile } from './replay-route-profile.js';
import type { Carrier } from './replay-types.js';

/** Everything the per-message chat-completions conversion needs, computed once per request. */
export interface ChatReplayContext {
  /** The route's resolved profile (SPEC §4–§8). */
  profile: RouteProfile;
  /** SPEC §6.1 with the learned verdicts applied. */
  decision: ReplayRouteDecision;
  /** Carriers the route gets after verdicts. */
  carriers: Carrier[];
  /** Learned verdicts for this route key (SPEC §13). */
  rejected: readonly Carrier[];
  /** The route side of the origin comparison (SPEC §23.2). */
  issuer: IssuerRoute;
  /** Record fields the route reads (SPEC §7.4). */
  reads: RouteReads;
  /** The model consumes per-call Gemini `extra_content` signatures (SPEC §7.6). */
  consumesThoughtSignature: boolean;
  /** The provider profile's own native record type (SPEC §7.6). */
  profileNativeReasoningDetailsType: string | undefined;
  /** Fingerprints of `reasoning_details` entries a relay rejected (SPEC §24.8). */
  rejectedFingerprints: ReadonlySet<string>;
}

/** Builds the per-request context from the route profile and what was learned about the route. */
export function chatReplayContext(
  profile: RouteProfile,
  learned: Pick<RouteLearned, 'rejectedCarriers'> & Partial<Pick<RouteLearned, 'rejectedThinkingFingerprints'>>,
): ChatReplayContext {
  const decision = chatReplayDecision(profile, learned.rejectedCarriers);
  return {
    profile,
    decision,
    carriers: decision.carriers ?? [],
    rejected: learned.rejectedCarriers,
    issuer: {
      api: 'chat_completions',
      provider: profile.key.provider,
      host: profile.key.host,
      model: profile.route.model,
    },
    reads: profile.chat.recordReads,
    consumesThoughtSignature: profile.chat.consumesThoughtSignature,
    profileNativeReasoningDetailsType: profile.chat.nativeReasoningDetailsType,
    rejectedFingerprints: new Set(learned.rejectedThinkingFingerprints ?? []),
  };
}
