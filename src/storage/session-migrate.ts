import {
  canonicalMessageRow,
  messageRowHash,
  unarchivedRowHash,
  type MessageRow,
  type RequestRow,
  type SessionRow,
  type StoreRows,
  type VerdictRow,
} from './store-rows.js';

/**
 * `hermes sessions migrate`: copies every session (times, lineage, model config), message,
 * request record, turn fingerprint, verdict, handle key and gateway user from one store to another — SQLite to PostgreSQL and back —
 * then verifies counts and the SHA-256 of each message's stored bytes. Idempotent: a session
 * already in the target with the same leading messages only gets what it lacks; a run that
 * finds nothing new writes nothing. A session compacted in place since it was copied (SPEC §26.6:
 * rows archived, the tail moved after the summary) is copied again in full when the target copy
 * holds nothing the source lacks. Any other session whose target copy differs is left alone and
 * reported as a conflict.
 */

/** How many in-place compactions a session's model config records. */
function compactionCount(session: Pick<SessionRow, 'model_config'>): number {
  try {
    const records = (JSON.parse(session.model_config) as { compactions?: unknown }).compactions;
    return Array.isArray(records) ? records.length : 0;
  } catch {
    return 0;
  }
}

/**
 * True when the source was compacted in place after the target copy was made and the target
 * holds no message the source lacks (each target row, marks aside, is a source row).
 */
function compactedSinceCopy(
  source: SessionRow,
  target: SessionRow,
  sourceRows: readonly MessageRow[],
  targetRows: readonly MessageRow[],
): boolean {
  if (compactionCount(source) <= compactionCount(target)) return false;
  const available = new Map<string, number>();
  for (const row of sourceRows) {
    const hash = unarchivedRowHash(row);
    available.set(hash, (available.get(hash) ?? 0) + 1);
  }
  return targetRows.every((row) => {
    const hash = unarchivedRowHash(canonicalMessageRow(row));
    const left = available.get(hash) ?? 0;
    available.set(hash, left - 1);
    return left > 0;
  });
}

/** What one run did and found. */
export interface MigrateReport {
  from: string;
  to: string;
  sessions: { total: number; copied: number; extended: number; unchanged: number };
  messages: { total: number; copied: number; verified: number; reencoded: number };
  requests: { total: number; copied: number };
  verdicts: { total: number; written: number };
  /** Handle keys (SPEC §25.6): copied so the handles clients hold keep opening on the target. */
  handleKeys: { total: number; copied: number };
  /** Turn fingerprints: copied so a Gemini CLI conversation resumed on the target is found again. */
  turnFingerprints: { total: number; copied: number };
  /** Gateway users (SPEC §26.10): copied so their keys keep working on the target; a name there already is left as it is. */
  users: { total: number; copied: number };
  /** Sessions left alone because the target holds different messages. */
  conflicts: string[];
  /** Messages whose hash in the target differs from the source after the copy. */
  mismatches: { sessionId: string; seq: number }[];
}

/** True when the run copied and verified everything. */
export function migrateSucceeded(report: MigrateReport): boolean {
  return report.conflicts.length === 0 && report.mismatches.length === 0;
}

function sameRequest(a: RequestRow, b: RequestRow): boolean {
  return (
    a.at === b.at &&
    a.api === b.api &&
    a.route_key === b.route_key &&
    a.status === b.status &&
    a.decisions === b.decisions &&
    a.error === b.error
  );
}

/** The verdict that keeps what both stores learned (SPEC §23.1 merge: union, first seen, first text). */
function mergedVerdict(source: VerdictRow, target: VerdictRow | undefined): VerdictRow {
  if (target === undefined) return source;
  const fields = [
    ...new Set([...(JSON.parse(target.fields) as string[]), ...(JSON.parse(source.fields) as string[])]),
  ].sort();
  const first = source.first_seen <= target.first_seen ? source : target;
  return {
    ...target,
    fields: JSON.stringify(fields),
    first_seen: first.first_seen,
    updated_at: Math.max(source.updated_at, target.updated_at),
    error_text: first.error_text || target.error_text || source.error_text,
  };
}

function sameVerdict(a: VerdictRow, b: VerdictRow | undefined): boolean {
  return b !== undefined && (Object.keys(a) as (keyof VerdictRow)[]).every((key) => a[key] === b[key]);
}

/** Copies and verifies; `progress` gets one line per session copied or extended. */
export async function migrateSessions(
  source: StoreRows,
  target: StoreRows,
  progress: (line: string) => void = () => undefined,
): Promise<MigrateReport> {
  const report: MigrateReport = {
    from: source.location,
    to: target.location,
    sessions: { total: 0, copied: 0, extended: 0, unchanged: 0 },
    messages: { total: 0, copied: 0, verified: 0, reencoded: 0 },
    requests: { total: 0, copied: 0 },
    verdicts: { total: 0, written: 0 },
    handleKeys: { total: 0, copied: 0 },
    turnFingerprints: { total: 0, copied: 0 },
    users: { total: 0, copied: 0 },
    conflicts: [],
    mismatches: [],
  };
  const existing = new Map((await target.sessions()).map((row) => [row.id, row]));
  for (const session of await source.sessions()) {
    report.sessions.total += 1;
    const stored = await source.messages(session.id);
    const messages = stored.map(canonicalMessageRow);
    const hashes = messages.map(messageRowHash);
    report.messages.total += messages.length;
    report.messages.reencoded += stored.filter((row, index) => messageRowHash(row) !== hashes[index]).length;
    const requests = await source.requests(session.id);
    report.requests.total += requests.length;
    const present = existing.get(session.id);
    const targetMessages = present ? await target.messages(session.id) : [];
    const targetRequests = present ? await target.requests(session.id) : [];
    const prefixMatches =
      targetMessages.length <= messages.length &&
      targetMessages.every((row, index) => messageRowHash(row) === hashes[index]);
    const replace =
      !prefixMatches && present !== undefined && compactedSinceCopy(session, present, messages, targetMessages);
    if (!prefixMatches && !replace) {
      report.conflicts.push(session.id);
      continue;
    }
    const requestPrefix =
      targetRequests.length <= requests.length &&
      targetRequests.every((row, index) => sameRequest(row, requests[index] as RequestRow));
    const newMessages = replace ? messages : messages.slice(targetMessages.length);
    const newRequests = requestPrefix ? requests.slice(targetRequests.length) : [];
    const rowChanged =
      present === undefined ||
      (Object.keys(session) as (keyof typeof session)[]).some((key) => session[key] !== present[key]);
    if (newMessages.length || newRequests.length || rowChanged) {
      await target.writeSession(session, newMessages, replace ? 1 : targetMessages.length + 1, newRequests, replace);
      report.messages.copied += newMessages.length;
      report.requests.copied += newRequests.length;
      if (present) report.sessions.extended += 1;
      else report.sessions.copied += 1;
      const what = replace ? 'rewrote (compacted in place since the last copy)' : present ? 'extended' : 'copied';
      progress(`${what} ${session.id}: ${newMessages.length} messages, ${newRequests.length} requests`);
    } else {
      report.sessions.unchanged += 1;
    }
    await copyTurnFingerprints(source, target, session.id, report);
    const copied = await target.messages(session.id);
    if (copied.length !== messages.length) report.mismatches.push({ sessionId: session.id, seq: copied.length + 1 });
    copied.forEach((row, index) => {
      if (messageRowHash(row) === hashes[index]) report.messages.verified += 1;
      else report.mismatches.push({ sessionId: session.id, seq: index + 1 });
    });
  }
  const targetVerdicts = new Map((await target.verdicts()).map((row) => [row.route_key, row]));
  for (const verdict of await source.verdicts()) {
    report.verdicts.total += 1;
    const merged = mergedVerdict(verdict, targetVerdicts.get(verdict.route_key));
    if (sameVerdict(merged, targetVerdicts.get(verdict.route_key))) continue;
    await target.writeVerdict(merged);
    report.verdicts.written += 1;
  }
  report.handleKeys = await copyMissing(
    await source.handleKeys(),
    await target.handleKeys(),
    (key) => key.id,
    (key) => target.writeHandleKey(key),
  );
  report.users = await copyMissing(
    await source.users(),
    await target.users(),
    (user) => user.name,
    (user) => target.writeUser(user),
  );
  return report;
}

/** Copies the session's turn fingerprints the target lacks. */
async function copyTurnFingerprints(
  source: StoreRows,
  target: StoreRows,
  sessionId: string,
  report: MigrateReport,
): Promise<void> {
  const copied = await copyMissing(
    await source.turnFingerprints(sessionId),
    await target.turnFingerprints(sessionId),
    (row) => row.fingerprint,
    (row) => target.writeTurnFingerprint(row),
  );
  report.turnFingerprints.total += copied.total;
  report.turnFingerprints.copied += copied.copied;
}

/** Writes the rows of `source` whose key `target` lacks (a stored row is never replaced); counts both. */
async function copyMissing<Row>(
  source: readonly Row[],
  target: readonly Row[],
  keyOf: (row: Row) => string,
  write: (row: Row) => Promise<void>,
): Promise<{ total: number; copied: number }> {
  const present = new Set(target.map(keyOf));
  let copied = 0;
  for (const row of source) {
    if (present.has(keyOf(row))) continue;
    await write(row);
    copied += 1;
  }
  return { total: source.length, copied };
}

/** The closing lines a person reads. */
export function describeMigration(report: MigrateReport): string {
  const lines = [
    `migrated ${report.from} -> ${report.to}`,
    `sessions: ${report.sessions.total} (${report.sessions.copied} copied, ${report.sessions.extended} extended, ${report.sessions.unchanged} already there)`,
    `messages: ${report.messages.total} (${report.messages.copied} copied); sha-256 of stored bytes verified for ${report.messages.verified}` +
      (report.messages.reencoded ? ` (${report.messages.reencoded} older rows re-encoded losslessly)` : ''),
    `requests: ${report.requests.total} (${report.requests.copied} copied); verdicts: ${report.verdicts.total} (${report.verdicts.written} written); handle keys: ${report.handleKeys.total} (${report.handleKeys.copied} copied); turn fingerprints: ${report.turnFingerprints.total} (${report.turnFingerprints.copied} copied); users: ${report.users.total} (${report.users.copied} copied)`,
  ];
  for (const id of report.conflicts) {
    lines.push(`conflict: session ${id} already exists in the target with different messages; it was left as it is`);
  }
  for (const mismatch of report.mismatches.slice(0, 20)) {
    lines.push(`mismatch: session ${mismatch.sessionId} message ${mismatch.seq} differs in the target`);
  }
  return `${lines.join('\n')}\n`;
}
