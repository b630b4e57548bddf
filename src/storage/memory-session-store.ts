import type { Message } from '../core/message.js';
import { newSessionId } from '../core/ids.js';
import type {
  HandleKeyRecord,
  NewSession,
  RequestRecord,
  SessionFields,
  SessionRecord,
  SessionStore,
  VerdictRecord,
} from './session-store.js';
import {
  compareHandleKeys,
  checkedTitle,
  defaultBranchTitle,
  duplicateSessionError,
  mergeModelConfig,
  mergeVerdict,
  SessionChangedError,
  storedBaseUrl,
  stringifyJson,
  unknownSessionError,
  validHandleKey,
} from './session-store-rules.js';
import { checkTurnWrite, leaseFromClaim, mayTakeLease, SessionBusyError } from './session-lease.js';
import type { LeaseRecord } from './session-lease.js';
import { isUndone, UNDONE_KEY, undoStart, visibleMessages } from './session-undo.js';
import { archiveCandidateOf, archivedBy, archivePlan, ARCHIVED_KEY, withoutArchived } from './session-archive.js';
import {
  checkedSearchText,
  searchableFieldsOf,
  searchLimit,
  searchMatch,
  type MessageSearchHit,
} from './session-search.js';
import { memoryGatewayUsers } from './memory-users.js';
import { childSessionId, sessionOwner } from './store-users.js';

/** Options for {@link createMemorySessionStore}. */
export interface MemorySessionStoreOptions {
  /** Clock for created/updated times (epoch ms). Default `Date.now`. */
  now?: () => number;
}

interface StoredSession {
  record: Omit<SessionRecord, 'messageCount'>;
  messages: Message[];
  /** Insertion order: breaks `updatedAt` ties like SQLite's rowid. */
  order: number;
}

/**
 * Takes a JSON copy of what a caller hands in, so the memory store accepts and rejects exactly
 * what the SQLite store does (a BigInt or a cycle is a `UsageError`; `undefined` keys vanish as
 * in JSON), and the caller can no longer mutate stored state.
 */
function jsonCopy<T>(value: T, what: string): T {
  return JSON.parse(stringifyJson(value, what)) as T;
}

/**
 * An in-memory `SessionStore` (tests, `replay preview --history`). Same semantics as the SQLite
 * store, proven by the shared conformance suite. Values are copied on the way in (JSON copy)
 * and out (`structuredClone`). Writes are atomic: each one validates and copies everything it
 * needs before changing any state.
 */
export function createMemorySessionStore(options: MemorySessionStoreOptions = {}): SessionStore {
  const now = options.now ?? Date.now;
  const sessions = new Map<string, StoredSession>();
  const verdicts = new Map<string, VerdictRecord>();
  const requests: RequestRecord[] = [];
  const leases = new Map<string, LeaseRecord>();
  const handleKeys = new Map<string, HandleKeyRecord>();
  const sortedHandleKeys = () => [...handleKeys.values()].sort(compareHandleKeys).map((key) => ({ ...key }));
  /** fingerprint → session id → when noted (a counter: later notes sort first). */
  const turnFingerprints = new Map<string, Map<string, number>>();
  let nextNote = 0;
  let nextOrder = 0;
  let nextRequestId = 1;

  /** Marks a write to the session's row or messages: used now, one version on. */
  const touch = (record: StoredSession['record']): void => {
    record.updatedAt = now();
    record.version += 1;
  };

  const toRecord = (stored: StoredSession): SessionRecord =>
    structuredClone({ ...stored.record, messageCount: withoutArchived(stored.messages, false).length });

  const requireSession = (id: string): StoredSession => {
    const stored = sessions.get(id);
    if (stored === undefined) throw unknownSessionError(id);
    return stored;
  };

  const newestFirst = (): StoredSession[] =>
    [...sessions.values()].sort((a, b) => b.record.updatedAt - a.record.updatedAt || b.order - a.order);

  const insertSession = (input: NewSession, messages: Message[]): StoredSession => {
    const id = input.id ?? newSessionId(new Date(now()));
    if (sessions.has(id)) throw duplicateSessionError(id);
    if (input.parentSessionId != null) requireSession(input.parentSessionId);
    const modelConfig = jsonCopy(input.modelConfig ?? {}, 'model config');
    const at = now();
    const stored: StoredSession = {
      record: {
        id,
        title: checkedTitle(input.title) ?? null,
        parentSessionId: input.parentSessionId ?? null,
        createdAt: at,
        updatedAt: at,
        provider: input.provider ?? null,
        model: input.model ?? null,
        baseUrl: storedBaseUrl(input.baseUrl) ?? null,
        api: input.api ?? null,
        modelConfig,
        version: 1,
      },
      messages,
      order: nextOrder++,
    };
    sessions.set(id, stored);
    return stored;
  };

  const append = (sessionId: string, messages: readonly Message[]): number => {
    const stored = requireSession(sessionId);
    const copies = messages.map((message) => jsonCopy(message, 'message'));
    stored.messages.push(...copies);
    touch(stored.record);
    return stored.messages.length;
  };

  const updateFields = (id: string, fields: SessionFields): void => {
    const { record } = requireSession(id);
    if (fields.title !== undefined) record.title = checkedTitle(fields.title);
    if (fields.provider !== undefined) record.provider = fields.provider;
    if (fields.model !== undefined) record.model = fields.model;
    if (fields.baseUrl !== undefined) record.baseUrl = storedBaseUrl(fields.baseUrl);
    if (fields.api !== undefined) record.api = fields.api;
    touch(record);
  };

  const insertRequest = (sessionId: string, record: Omit<RequestRecord, 'id' | 'sessionId'>): void => {
    requests.push({ ...jsonCopy(record, 'request'), sessionId, id: nextRequestId++ });
  };

  const noteFingerprint = (sessionId: string, fingerprint: string): void => {
    const holders = turnFingerprints.get(fingerprint) ?? new Map<string, number>();
    if (!holders.has(sessionId)) holders.set(sessionId, nextNote++);
    turnFingerprints.set(fingerprint, holders);
  };

  return {
    createSession: async (input = {}) => toRecord(insertSession(input, [])),
    getSession: async (id) => {
      const stored = sessions.get(id);
      return stored === undefined ? null : toRecord(stored);
    },
    listSessions: async (listOptions = {}) => {
      const { owner } = listOptions;
      const sorted =
        owner === undefined
          ? newestFirst()
          : newestFirst().filter((stored) => sessionOwner(stored.record.id) === owner);
      // Like SQLite's LIMIT: a negative limit means no limit.
      const { limit } = listOptions;
      return (limit === undefined || limit < 0 ? sorted : sorted.slice(0, limit)).map(toRecord);
    },
    latestSession: async () => {
      const [newest] = newestFirst();
      return newest === undefined ? null : toRecord(newest);
    },
    updateSession: async (id, fields) => updateFields(id, fields),
    deleteSession: async (id) => {
      if (!sessions.delete(id)) return false;
      leases.delete(id);
      for (const stored of sessions.values()) {
        if (stored.record.parentSessionId === id) stored.record.parentSessionId = null;
      }
      for (let index = requests.length - 1; index >= 0; index -= 1) {
        if (requests[index]?.sessionId === id) requests.splice(index, 1);
      }
      for (const holders of turnFingerprints.values()) holders.delete(id);
      return true;
    },
    childSessions: async (id) =>
      [...sessions.values()]
        .filter((stored) => stored.record.parentSessionId === id)
        .sort((a, b) => a.record.createdAt - b.record.createdAt || a.order - b.order)
        .map(toRecord),

    appendMessage: async (sessionId, message) => append(sessionId, [message]),
    appendMessages: async (sessionId, messages, appendOptions = {}) => {
      append(sessionId, messages);
      if (appendOptions.session) updateFields(sessionId, appendOptions.session);
    },
    listMessages: async (sessionId, listOptions = {}) => {
      const stored = withoutArchived(sessions.get(sessionId)?.messages ?? [], listOptions.includeArchived);
      return structuredClone(visibleMessages(stored, listOptions.includeUndone));
    },
    undoLastExchange: async (sessionId) => {
      const stored = requireSession(sessionId);
      const live = withoutArchived(stored.messages, false);
      const start = undoStart(live.map((message) => ({ role: message.role, undone: isUndone(message) })));
      if (start < 0) return 0;
      const marked = live.slice(start).filter((message) => !isUndone(message));
      for (const message of marked) (message as unknown as Record<string, unknown>)[UNDONE_KEY] = true;
      touch(stored.record);
      return marked.length;
    },

    writeTurn: async (sessionId, write) => {
      const existing = sessions.get(sessionId);
      if (existing !== undefined && write.createSession !== undefined) {
        throw new SessionChangedError(sessionId, 0, existing.record.version);
      }
      if (existing === undefined && write.createSession === undefined) throw unknownSessionError(sessionId);
      // Every check and copy before any change: a refused or invalid write leaves nothing.
      const lease = checkTurnWrite(sessionId, write, leases.get(sessionId) ?? null, now());
      const version = existing?.record.version ?? 0;
      if (existing && write.expectedVersion !== undefined && write.expectedVersion !== version) {
        throw new SessionChangedError(sessionId, write.expectedVersion, version);
      }
      const messages = (write.messages ?? []).map((message) => jsonCopy(message, 'message'));
      const records = (write.requests ?? []).map((record) => jsonCopy(record, 'request'));
      checkedTitle(write.session?.title);
      const stored = existing ?? insertSession({ ...write.createSession, id: sessionId }, []);
      if (lease.acquired !== null) leases.set(sessionId, lease.acquired);
      stored.messages.push(...messages);
      if (write.session !== undefined) updateFields(sessionId, write.session);
      else if (messages.length > 0) touch(stored.record);
      for (const record of records) insertRequest(sessionId, record);
      for (const fingerprint of write.fingerprints ?? []) noteFingerprint(sessionId, fingerprint);
      if (lease.releaseId !== null && leases.get(sessionId)?.leaseId === lease.releaseId) leases.delete(sessionId);
      const held = lease.releaseId === null ? lease.acquired : null;
      return { version: stored.record.version, lease: held === null ? null : structuredClone(held) };
    },

    compactInPlace: async (sessionId, compaction) => {
      const stored = requireSession(sessionId);
      // Every check and copy before any change, as in writeTurn.
      checkTurnWrite(sessionId, compaction, leases.get(sessionId) ?? null, now());
      if (compaction.expectedVersion !== undefined && compaction.expectedVersion !== stored.record.version) {
        throw new SessionChangedError(sessionId, compaction.expectedVersion, stored.record.version);
      }
      const plan = archivePlan(stored.messages.map(archiveCandidateOf), compaction.from, compaction.to);
      const messages = compaction.messages.map((message) => jsonCopy(message, 'message'));
      const patch = compaction.modelConfig === undefined ? undefined : jsonCopy(compaction.modelConfig, 'model config');
      for (const index of plan.archive) {
        (stored.messages[index] as unknown as Record<string, unknown>)[ARCHIVED_KEY] = plan.compaction;
      }
      const replaced = new Set(plan.replace);
      stored.messages = [...stored.messages.filter((_message, index) => !replaced.has(index)), ...messages];
      if (patch !== undefined) stored.record.modelConfig = mergeModelConfig(stored.record.modelConfig, patch);
      touch(stored.record);
      return { compaction: plan.compaction, archived: plan.archive.length, version: stored.record.version };
    },
    searchMessages: async (text, searchOptions) => {
      const limit = searchLimit(searchOptions);
      checkedSearchText(text);
      const hits: MessageSearchHit[] = [];
      for (const stored of newestFirst()) {
        if (searchOptions?.sessionId !== undefined && stored.record.id !== searchOptions.sessionId) continue;
        for (const [position, message] of stored.messages.entries()) {
          const match = searchMatch(searchableFieldsOf(message), text);
          if (match === null) continue;
          const timestamp = typeof message.timestamp === 'number' ? message.timestamp : null;
          hits.push({
            sessionId: stored.record.id,
            title: stored.record.title,
            position,
            role: message.role,
            archived: archivedBy(message),
            timestamp,
            ...match,
          });
          if (hits.length === limit) return hits;
        }
      }
      return hits;
    },

    patchModelConfig: async (sessionId, patch) => {
      const { record } = requireSession(sessionId);
      record.modelConfig = mergeModelConfig(record.modelConfig, jsonCopy(patch, 'model config patch'));
      touch(record);
      return structuredClone(record.modelConfig);
    },

    forkSession: async (sourceId, forkOptions = {}) => {
      const source = requireSession(sourceId);
      // Copy (and so validate) every message before the child exists: a failure leaves no child.
      const messages =
        forkOptions.messages === undefined
          ? structuredClone(source.messages)
          : forkOptions.messages.map((message) => jsonCopy(message, 'message'));
      const child = insertSession(
        {
          id: childSessionId(source.record.id, new Date(now())),
          title: forkOptions.title === undefined ? defaultBranchTitle(source.record) : forkOptions.title,
          parentSessionId: source.record.id,
          provider: source.record.provider,
          model: source.record.model,
          baseUrl: source.record.baseUrl,
          api: source.record.api,
          modelConfig: forkOptions.modelConfig ?? source.record.modelConfig,
        },
        messages,
      );
      return toRecord(child);
    },

    recordVerdict: async (input) => {
      const merged = mergeVerdict(verdicts.get(input.routeKey) ?? null, jsonCopy(input, 'verdict'), now());
      verdicts.set(merged.routeKey, merged);
      return structuredClone(merged);
    },
    listVerdicts: async () =>
      [...verdicts.values()]
        .sort((a, b) => (a.routeKey < b.routeKey ? -1 : a.routeKey > b.routeKey ? 1 : 0))
        .map((verdict) => structuredClone(verdict)),
    getVerdict: async (routeKey) => {
      const verdict = verdicts.get(routeKey);
      return verdict === undefined ? null : structuredClone(verdict);
    },
    forgetVerdicts: async (routeKey) => {
      if (routeKey !== 'all') return verdicts.delete(routeKey) ? 1 : 0;
      const count = verdicts.size;
      verdicts.clear();
      return count;
    },

    recordRequest: async (record) => {
      requireSession(record.sessionId);
      const { sessionId, ...rest } = record;
      insertRequest(sessionId, rest);
    },
    listRequests: async (sessionId) =>
      requests.filter((record) => record.sessionId === sessionId).map((record) => structuredClone(record)),

    listHandleKeys: async () => sortedHandleKeys(),
    addHandleKey: async (key) => {
      const valid = validHandleKey(key);
      if (!handleKeys.has(valid.id)) handleKeys.set(valid.id, valid);
      return sortedHandleKeys();
    },
    retireHandleKeys: async (keepId) => {
      let count = 0;
      for (const id of [...handleKeys.keys()]) if (id !== keepId && handleKeys.delete(id)) count += 1;
      return count;
    },

    addTurnFingerprint: async (sessionId, fingerprint) => {
      requireSession(sessionId);
      noteFingerprint(sessionId, fingerprint);
    },
    sessionsWithTurn: async (fingerprint, limit) =>
      [...(turnFingerprints.get(fingerprint) ?? new Map<string, number>())]
        .sort((a, b) => b[1] - a[1])
        .slice(0, limit)
        .map(([sessionId]) => sessionId),
    sessionHoldsTurn: async (sessionId, fingerprint) => turnFingerprints.get(fingerprint)?.has(sessionId) === true,

    acquireLease: async (sessionId, claim) => {
      requireSession(sessionId);
      const at = now();
      const existing = leases.get(sessionId) ?? null;
      if (!mayTakeLease(existing, claim, at)) throw new SessionBusyError(structuredClone(existing as LeaseRecord));
      const lease = leaseFromClaim(sessionId, claim, at);
      leases.set(sessionId, lease);
      return structuredClone(lease);
    },
    renewLease: async (sessionId, leaseId, ttlMs) => {
      const lease = leases.get(sessionId);
      if (lease === undefined || lease.leaseId !== leaseId) return null;
      const at = now();
      lease.heartbeatAt = at;
      lease.expiresAt = at + ttlMs;
      return structuredClone(lease);
    },
    releaseLease: async (sessionId, leaseId) => {
      if (leases.get(sessionId)?.leaseId !== leaseId) return false;
      return leases.delete(sessionId);
    },
    readLease: async (sessionId) => {
      const lease = leases.get(sessionId);
      return lease === undefined ? null : structuredClone(lease);
    },

    ...memoryGatewayUsers(),

    ping: async () => undefined,

    describe: async () => ({ kind: 'memory', schemaVersion: null, location: 'memory' }),

    close: async () => {},
  };
}
