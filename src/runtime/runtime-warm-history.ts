import type { Message } from '../core/message.js';
import type { SessionRecord, SessionStore, TurnWrite, TurnWriteResult } from '../storage/session-store.js';

/**
 * Warm session histories: a long-running process (the gateway) keeps the stored history of the
 * sessions it served in memory, so a turn reads one session row instead of every message.
 *
 * Rules:
 * - An entry is trusted only when the session's version (`SessionRecord.version`) is still the
 *   one the turn that kept it left. Every store write to a session's row or messages (append,
 *   `/undo`, title or route update, model config) moves the version on, so a turn another
 *   process ran (a second gateway on PostgreSQL, `hermes chat --resume`), an `/undo` or any
 *   other edit makes the next turn read the whole session again.
 * - An entry is taken out while a turn runs and put back only when the turn finished without an
 *   error and without leaving the session (compaction continues in a child): a failed append, a
 *   lost lease or any other failure leaves nothing warm for that session.
 * - The messages are the objects the turn appended (and the ones the first read decoded), so
 *   per-message caches keyed by object stay valid across turns.
 * - Memory is bounded: least recently used sessions are dropped past `maxSessions` sessions or
 *   `maxMessages` messages in all; a session longer than `maxMessages` is never kept.
 * - An entry also keeps the session's record at that version when the turn wrote no session
 *   fields, so the next turn starts without reading the row: it writes with that version as
 *   `expectedVersion`, and a write another process made in between fails that write
 *   (`SessionChangedError`) and the turn reads the session again (runtime-turn-start.ts). The
 *   record's `updatedAt` is the one last read.
 */

/** Bounds of {@link WarmHistories}. */
export interface WarmHistoryLimits {
  /** Sessions kept at most (default 256). */
  maxSessions?: number;
  /** Messages kept at most over all sessions (default 100,000). */
  maxMessages?: number;
}

interface WarmEntry {
  messages: Message[];
  version: number;
  /** The session's record at `version`, when the turn that kept the entry knew it. */
  session: SessionRecord | undefined;
}

/** The warm histories of one process: an LRU of sessions (see the file comment for the rules). */
export class WarmHistories {
  private readonly entries = new Map<string, WarmEntry>();
  private messageTotal = 0;
  private readonly maxSessions: number;
  private readonly maxMessages: number;

  constructor(limits: WarmHistoryLimits = {}) {
    this.maxSessions = limits.maxSessions ?? 256;
    this.maxMessages = limits.maxMessages ?? 100_000;
  }

  /** Sessions and messages held now. */
  get size(): { sessions: number; messages: number } {
    return { sessions: this.entries.size, messages: this.messageTotal };
  }

  /**
   * Takes the session's warm history out when it is still current for `session` (its version);
   * undefined when there is none or it is stale. The entry is removed either way.
   */
  take(session: Pick<SessionRecord, 'id' | 'version'>): Message[] | undefined {
    const entry = this.entries.get(session.id);
    if (!entry) return undefined;
    this.remove(session.id, entry);
    return entry.version === session.version ? entry.messages : undefined;
  }

  /** The session's record kept with its warm history, if any (the entry stays). */
  session(sessionId: string): SessionRecord | undefined {
    return this.entries.get(sessionId)?.session;
  }

  /**
   * Keeps `messages` as the history of session `sessionId` at `version` (after the turn's last
   * write), with the session's record at that version when known.
   */
  keep(sessionId: string, version: number, messages: Message[], session?: SessionRecord): void {
    const existing = this.entries.get(sessionId);
    if (existing) this.remove(sessionId, existing);
    if (messages.length > this.maxMessages || this.maxSessions < 1) return;
    const record = session === undefined || session.version === version ? session : { ...session, version };
    this.entries.set(sessionId, { messages, version, session: record });
    this.messageTotal += messages.length;
    for (const [sessionId, entry] of this.entries) {
      if (this.entries.size <= this.maxSessions && this.messageTotal <= this.maxMessages) break;
      this.remove(sessionId, entry);
    }
  }

  /** Forgets the session (its history changed in a way this process does not follow). */
  drop(sessionId: string): void {
    const entry = this.entries.get(sessionId);
    if (entry) this.remove(sessionId, entry);
  }

  private remove(sessionId: string, entry: WarmEntry): void {
    this.entries.delete(sessionId);
    this.messageTotal -= entry.messages.length;
  }
}

/** Store methods that change a session's messages other than by appending (first argument: the session id). */
const HISTORY_REWRITES = new Set<string>(['undoLastExchange', 'compactInPlace', 'deleteSession']);

/** Store methods that change a session's version without a result that says which (first argument: the session id). */
const VERSION_WRITES = new Set<string>(['appendMessage', 'appendMessages', 'updateSession', 'patchModelConfig']);

/** The stored history of one turn's session, followed through the turn's appends. */
export interface TurnHistory {
  /** The store the turn writes through: appends to the session also extend {@link load}'s list. */
  readonly store: SessionStore;
  /** The session's record kept warm with its history (not read from the store; see the file comment). */
  warmSession(): SessionRecord | undefined;
  /** The session's stored messages (`listMessages`), warm when {@link WarmHistories} holds a current copy. */
  load(session: SessionRecord): Promise<Message[]>;
  /** Drops what {@link load} returned, so the next load reads the store (the history changed underneath). */
  forget(): void;
  /** After a finished turn: keeps the history warm when the turn stayed on `sessionId` and nothing else changed it. */
  settle(finalSessionId: string): Promise<void>;
}

/**
 * Follows the stored history of `sessionId` through one turn. Without `warm` it only reads and
 * follows appends (every turn reads the whole session). The version to keep comes from the
 * turn's last `writeTurn`; after any other write to the session it is read once more at the end.
 */
export function openTurnHistory(store: SessionStore, sessionId: string, warm: WarmHistories | undefined): TurnHistory {
  let messages: Message[] | null = null;
  let trusted = true;
  /** The session's version after the turn's last write, when that write said it. */
  let version: number | null = null;
  /** The record `load` was given, while no write of the turn may have changed its fields. */
  let record: SessionRecord | null = null;
  const follow = (appended: readonly Message[] | undefined) => {
    if (messages && appended) messages.push(...appended);
  };
  // One wrapper per method for the whole turn: a turn reads the store's methods many times.
  const wrappers = new Map<string | symbol, { method: unknown; wrapper: unknown }>();
  const tracked = new Proxy(store, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      const cached = wrappers.get(key);
      if (cached?.method === value) return cached.wrapper;
      const wrapper = wrap(target, key, value as (...args: unknown[]) => Promise<unknown>);
      wrappers.set(key, { method: value, wrapper });
      return wrapper;
    },
  });
  const wrap = (target: SessionStore, key: string | symbol, method: (...args: unknown[]) => Promise<unknown>) => {
    if (typeof key !== 'string') return method.bind(target);
    if (key === 'writeTurn' || VERSION_WRITES.has(key)) {
      return async (...args: unknown[]) => {
        if (args[0] !== sessionId) return method.apply(target, args);
        try {
          const returned = await method.apply(target, args);
          if (key === 'writeTurn') {
            const write = args[1] as TurnWrite;
            follow(write.messages);
            version = (returned as TurnWriteResult).version;
            if (write.session !== undefined && Object.keys(write.session).length > 0) record = null;
          } else {
            if (key === 'appendMessage') follow([args[1] as Message]);
            if (key === 'appendMessages') follow(args[1] as readonly Message[]);
            version = null;
            record = null;
          }
          return returned;
        } catch (error) {
          // A failed write may or may not have reached the database: nothing stays warm.
          trusted = false;
          throw error;
        }
      };
    }
    if (HISTORY_REWRITES.has(key)) {
      return (...args: unknown[]) => {
        if (args[0] === sessionId) trusted = false;
        return method.apply(target, args);
      };
    }
    return method.bind(target);
  };
  return {
    store: tracked,
    warmSession: () => warm?.session(sessionId),
    async load(session) {
      messages = warm?.take(session) ?? (await store.listMessages(sessionId));
      record = session;
      return messages;
    },
    forget() {
      messages = null;
      trusted = true;
      version = null;
      record = null;
    },
    async settle(finalSessionId) {
      if (!warm || !messages) return;
      if (!trusted || finalSessionId !== sessionId) {
        warm.drop(sessionId);
        return;
      }
      if (version !== null) {
        warm.keep(sessionId, version, messages, record ?? undefined);
        return;
      }
      // A version the last write did not report is read after it: the version the next turn compares.
      const current = await store.getSession(sessionId);
      if (current) warm.keep(sessionId, current.version, messages, current);
    },
  };
}
