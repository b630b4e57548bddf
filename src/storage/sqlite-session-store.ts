import type { JsonObject } from '../core/json.js';
import type { Message } from '../core/message.js';
import { newSessionId } from '../core/ids.js';
import type {
  NewSession,
  RequestRecord,
  SessionFields,
  SessionRecord,
  SessionStore,
  TurnWrite,
  TurnWriteResult,
  UndecodableMessage,
  VerdictRecord,
} from './session-store.js';
import { groupCommit } from './sqlite-group-commit.js';
import { DEFAULT_BUSY_TIMEOUT_MS, openSqliteDatabase } from './sqlite-open.js';
import { decodeMessageRows, encodeMessage } from './sqlite-message-codec.js';
import type { EncodedMessage } from './sqlite-message-codec.js';
import {
  leaseOfTurnWriteState,
  MESSAGE_PAGE_ROWS,
  prepareStatements,
  toLeaseRecord,
  toRequestRecord,
  toSessionRecord,
  toVerdictRecord,
} from './sqlite-statements.js';
import { checkTurnWrite, leaseColumns, leaseFromClaim, mayTakeLease, SessionBusyError } from './session-lease.js';
import type { LeaseClaim, LeaseRecord } from './session-lease.js';
import { sqliteFailure } from './sqlite-errors.js';
import { guardStore } from './storage-errors.js';
import {
  checkedTitle,
  defaultBranchTitle,
  duplicateSessionError,
  handleKeyFromRow,
  validHandleKey,
  mergeModelConfig,
  mergeVerdict,
  parseModelConfig,
  SessionChangedError,
  storedBaseUrl,
  stringifyJson,
  unknownSessionError,
} from './session-store-rules.js';
import type { VerdictInput } from './session-store-rules.js';
import { isUndoneExtra, undoRowUpdates, visibleMessages } from './session-undo.js';
import { archivePlan, type InPlaceCompaction, type InPlaceCompactionResult } from './session-archive.js';
import { checkedSearchText, likePattern, searchHitsOf, searchLimit } from './session-search.js';
import { sqliteGatewayUsers } from './sqlite-users.js';
import { checkSqliteFile, openedFileIdentity } from './sqlite-readiness.js';
import { childSessionId } from './store-users.js';

/** Options for {@link openSqliteSessionStore}. */
export interface SqliteSessionStoreOptions {
  /** Clock for created/updated times (epoch ms); tests pass a deterministic one. Default `Date.now`. */
  now?: () => number;
  /** Milliseconds to wait for another process's write lock. Default 5,000. */
  busyTimeoutMs?: number;
  /** Receives each stored message that cannot be decoded when `listMessages` got no callback of its own. */
  onUndecodable?: (row: UndecodableMessage) => void;
}

/** The SQLite `SessionStore` (`$HERMES_HOME/state.db`), plus what diagnostics need. */
export interface SqliteSessionStore extends SessionStore {
  /** The database file path (or `:memory:`). */
  readonly path: string;
  /** Schema version stored in the database (`PRAGMA user_version`). */
  readonly schemaVersion: number;
  /** True when the file could only be opened for reading: reads work, writes fail with one line. */
  readonly readOnly: boolean;
  /** The journal mode SQLite reports (`wal` for a file database). */
  journalMode(): string;
}

/**
 * Opens (creating and migrating when needed) the SQLite session store at `path`. Every write is
 * one `BEGIN IMMEDIATE` transaction: it takes the write lock before reading, so a concurrent
 * process (CLI + gateway on one file) waits on the busy timeout instead of losing an update.
 * The writes a turn makes (`createSession`, `appendMessage(s)`, `writeTurn`) queued in one
 * event-loop turn share one such transaction, each under its own savepoint, and one commit
 * (`sqlite-group-commit.ts`).
 * Throws a one-line `HermesError` naming the path when the file is not a usable SQLite database;
 * every method's driver failure (damaged page, full disk, read-only file) is one line too.
 */
export function openSqliteSessionStore(path: string, options: SqliteSessionStoreOptions = {}): SqliteSessionStore {
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const { database, schemaVersion, readOnly } = openSqliteDatabase(path, busyTimeoutMs);
  const now = options.now ?? Date.now;
  const statements = prepareStatements(database);
  const fileIdentity = path === ':memory:' ? null : openedFileIdentity(path, readOnly);

  const requireSession = (sessionId: string): SessionRecord => {
    const row = statements.sessionById.get(sessionId);
    if (row === undefined) throw unknownSessionError(sessionId);
    return toSessionRecord(row);
  };

  /** Inserts `encoded` after the session's last message; the caller holds the write transaction. */
  const insertRows = (sessionId: string, encoded: readonly EncodedMessage[], firstSeq?: number): number => {
    let seq = firstSeq ?? statements.nextSeq.get(sessionId)?.next ?? 1;
    for (const values of encoded) {
      statements.insertMessage.run(sessionId, seq, ...values);
      seq += 1;
    }
    return seq - 1;
  };

  /** Marks the session written and inserts `encoded`; the caller holds the write transaction. */
  const insertEncoded = (sessionId: string, encoded: readonly EncodedMessage[]): number => {
    if (statements.touchSession.run(now(), sessionId).changes === 0) throw unknownSessionError(sessionId);
    return insertRows(sessionId, encoded);
  };

  const writeLease = (lease: LeaseRecord): void => {
    statements.writeLease.run(...leaseColumns(lease));
  };

  const insertRequest = (sessionId: string, record: Omit<RequestRecord, 'id' | 'sessionId'>): void => {
    statements.insertRequest.run(
      sessionId,
      record.at,
      record.api,
      record.routeKey,
      record.status,
      stringifyJson(record.decisions, 'request decisions'),
      record.error ?? null,
    );
  };

  const createSession = database.transaction((input: NewSession): SessionRecord => {
    const id = input.id ?? newSessionId(new Date(now()));
    if (statements.sessionExists.get(id) !== undefined) throw duplicateSessionError(id);
    if (input.parentSessionId != null && statements.sessionExists.get(input.parentSessionId) === undefined) {
      throw unknownSessionError(input.parentSessionId);
    }
    statements.insertSession.run({
      id,
      title: checkedTitle(input.title) ?? null,
      parentSessionId: input.parentSessionId ?? null,
      now: now(),
      provider: input.provider ?? null,
      model: input.model ?? null,
      baseUrl: storedBaseUrl(input.baseUrl) ?? null,
      api: input.api ?? null,
      modelConfig: stringifyJson(input.modelConfig ?? {}, 'model config'),
    });
    return requireSession(id);
  });

  /** Sets `fields` on the session (and `updated_at`); throws for an unknown session. */
  const updateFields = (id: string, fields: SessionFields): void => {
    const result = statements.updateSession.run({
      id,
      now: now(),
      setTitle: fields.title === undefined ? 0 : 1,
      title: checkedTitle(fields.title) ?? null,
      setProvider: fields.provider === undefined ? 0 : 1,
      provider: fields.provider ?? null,
      setModel: fields.model === undefined ? 0 : 1,
      model: fields.model ?? null,
      setBaseUrl: fields.baseUrl === undefined ? 0 : 1,
      baseUrl: storedBaseUrl(fields.baseUrl) ?? null,
      setApi: fields.api === undefined ? 0 : 1,
      api: fields.api ?? null,
    });
    if (result.changes === 0) throw unknownSessionError(id);
  };

  const appendEncoded = database.transaction(
    (sessionId: string, encoded: readonly EncodedMessage[], fields?: SessionFields): number => {
      const seq = insertEncoded(sessionId, encoded);
      if (fields) updateFields(sessionId, fields);
      return seq;
    },
  );

  const writeTurn = database.transaction(
    (sessionId: string, write: TurnWrite, encoded: readonly EncodedMessage[]): TurnWriteResult => {
      const existing = statements.turnWriteState.get(sessionId);
      if (existing !== undefined && write.createSession !== undefined) {
        throw new SessionChangedError(sessionId, 0, existing[0]);
      }
      if (existing === undefined && write.createSession !== undefined) {
        createSession({ ...write.createSession, id: sessionId });
      }
      const found = existing ?? statements.turnWriteState.get(sessionId);
      if (found === undefined) throw unknownSessionError(sessionId);
      const [version, nextSeq] = found;
      const checksLease = write.acquireLease !== undefined || write.leaseId !== undefined;
      const lease = checkTurnWrite(sessionId, write, checksLease ? leaseOfTurnWriteState(found) : null, now());
      if (existing !== undefined && write.expectedVersion !== undefined && write.expectedVersion !== version) {
        throw new SessionChangedError(sessionId, write.expectedVersion, version);
      }
      if (lease.acquired !== null) writeLease(lease.acquired);
      if (encoded.length > 0) insertRows(sessionId, encoded, nextSeq);
      const written = write.session !== undefined || encoded.length > 0;
      // One version step for the whole write: the fields update, or the touch when no field is set.
      if (write.session !== undefined && setsAnyField(write.session)) updateFields(sessionId, write.session);
      else if (written) statements.touchSession.run(now(), sessionId);
      for (const record of write.requests ?? []) insertRequest(sessionId, record);
      for (const fingerprint of write.fingerprints ?? [])
        statements.addTurnFingerprint.run(fingerprint, sessionId, now());
      if (lease.releaseId !== null) statements.releaseLease.run(sessionId, lease.releaseId);
      return {
        version: version + (written ? 1 : 0),
        lease: lease.releaseId === null ? lease.acquired : null,
      };
    },
  );

  const patchModelConfig = database.transaction((sessionId: string, patch: JsonObject): JsonObject => {
    const row = statements.modelConfig.get(sessionId);
    if (row === undefined) throw unknownSessionError(sessionId);
    const merged = mergeModelConfig(parseModelConfig(row.model_config), patch);
    statements.writeModelConfig.run(stringifyJson(merged, 'model config'), now(), sessionId);
    return merged;
  });

  const forkSession = database.transaction(
    (
      sourceId: string,
      title: string | null | undefined,
      encoded: readonly EncodedMessage[] | undefined,
      modelConfig: JsonObject | undefined,
    ): SessionRecord => {
      const source = requireSession(sourceId);
      const child = createSession({
        id: childSessionId(source.id, new Date(now())),
        title: title === undefined ? defaultBranchTitle(source) : title,
        parentSessionId: source.id,
        provider: source.provider,
        model: source.model,
        baseUrl: source.baseUrl,
        api: source.api,
        modelConfig: modelConfig ?? source.modelConfig,
      });
      if (encoded === undefined) statements.copyMessages.run(child.id, source.id);
      else insertEncoded(child.id, encoded);
      return requireSession(child.id);
    },
  );

  const undoLastExchange = database.transaction((sessionId: string): number => {
    requireSession(sessionId);
    const updates = undoRowUpdates(statements.undoRows.all(sessionId));
    for (const update of updates) statements.writeExtra.run(update.extra, sessionId, update.seq);
    if (updates.length) statements.touchSession.run(now(), sessionId);
    return updates.length;
  });

  const compactInPlace = database.transaction(
    (sessionId: string, compaction: InPlaceCompaction, encoded: readonly EncodedMessage[]): InPlaceCompactionResult => {
      const found = statements.turnWriteState.get(sessionId);
      if (found === undefined) throw unknownSessionError(sessionId);
      const [version] = found;
      checkTurnWrite(
        sessionId,
        compaction,
        compaction.leaseId === undefined ? null : leaseOfTurnWriteState(found),
        now(),
      );
      if (compaction.expectedVersion !== undefined && compaction.expectedVersion !== version) {
        throw new SessionChangedError(sessionId, compaction.expectedVersion, version);
      }
      const rows = statements.archiveRows.all(sessionId);
      const plan = archivePlan(
        rows.map((row) => ({ key: row.seq, archived: row.archived, undone: isUndoneExtra(row.extra) })),
        compaction.from,
        compaction.to,
      );
      for (const seq of plan.archive) statements.markArchived.run(plan.compaction, sessionId, seq);
      for (const seq of plan.replace) statements.deleteMessage.run(sessionId, seq);
      insertRows(sessionId, encoded);
      if (compaction.modelConfig !== undefined) {
        const merged = mergeModelConfig(
          parseModelConfig(statements.modelConfig.get(sessionId)?.model_config),
          compaction.modelConfig,
        );
        statements.writeModelConfig.run(stringifyJson(merged, 'model config'), now(), sessionId);
      } else statements.touchSession.run(now(), sessionId);
      return { compaction: plan.compaction, archived: plan.archive.length, version: version + 1 };
    },
  );

  const recordVerdict = database.transaction((input: VerdictInput): VerdictRecord => {
    const existingRow = statements.verdictByKey.get(input.routeKey);
    const merged = mergeVerdict(existingRow === undefined ? null : toVerdictRecord(existingRow), input, now());
    statements.upsertVerdict.run({ ...merged, fields: JSON.stringify(merged.fields) });
    return merged;
  });

  const acquireLease = database.transaction((sessionId: string, claim: LeaseClaim): LeaseRecord => {
    if (statements.sessionExists.get(sessionId) === undefined) throw unknownSessionError(sessionId);
    const at = now();
    const row = statements.leaseBySession.get(sessionId);
    const existing = row === undefined ? null : toLeaseRecord(row);
    if (!mayTakeLease(existing, claim, at)) throw new SessionBusyError(existing as LeaseRecord);
    const lease = leaseFromClaim(sessionId, claim, at);
    writeLease(lease);
    return lease;
  });

  const renewLease = database.transaction((sessionId: string, leaseId: string, ttlMs: number): LeaseRecord | null => {
    const at = now();
    if (statements.renewLease.run(at, at + ttlMs, sessionId, leaseId).changes === 0) return null;
    const row = statements.leaseBySession.get(sessionId);
    return row === undefined ? null : toLeaseRecord(row);
  });

  const turnCommits = groupCommit(database);

  const store: SqliteSessionStore = {
    path,
    schemaVersion,
    readOnly,
    journalMode: () => String(database.pragma('journal_mode', { simple: true })),

    createSession: async (input = {}) => turnCommits.enqueue(() => createSession.immediate(input)),
    getSession: async (id) => {
      const row = statements.sessionById.get(id);
      return row === undefined ? null : toSessionRecord(row);
    },
    listSessions: async (listOptions = {}) => {
      const limit = listOptions.limit ?? -1;
      if (listOptions.owner === undefined) return statements.sessionsNewest(limit).all().map(toSessionRecord);
      const prefix = `${listOptions.owner}/`;
      return statements.ownedSessionsNewest(limit).all(prefix, prefix).map(toSessionRecord);
    },
    latestSession: async () => {
      const row = statements.sessionsNewest(1).get();
      return row === undefined ? null : toSessionRecord(row);
    },
    updateSession: async (id, fields) => updateFields(id, fields),
    deleteSession: async (id) => statements.deleteSession.run(id).changes > 0,
    childSessions: async (id) => statements.childSessions.all(id).map(toSessionRecord),

    // Encoding happens before BEGIN so the write lock is held only for the inserts.
    appendMessage: async (sessionId, message) => {
      const encoded = [encodeMessage(message)];
      return turnCommits.enqueue(() => appendEncoded.immediate(sessionId, encoded));
    },
    appendMessages: async (sessionId, messages, appendOptions = {}) => {
      const encoded = messages.map(encodeMessage);
      await turnCommits.enqueue(() => appendEncoded.immediate(sessionId, encoded, appendOptions.session));
    },
    listMessages: async (sessionId, listOptions = {}) => {
      const report = listOptions.onUndecodable ?? options.onUndecodable ?? (() => undefined);
      const page = listOptions.includeArchived ? statements.listAllMessagesPage : statements.listMessagesPage;
      const messages: Message[] = [];
      // SPEC §26.7: a long history is read and decoded a page at a time, the event loop free
      // between pages, so one long session never stalls the others' turns.
      for (let afterSeq = 0; ;) {
        const rows = page.all(sessionId, afterSeq);
        for (const message of decodeMessageRows(rows, (row) => report({ sessionId, ...row }))) messages.push(message);
        if (rows.length < MESSAGE_PAGE_ROWS) break;
        afterSeq = Number((rows.at(-1) as unknown[]).at(-1));
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      return visibleMessages(messages, listOptions.includeUndone);
    },
    undoLastExchange: async (sessionId) => undoLastExchange.immediate(sessionId),
    // Encoding happens before BEGIN, as for appends.
    compactInPlace: async (sessionId, compaction) => {
      const encoded = compaction.messages.map(encodeMessage);
      return turnCommits.enqueue(() => compactInPlace.immediate(sessionId, compaction, encoded));
    },
    searchMessages: async (text, searchOptions) => {
      const limit = searchLimit(searchOptions);
      const rows = statements.searchMessages.all({
        pattern: likePattern(checkedSearchText(text)),
        session: searchOptions?.sessionId ?? null,
        limit,
      });
      return searchHitsOf(rows, text);
    },

    // Encoding happens before BEGIN, as for appends.
    // Group-committed with the other turn writes of this event-loop turn (sqlite-group-commit.ts).
    writeTurn: async (sessionId, write) => {
      const encoded = (write.messages ?? []).map(encodeMessage);
      return turnCommits.enqueue(() => writeTurn.immediate(sessionId, write, encoded));
    },

    patchModelConfig: async (sessionId, patch) => patchModelConfig.immediate(sessionId, patch),

    forkSession: async (sourceId, forkOptions = {}) =>
      forkSession.immediate(
        sourceId,
        forkOptions.title,
        forkOptions.messages?.map(encodeMessage),
        forkOptions.modelConfig,
      ),

    recordVerdict: async (input) => recordVerdict.immediate(input),
    listVerdicts: async () => statements.listVerdicts.all().map(toVerdictRecord),
    getVerdict: async (routeKey) => {
      const row = statements.verdictByKey.get(routeKey);
      return row === undefined ? null : toVerdictRecord(row);
    },
    forgetVerdicts: async (routeKey) =>
      routeKey === 'all' ? statements.forgetAllVerdicts.run().changes : statements.forgetVerdict.run(routeKey).changes,

    recordRequest: async (record) => {
      if (statements.sessionExists.get(record.sessionId) === undefined) throw unknownSessionError(record.sessionId);
      const { sessionId, ...rest } = record;
      insertRequest(sessionId, rest);
    },
    listRequests: async (sessionId) => statements.listRequests.all(sessionId).map(toRequestRecord),

    listHandleKeys: async () => statements.listHandleKeys.all().map(handleKeyFromRow),
    addHandleKey: async (key) => {
      const valid = validHandleKey(key);
      statements.addHandleKey.run(valid.id, valid.secret, valid.createdAt);
      return statements.listHandleKeys.all().map(handleKeyFromRow);
    },
    retireHandleKeys: async (keepId) => statements.retireHandleKeys.run(keepId).changes,

    addTurnFingerprint: async (sessionId, fingerprint) => {
      if (statements.sessionExists.get(sessionId) === undefined) throw unknownSessionError(sessionId);
      statements.addTurnFingerprint.run(fingerprint, sessionId, now());
    },
    sessionsWithTurn: async (fingerprint, limit) =>
      statements
        .sessionsWithTurn(limit)
        .all(fingerprint)
        .map((row) => row.session_id),
    sessionHoldsTurn: async (sessionId, fingerprint) =>
      statements.sessionHoldsTurn.get(fingerprint, sessionId) !== undefined,

    acquireLease: async (sessionId, claim) => acquireLease.immediate(sessionId, claim),
    renewLease: async (sessionId, leaseId, ttlMs) => renewLease.immediate(sessionId, leaseId, ttlMs),
    releaseLease: async (sessionId, leaseId) => statements.releaseLease.run(sessionId, leaseId).changes > 0,
    readLease: async (sessionId) => {
      const row = statements.leaseBySession.get(sessionId);
      return row === undefined ? null : toLeaseRecord(row);
    },

    ...sqliteGatewayUsers(database),

    describe: async () => ({ kind: 'sqlite', schemaVersion, location: path }),
    ping: async () => {
      if (fileIdentity !== null) checkSqliteFile(path, fileIdentity);
      statements.sessionExists.get('');
    },

    close: async () => {
      if (!database.open) return;
      turnCommits.flush();
      database.close();
    },
  };
  return guardStore(store, (error) => sqliteFailure(error, path, busyTimeoutMs));
}

/** Whether `fields` sets anything (a key given as undefined sets nothing, as in updateFields). */
function setsAnyField(fields: SessionFields): boolean {
  for (const key in fields) if (fields[key as keyof SessionFields] !== undefined) return true;
  return false;
}
