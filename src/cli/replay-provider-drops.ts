import type { RequestRecord } from '../storage/session-store.js';

/** Reason prefixes of the decisions a provider's `input_transformations` became (runtime-thinking-binding.ts). */
const PROVIDER_REASONS = ['dropped by the provider', 'let through by the provider'];

/**
 * The reasoning providers dropped from a session's recorded requests (`input_transformations`,
 * SPEC §26.4), for `hermes replay preview --session ID --explain`: the table above is what Hermes
 * would send now; these are what the provider removed from what was sent. One line per entry,
 * with the request it was reported on; empty when no provider dropped anything.
 */
export function formatProviderDrops(records: readonly RequestRecord[]): string {
  const lines: string[] = [];
  let dropped = 0;
  records.forEach((record, position) => {
    for (const decision of record.decisions) {
      const reason = typeof decision['reason'] === 'string' ? decision['reason'] : '';
      if (!PROVIDER_REASONS.some((prefix) => reason.startsWith(prefix))) continue;
      if (decision['action'] === 'dropped') dropped += 1;
      const index = typeof decision['messageIndex'] === 'number' ? decision['messageIndex'] : -1;
      const where = index < 0 ? 'a message' : `message ${index}`;
      lines.push(
        `  request ${position + 1} (${new Date(record.at).toISOString()}): ${where} ${String(decision['field'])} ${reason}`,
      );
    }
  });
  if (lines.length === 0) return '';
  return [`reasoning the provider dropped (input_transformations): ${dropped} thinking block(s)`, ...lines].join('\n');
}
