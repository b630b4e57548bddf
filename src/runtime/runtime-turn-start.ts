import { HermesError } from '../core/errors.js';
import type { JsonObject } from '../core/json.js';
import type { Message } from '../core/message.js';
import { claimForThisProcess } from '../storage/session-lease.js';
import { keepLeaseAlive, type HeldSessionLease } from '../storage/session-lease-hold.js';
import { SessionChangedError, storedBaseUrl } from '../storage/session-store-rules.js';
import type { SessionFields, SessionRecord, SessionStore, TurnWrite } from '../storage/session-store.js';
import { missingToolResults } from './runtime-history.js';
import { repairStoredHistory } from './runtime-history-repair.js';
import { findKeyedTurn, finishedTurnResult, TURN_DIGEST, TURN_KEY, turnDigest } from './runtime-turn-key.js';
import type { AgentTurnOptions, TurnResult } from './runtime-turn-options.js';
import type { TurnHistory } from './runtime-warm-history.js';

/**
 * The start of a turn, in ONE write transaction (`SessionStore.writeTurn`, SPEC §23.6): the
 * session's lease (and, for a new session, the session itself) together with everything the
 * turn stores before its first request — answers
 * for tool calls a gone turn left, a new session's system prompt, the question, the session's
 * route fields. The session and its history are read first (warm when the process kept them);
 * the write holds only while the session is still at the version that was read, so nothing
 * another writer stored in between is overlooked: then the session is read again. A session the
 * process kept warm is not read at all: its kept record goes into the write the same way, and a
 * turn that would be answered from it alone (a finished keyed turn) reads the row first.
 */

/** Reads of the session a turn start makes at most before it gives up on a session that keeps changing. */
const MAX_READS = 3;

/** The lease a started turn runs under. */
export interface TurnLease {
  held: HeldSessionLease;
  /** Taken by this turn (released with its last write) rather than by the caller. */
  own: boolean;
}

/** How a turn started. */
export type TurnStart =
  /** A retried keyed turn that had finished: answered from the store, nothing written. */
  | { kind: 'finished'; result: TurnResult }
  | {
      kind: 'started';
      /** The (repaired) history the requests are built from; the turn appends to it. */
      history: Message[];
      modelConfig: JsonObject;
      lease: TurnLease;
      /** The session was created by this turn's first write. */
      created: boolean;
    };

/** Reads the session, then writes the lease and the turn's first messages at once (see the file comment). */
export async function startTurn(
  userText: string,
  options: AgentTurnOptions,
  turnHistory: TurnHistory,
): Promise<TurnStart> {
  const { sessionId } = options;
  const store = turnHistory.store;
  const claim = options.lease ? undefined : claimForThisProcess(options.leaseOwner ?? 'hermes');
  let warm = turnHistory.warmSession();
  for (let read = 1; ; read += 1) {
    const unread = warm !== undefined;
    const session = warm ?? (await sessionOf(store, options));
    warm = undefined;
    // A new session is created by the write below, with its first messages (never stored empty).
    const creating = session.version === 0;
    // A warm record is checked by the write; nothing else may be trusted to it alone.
    if (unread) read -= 1;
    const stored = await turnHistory.load(session);
    const keyed = findKeyedTurn(stored, options.turnKey, userText);
    if (keyed.state === 'finished') {
      if (unread && (await store.getSession(sessionId))?.version !== session.version) {
        turnHistory.forget();
        continue;
      }
      return { kind: 'finished', result: finishedTurnResult(sessionId, keyed.messages) };
    }
    // The lease is taken in this same write, so no other turn runs on the session: a tool call
    // left without a result belongs to a turn that is gone, and is answered (appended, never rewritten).
    const answered = missingToolResults(stored);
    const first = firstMessages(userText, options, keyed.state, answered.at(-1) ?? stored.at(-1), stored.length === 0);
    // The lease field is set after the literal, not spread into it (core/with-fields.ts).
    const write: TurnWrite = {
      messages: [...answered, ...first],
      // Given even when nothing changed: the session is marked as used now (`sessions list` order).
      session: sessionFieldsFor(session, options, userText) ?? {},
    };
    if (creating) write.createSession = options.newSession;
    else write.expectedVersion = session.version;
    if (claim) write.acquireLease = claim;
    else write.leaseId = options.lease?.record.leaseId;
    // Taken before the write: the turn's store follows its writes into `stored` (runtime-warm-history.ts).
    const history = repairStoredHistory(stored, answered);
    let written;
    try {
      written = await store.writeTurn(sessionId, write);
    } catch (error) {
      // A warm session another process deleted is read again too: it may be created anew.
      const retry = error instanceof SessionChangedError || (unread && !(await store.getSession(sessionId)));
      if (!retry || read >= MAX_READS) throw error;
      turnHistory.forget();
      continue;
    }
    history.push(...first);
    const held = claim && written.lease ? keepLeaseAlive(store, written.lease, claim.ttlMs) : options.lease;
    if (!held) throw new HermesError(`the lease on session ${sessionId} was not taken`);
    return {
      kind: 'started',
      history,
      modelConfig: session.modelConfig,
      lease: { held, own: claim !== undefined },
      created: creating,
    };
  }
}

/**
 * The turn's session does not exist (and the turn was not asked to create it). Raised by the
 * turn's first read, before anything is written, so a caller need not check the session first.
 */
export class TurnSessionMissingError extends HermesError {
  override readonly name: string = 'TurnSessionMissingError';

  constructor(readonly sessionId: string) {
    super(`no session "${sessionId}"`);
  }
}

/**
 * The session the turn runs on. One that does not exist yet, when `newSession` asks for it, is
 * the record the turn's first write will create: version 0, no messages.
 */
async function sessionOf(store: SessionStore, options: AgentTurnOptions): Promise<SessionRecord> {
  const session = await store.getSession(options.sessionId);
  if (session) return session;
  const created = options.newSession;
  if (!created) throw new TurnSessionMissingError(options.sessionId);
  const now = Date.now();
  return {
    id: options.sessionId,
    title: created.title ?? null,
    parentSessionId: created.parentSessionId ?? null,
    createdAt: now,
    updatedAt: now,
    provider: created.provider ?? null,
    model: created.model ?? null,
    baseUrl: storedBaseUrl(created.baseUrl) ?? null,
    api: created.api ?? null,
    modelConfig: created.modelConfig ?? {},
    messageCount: 0,
    version: 0,
  };
}

/**
 * The question to store, with a new session's system prompt before it; none when the turn goes
 * on from what is stored: an unfinished keyed turn, or a failed turn whose question is the last
 * stored message (asking it again answers that one rather than storing the same question twice).
 * `last` is the history's last message, with the turn's appended tool results counted.
 */
function firstMessages(
  userText: string,
  options: AgentTurnOptions,
  keyed: 'new' | 'unfinished',
  last: Message | undefined,
  emptySession: boolean,
): Message[] {
  if (keyed !== 'new') return [];
  if (last?.role === 'user' && last.content === userText) return [];
  const now = Date.now();
  const user: Message = { role: 'user', content: userText, timestamp: now };
  if (options.turnKey !== undefined) {
    Object.assign(user, { [TURN_KEY]: options.turnKey, [TURN_DIGEST]: turnDigest(userText) });
  }
  // A new session's system prompt is stored with its first message, in the same transaction.
  return emptySession && options.systemPrompt
    ? [{ role: 'system', content: options.systemPrompt, timestamp: now }, user]
    : [user];
}

/**
 * The session fields the turn sets: its route, and a title from the question when the session
 * has none; null when the record already says all of that.
 */
function sessionFieldsFor(session: SessionRecord, options: AgentTurnOptions, userText: string): SessionFields | null {
  const fields: SessionFields = {
    provider: options.sessionRoute?.provider ?? options.route.provider,
    model: options.route.model,
    baseUrl: options.sessionRoute ? options.sessionRoute.baseUrl : (options.route.baseUrl ?? null),
    api: options.route.api,
    ...(session.title ? {} : { title: titleFrom(userText) }),
  };
  const unchanged =
    fields.title === undefined &&
    fields.provider === session.provider &&
    fields.model === session.model &&
    storedBaseUrl(fields.baseUrl) === session.baseUrl &&
    fields.api === session.api;
  return unchanged ? null : fields;
}

function titleFrom(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 57)}...` : line || 'untitled';
}
