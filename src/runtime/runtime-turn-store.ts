import type { Message } from '../core/message.js';
import { SessionBusyError, SessionLeaseLostError } from '../storage/session-lease.js';
import type { AgentTurnOptions } from './runtime-turn-options.js';
import { recordRequestSafely, type RequestRecordInput } from './runtime-request.js';
import type { TurnLease } from './runtime-turn-start.js';

/**
 * The writes of a running turn, each one transaction (`SessionStore.writeTurn`) checked against
 * the turn's lease inside it. An answer goes in with its request record (SPEC §23.3), and the
 * turn's last answer also drops the lease the turn took: a text turn on a stored session writes
 * twice in all (`runtime-turn-start.ts` is the first). After a compaction the turn writes to the
 * child session, which the lease does not cover; the lease is then released on its own.
 */

/** Stores `messages` on the turn's session, under its lease. */
export async function storeTurnMessages(
  options: AgentTurnOptions,
  lease: TurnLease,
  messages: readonly Message[],
): Promise<void> {
  const onLeased = options.sessionId === lease.held.sessionId;
  await lease.held.ensureHeld();
  await options.store.writeTurn(options.sessionId, {
    messages,
    ...(onLeased ? { leaseId: lease.held.record.leaseId } : {}),
  });
}

/**
 * Stores an answer with its request record in one commit; `last` (the turn's final answer) also
 * releases a lease the turn took. The request record is a diagnostic: when the combined write
 * fails for any reason but the lease, the answer is stored alone and the record's failure is
 * only logged (the answer is never lost to it).
 */
export async function storeAnswer(
  options: AgentTurnOptions,
  lease: TurnLease,
  answer: Message,
  record: RequestRecordInput,
  last: boolean,
): Promise<void> {
  const onLeased = options.sessionId === lease.held.sessionId;
  const release = last && lease.own && onLeased;
  const { sessionId: _sessionId, ...request } = record;
  await lease.held.ensureHeld();
  const write = {
    messages: [answer],
    ...(onLeased ? { leaseId: lease.held.record.leaseId } : {}),
    ...(release ? { releaseLease: true } : {}),
  };
  try {
    await options.store.writeTurn(options.sessionId, { ...write, requests: [request] });
  } catch (error) {
    if (error instanceof SessionLeaseLostError || error instanceof SessionBusyError) throw error;
    await options.store.writeTurn(options.sessionId, write);
    await recordRequestSafely(record, options);
  }
  if (release) lease.held.releasedByWrite();
}
