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
