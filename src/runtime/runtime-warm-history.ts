import type { Message } from '../core/message.js';
import type { SessionRecord, SessionStore } from '../storage/session-store.js';

/**
 * Warm session histories: a long-running process (the gateway) keeps the stored history of the
 * sessions it served in memory, so a turn reads one session row instead of every message.
 *
 * Rules:
 * - An entry is trusted only when the session row still matches what the turn that kept it saw
 *   last: the same message count and the same `updatedAt`. Every store write to a session
 *   (append, `/undo`, title or route update, model config) touches `updatedAt` and appends change
 *   the count, so a turn another process ran (a second gateway on PostgreSQL, `hermes chat
 *   --resume`), an `/undo` or any other edit makes the next turn read the whole session again.
 * - An entry is taken out while a turn runs and put back only when the turn finished without an
 *   error and without leaving the session (compaction continues in a child): a failed append, a
 *   lost lease or any other failure leaves nothing warm for that session.
 * - The messages are the objects the turn appended (and the ones the first read decoded), so
 *   per-message caches keyed by object stay valid across turns.
 * - Memory is bounded: least recently used sessions are dropped past `maxSessions` sessions or
 *   `maxMessages` messages in all; a session longer than `maxMessages` is never kept.
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
  messageCount: number;
  updatedAt: number;
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
   * Takes the session's warm history out when it still matches `session` (the row read under the
   * lease); undefined when there is none or it is stale. The entry is removed either way.
   */
  take(session: SessionRecord): Message[] | undefined {
    const entry = this.entries.get(session.id);
    if (!entry) return undefined;
    this.remove(session.id, entry);
    if (entry.messageCount !== session.messageCount || entry.updatedAt !== session.updatedAt) return undefined;
    return entry.messages;
  }

  /** Keeps `messages` as the history of `session` (the row read after the turn's last write). */
  keep(session: SessionRecord, messages: Message[]): void {
    const existing = this.entries.get(session.id);
    if (existing) this.remove(session.id, existing);
    if (messages.length > this.maxMessages || this.maxSessions < 1) return;
    this.entries.set(session.id, { messages, messageCount: session.messageCount, updatedAt: session.updatedAt });
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
const HISTORY_REWRITES = new Set<string>(['undoLastExchange', 'deleteSession']);

/** The stored history of one turn's session, followed through the turn's appends. */
export interface TurnHistory {
  /** The store the turn writes through: appends to the session also extend {@link load}'s list. */
  readonly store: SessionStore;
  /** The session's stored messages (`listMessages`), warm when {@link WarmHistories} holds a current copy. */
  load(session: SessionRecord): Promise<Message[]>;
  /** After a finished turn: keeps the history warm when the turn stayed on `sessionId` and nothing else changed it. */
  settle(finalSessionId: string): Promise<void>;
}

/**
 * Follows the stored history of `sessionId` through one turn. Without `warm` it only reads and
 * follows appends (every turn reads the whole session).
 */
export function openTurnHistory(store: SessionStore, sessionId: string, warm: WarmHistories | undefined): TurnHistory {
  let messages: Message[] | null = null;
  let trusted = true;
  const follow = (appended: readonly Message[]) => {
    if (messages) messages.push(...appended);
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
    if (key === 'appendMessage' || key === 'appendMessages') {
      return async (...args: unknown[]) => {
        if (args[0] !== sessionId) return method.apply(target, args);
        try {
          const returned = await method.apply(target, args);
          follow(key === 'appendMessage' ? [args[1] as Message] : (args[1] as readonly Message[]));
          return returned;
        } catch (error) {
          // A failed write may or may not have reached the database: nothing stays warm.
          trusted = false;
          throw error;
        }
      };
    }
    if (typeof key === 'string' && HISTORY_REWRITES.has(key)) {
      return (...args: unknown[]) => {
        if (args[0] === sessionId) trusted = false;
        return method.apply(target, args);
      };
    }
    return method.bind(target);
  };
  return {
    store: tracked,
    async load(session) {
      messages = warm?.take(session) ?? (await store.listMessages(sessionId));
      return messages;
    },
    async settle(finalSessionId) {
      if (!warm || !messages) return;
      if (!trusted || finalSessionId !== sessionId) {
        warm.drop(sessionId);
        return;
      }
      // Read under the lease, after the turn's last write: the version the next turn compares.
      const after = await store.getSession(sessionId);
      if (after) warm.keep(after, messages);
    },
  };
}
