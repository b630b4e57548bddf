import type { Route } from '../core/route.js';
import type { Logger } from '../logging/logger.js';
import type { CarrierDecision } from '../replay/replay-route-profile.js';
import type { PreparedRequest } from '../transports/shared/transport.js';

/**
 * One INFO line per request (SPEC §23.3): the route key, the reasoning carriers sent and, per
 * assistant message, each decision with its reason and size. Values are never logged.
 */
export function logRequest(
  logger: Logger,
  sessionId: string,
  route: Route,
  prepared: PreparedRequest,
  attempt: number,
  logged: readonly CarrierDecision[] = prepared.decisions,
  target?: () => string | undefined,
): void {
  // The line is built only when it is written (a gateway logging at warn skips it every request).
  if (!logger.isLevelEnabled('info')) return;
  const decisions = summariseDecisions(logged);
  // SPEC §24.10: native APIs name what they sent too; "none" only when no blob travels.
  const sent = [...prepared.carriersSent, ...(prepared.nativeCarriersSent ?? [])];
  const carriers = sent.length ? sent.join(',') : 'none';
  // The route key names the real host; where the bytes went, when elsewhere (runtime-request-target.ts).
  const sentTo = target?.();
  logger.info(
    {
      session: sessionId,
      api: route.api,
      routeKey: prepared.routeKey,
      ...(sentTo === undefined ? {} : { sentTo }),
      attempt,
      carriersSent: sent,
      decisions,
    },
    `request ${prepared.routeKey}${sentTo === undefined ? '' : ` → ${sentTo}`} attempt ${attempt}: reasoning carriers sent: ${carriers}`,
  );
}

/** `m3 reasoning_content kept (route reads it, 812 B)` style strings, one per decision. */
export function summariseDecisions(decisions: readonly CarrierDecision[]): string[] {
  return decisions.map((decision) => {
    const size = decision.bytes === undefined ? '' : `, ${decision.bytes} B`;
    return `m${decision.messageIndex} ${decision.field} ${decision.action} (${decision.reason}${size})`;
  });
}
