import type { JsonObject } from '../core/json.js';
import { isJsonObject } from '../core/json.js';

/**
 * What `sessions show` and `replay preview --explain` say about a session's compactions (SPEC
 * §26.6): per compaction, what was summarised and archived, and what the tail kept — read from
 * the records compaction writes to `model_config` (`compactions` in place, `compaction` on a
 * child session `compaction.in_place: false` wrote).
 */

/** Compactions described in full; older ones are counted. */
const SHOWN_RECORDS = 3;

function count(value: unknown): string {
  return typeof value === 'number' ? value.toLocaleString('en-US') : '?';
}

/** One compaction in one line: when, what was summarised, what the tail kept. */
export function describeCompactionRecord(record: JsonObject): string {
  const at = typeof record['at'] === 'string' ? record['at'].replace('T', ' ').replace(/\.\d+Z$/, ' UTC') : '?';
  // Records written before lean tails existed have no `tail`: they kept whole turns.
  const keptMessages =
    typeof record['kept_messages'] === 'number' ? ` ${count(record['kept_messages'])} messages:` : '';
  const tail =
    record['tail'] === 'lean'
      ? `a lean tail of ${count(record['tail_tokens'])} tokens (budget ${count(record['tail_budget'])}) with ${count(record['kept_turns'])} user messages`
      : `the last ${count(record['kept_turns'])} turns`;
  const kept = `kept${keptMessages} ${tail}`;
  const archived = record['in_place'] === true || record['number'] !== undefined ? ' and archived' : '';
  const parts = [
    `${count(record['summarised_messages'])} messages summarised${archived}`,
    `about ${count(record['estimate_before'])} → ${count(record['estimate_after'])} tokens`,
    kept,
  ];
  if (typeof record['summary_requests'] === 'number' && record['summary_requests'] > 1) {
    parts.push(
      `summarised in ${count(record['transcript_parts'])} parts (${count(record['summary_requests'])} requests)`,
    );
  }
  if (typeof record['identifiers'] === 'number') parts.push(`${count(record['identifiers'])} identifiers listed`);
  if (record['salvaged'] === true) parts.push('salvaged: less kept than configured, to fit beside the summary');
  return `${at}: ${parts.join('; ')}`;
}

/** The `compacted` lines of a session's model config (none when it was never compacted). */
export function compactionLines(modelConfig: JsonObject, sessionId: string): string[] {
  const lines: string[] = [];
  const records = Array.isArray(modelConfig['compactions']) ? modelConfig['compactions'].filter(isJsonObject) : [];
  if (records.length) {
    lines.push(`compacted ${records.length}× in place; archived turns: hermes sessions show ${sessionId} --archived`);
    const older = records.length - SHOWN_RECORDS;
    if (older > 0) lines.push(`          (${older} earlier compaction${older === 1 ? '' : 's'} not shown)`);
    for (const record of records.slice(-SHOWN_RECORDS)) {
      lines.push(`          #${count(record['number'])} ${describeCompactionRecord(record)}`);
    }
  }
  const child = modelConfig['compaction'];
  if (isJsonObject(child)) {
    lines.push(
      `compacted from ${String(child['source_session_id'] ?? '?')} (a compaction child): ${describeCompactionRecord(child)}`,
    );
  }
  return lines;
}
