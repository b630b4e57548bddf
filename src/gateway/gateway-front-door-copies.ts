import type { Message } from '../core/message.js';
import type { CarrierDecision } from '../runtime/runtime-client-turn.js';
import type { EchoedTurn } from './gateway-front-door-handles.js';
import type { SessionRecord, SessionStore } from '../storage/session-store.js';
import { ARCHIVED_KEY } from '../storage/session-archive.js';
import { storedTurnsOf, visibleKey, type StoredTurns } from './gateway-front-door-restore.js';

/**
 * What the gateway keeps between requests of a front-door session, so a request costs what is new
 * (SPEC §26.7) while the client resends its whole history every time:
 *
 * - the session's stored copy (every message, archived ones included) and the visible key of each
 *   stored assistant turn, trusted while the session's version is the one they were read or
 *   written at. The mirror's own write appends to them; any other write to the session (another
 *   process, `/undo`, compaction, a route change) moves the version on and the next request
 *   reads the session again;
 * - the client's history as the last request translated it: per message, what it came in as
 *   (its canonical form and echo, as parsed), the message after its handles were opened and
 *   its session copy restored (SPEC §25.6, §26.1), and the decisions that made. A request whose
 *   history starts with the same messages under the same route facts takes those results for
 *   that prefix and translates only what follows; the reused objects are the same objects as
 *   before, so per-message caches keyed by object (the request encoders, token estimates) hit.
 *
 * Memory is bounded: least recently used sessions are dropped past `maxSessions` sessions or
 * `maxMessages` messages in all (stored and translated counted together).
 */

/** Bounds of {@link FrontDoorSessionCopies}. */
export interface FrontDoorCopyLimits {
  /** Sessions kept at most (default 256). */
  maxSessions?: number;
  /** Messages kept at most over all sessions (default 200,000). */
  maxMessages?: number;
}

/** A client message as its door parsed it, with its echo (never changed after parsing). */
export interface TranslatedInput {
  message: Message;
  echo: EchoedTurn | undefined;
}

/** One translated client message of the last request (see the file comment). */
export interface TranslatedMessage {
  /** The canonical message and its echo as parsed: equal values, equal translation. */
  input: TranslatedInput;
  /** The message after opening and restoring. */
  message: Message;
  /** Handle decisions made for it. */
  opened: CarrierDecision[];
  /** Restoration decisions made for it. */
  restored: CarrierDecision[];
  /** The position in {@link StoredTurns} restoration continues from after this message. */
  nextStoredTurn: number;
  /** An assistant turn no stored turn matched (a grown copy may match it now). */
  unmatched: boolean;
}

/** The last request's translation of a session's client history, under its route facts. */
export interface TranslatedPrefix {
  /** Purpose, wire API and origin the handles were opened for: another value translates anew. */
  facts: string;
  /** Stored assistant turns the translation was restored against. */
  storedTurns: number;
  messages: TranslatedMessage[];
}

/** The cached copy of one session. */
export interface SessionCopy {
  version: number;
  /** The session's record as the last {@link FrontDoorSessionCopies.read} found it. */
  record: SessionRecord;
  /** Every stored message, archived ones included (`listMessages` with `includeArchived`). */
  stored: Message[];
  turns: StoredTurns;
  translated: TranslatedPrefix | undefined;
  /**
   * The client turns (system messages left out) the last mirror lined up with the stored live
   * turns, by object: the stored turn at each position equals the client turn there.
   */
  mirrored?: readonly Message[] | undefined;
}

/** The live history of a copy: what `listMessages` returns without `includeArchived`. */
export function liveMessages(copy: SessionCopy): Message[] {
  return copy.stored.filter((message) => !(ARCHIVED_KEY in message));
}

/** The stored copies and translations of one gateway's front-door sessions (see the file comment). */
export class FrontDoorSessionCopies {
  private readonly entries = new Map<string, SessionCopy>();
  private messageTotal = 0;
  private readonly maxSessions: number;
  private readonly maxMessages: number;

  constructor(limits: FrontDoorCopyLimits = {}) {
    this.maxSessions = limits.maxSessions ?? 256;
    this.maxMessages = limits.maxMessages ?? 200_000;
  }

  /** Sessions and messages held now. */
  get size(): { sessions: number; messages: number } {
    return { sessions: this.entries.size, messages: this.messageTotal };
  }

  /**
   * The session's copy at its current version: the kept one when the version still matches,
   * else read from the store (and kept). Null when the store does not hold the session.
   */
  async read(store: SessionStore, sessionId: string): Promise<SessionCopy | null> {
    const session = await store.getSession(sessionId);
    if (!session) {
      this.drop(sessionId);
      return null;
    }
    const kept = this.entries.get(sessionId);
    if (kept && kept.version === session.version) {
      kept.record = session;
      this.touch(sessionId, kept);
      return kept;
    }
    const stored = await store.listMessages(sessionId, { includeArchived: true });
    // A parallel request may have kept a newer copy meanwhile: the newest version wins.
    const current = this.entries.get(sessionId);
    if (current && current.version >= session.version) return current;
    // The session changed in a way this process did not follow: its translation goes too.
    const copy: SessionCopy = {
      version: session.version,
      record: session,
      stored,
      turns: storedTurnsOf(stored),
      translated: undefined,
    };
    this.keep(sessionId, copy);
    return copy;
  }

  /** The kept copy, not checked against the store (the mirror's write checks its version). */
  kept(sessionId: string): SessionCopy | undefined {
    return this.entries.get(sessionId);
  }

  /**
   * After the mirror's write: `appended` went in at `fromVersion` and left `toVersion`. The kept
   * copy follows when it was at `fromVersion`; otherwise it is dropped (read again next time).
   */
  appended(
    sessionId: string,
    fromVersion: number,
    toVersion: number,
    appended: readonly Message[],
    mirrored?: readonly Message[],
  ): void {
    const copy = this.entries.get(sessionId);
    if (!copy) return;
    if (copy.version !== fromVersion) {
      this.drop(sessionId);
      return;
    }
    // The store returns messages as appended, through JSON: the copy holds the same values.
    const copies = JSON.parse(JSON.stringify(appended)) as Message[];
    copy.stored.push(...copies);
    for (const message of copies) {
      if (message.role !== 'assistant') continue;
      copy.turns.turns.push(message);
      copy.turns.keys.push(visibleKey(message));
    }
    copy.version = toVersion;
    copy.mirrored = mirrored;
    this.messageTotal += copies.length;
    this.touch(sessionId, copy);
    this.trim();
  }

  /** Keeps the translation of the session's client history (the copy must be kept already). */
  translated(sessionId: string, prefix: TranslatedPrefix): void {
    const copy = this.entries.get(sessionId);
    if (!copy) return;
    this.messageTotal += prefix.messages.length - (copy.translated?.messages.length ?? 0);
    copy.translated = prefix;
    this.trim();
  }

  /** Forgets the session. */
  drop(sessionId: string): void {
    const copy = this.entries.get(sessionId);
    if (!copy) return;
    this.entries.delete(sessionId);
    this.messageTotal -= sizeOf(copy);
  }

  private keep(sessionId: string, copy: SessionCopy): void {
    this.drop(sessionId);
    if (sizeOf(copy) > this.maxMessages || this.maxSessions < 1) return;
    this.entries.set(sessionId, copy);
    this.messageTotal += sizeOf(copy);
    this.trim();
  }

  private touch(sessionId: string, copy: SessionCopy): void {
    this.entries.delete(sessionId);
    this.entries.set(sessionId, copy);
  }

  private trim(): void {
    for (const [sessionId] of this.entries) {
      if (this.entries.size <= this.maxSessions && this.messageTotal <= this.maxMessages) break;
      this.drop(sessionId);
    }
  }
}

function sizeOf(copy: SessionCopy): number {
  return copy.stored.length + (copy.translated?.messages.length ?? 0);
}
