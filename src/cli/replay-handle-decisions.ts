import type { RequestRecord } from '../storage/session-store.js';

/**
 * The gateway's handle decisions on a session's recorded requests (SPEC §25.6), for
 * `hermes replay preview --session ID --explain`. A front-door turn's request is built from the
 * client's history, whose handles the gateway opened or dropped; the stored session keeps the
 * answers whole, so the table above (built from stored history) cannot show those drops. Each
 * distinct drop is listed once, with the first request that had it; message numbers count the
 * messages of that request.
 */
export function formatHandleDecisions(records: readonly RequestRecord[]): string {
  const seen = new Set<string>();
  const drops: string[] = [];
  let opened = 0;
  let lastWithHandles: number | null = null;
  records.forEach((record, position) => {
    for (const decision of record.decisions) {
      const field = typeof decision['field'] === 'string' ? decision['field'] : '';
      if (!field.startsWith('handle ')) continue;
      lastWithHandles = position;
      if (decision['action'] !== 'dropped') continue;
      const key = `${String(decision['messageIndex'])}\0${field}\0${String(decision['reason'])}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const size = typeof decision['bytes'] === 'number' ? `, ${decision['bytes']} B` : '';
      drops.push(
        `  request ${position + 1} (${new Date(record.at).toISOString()}): message ${String(decision['messageIndex'])} dropped ${field} (${String(decision['reason'])}${size})`,
      );
    }
  });
  if (lastWithHandles === null) return '';
  for (const decision of (records[lastWithHandles] as RequestRecord).decisions) {
    if (String(decision['field']).startsWith('handle ') && decision['action'] === 'kept') opened += 1;
  }
  const head = `gateway handles: the newest front-door request opened ${opened}; ${drops.length ? 'dropped:' : 'none dropped'}`;
  return [head, ...drops].join('\n');
}

/**
 * What the newest front-door request took from the session instead of the client's copy (SPEC
 * §26.1): how many turns were restored, and the turns no session turn matched (edited history).
 */
export function formatSessionRestores(records: readonly RequestRecord[]): string {
  const newest = [...records].reverse().find((record) => record.decisions.some(isSessionCopy));
  if (!newest) return '';
  const restored = newest.decisions.filter((decision) => isSessionCopy(decision) && decision['action'] === 'restored');
  const unmatched = newest.decisions.filter((decision) => isSessionCopy(decision) && decision['action'] !== 'restored');
  const lines = [
    `session copies: the newest front-door request restored ${restored.length} turn(s) from the session` +
      (unmatched.length ? `; ${unmatched.length} turn(s) matched none and kept the client's copy` : ''),
  ];
  for (const decision of [...restored, ...unmatched]) {
    lines.push(`  message ${String(decision['messageIndex'])}: ${String(decision['reason'])}`);
  }
  return lines.join('\n');
}

/**
 * The session's requests the provider refused, newest last, with the provider's complaint and the
 * stand-ins that request carried (SPEC §26.2): a failing request always says why.
 */
export function formatFailedRequests(records: readonly RequestRecord[]): string {
  const failed = records.filter((record) => record.status >= 400 || record.status === 0);
  if (failed.length === 0) return '';
  const lines = [`failed requests: ${failed.length}`];
  for (const record of failed.slice(-5)) {
    const complaint = (record.error ?? '(no provider text recorded)').replace(/\s+/g, ' ').slice(0, 300);
    lines.push(`  ${new Date(record.at).toISOString()} ${record.routeKey} HTTP ${record.status}: ${complaint}`);
    for (const decision of record.decisions) {
      const reason = String(decision['reason']);
      if (reason.startsWith('stand-in') || reason.startsWith('sent as text')) {
        lines.push(`    message ${String(decision['messageIndex'])} ${String(decision['field'])}: ${reason}`);
      }
    }
  }
  return lines.join('\n');
}

function isSessionCopy(decision: Record<string, unknown>): boolean {
  return decision['field'] === 'session copy';
}
