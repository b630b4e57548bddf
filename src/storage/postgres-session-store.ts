import type { PoolClient, QueryConfig } from 'pg';
import { newSessionId } from '../core/ids.js';
import { postgresFailure, redactDatabaseUrl } from './postgres-errors.js';
import { createPostgresPool } from './postgres-pool.js';
import { ADVISORY_LOCK_CLASS } from './postgres-schema.js';
import {
  insertMessagesText,
  leaseFromRow,
  requestFromRow,
  sessionFromRow,
  SQL,
  verdictFromRow,
  type NamedQuery,
  type PostgresSessionRow,
} from './postgres-statements.js';
import {
  checkTurnWrite,
  leaseColumns,
  leaseFromClaim,
  mayTakeLease,
  SessionBusyError,
  type LeaseRecord,
} from './session-lease.js';
import type {
  NewSession,
  RequestRecord,
  SessionFields,
  SessionRecord,
  SessionStore,
  TurnWrite,
  UndecodableMessage,
} from './session-store.js';
import {
  checkedTitle,
  defaultBranchTitle,
  duplicateSessionError,
  handleKeyFromRow,
  mergeModelConfig,
  mergeVerdict,
  parseModelConfig,
  SessionChangedError,
  storedBaseUrl,
  stringifyJson,
  unknownSessionError,
  validHandleKey,
  type HandleKeyRow,
} from './session-store-rules.js';
import { decodeMessageRows, encodeMessage, type EncodedMessage } from './sqlite-message-codec.js';
import { guardStore } from './storage-errors.js';
import { isUndoneExtra, undoRowUpdates, visibleMessages, type UndoRow } from './session-undo.js';
import { archivePlan, type InPlaceCompaction, type InPlaceCompactionResult } from './session-archive.js';
import { checkedSearchText, likePattern, searchHitsOf, searchLimit, type SearchRow } from './session-search.js';
import { postgresGatewayUsers } from './postgres-users.js';
import { childSessionId } from './store-users.js';

/** Options for {@link openPostgresSessionStore}. */
export interface PostgresSessionStoreOptions {
  /** Clock for created/updated times and lease expiry (epoch ms). Default `Date.now`. */
  now?: () => number;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /** Receives each stored message that cannot be decoded when `listMessages` got no callback of its own. */
  onUndecodable?: (row: UndecodableMessage) => void;
}

/** The PostgreSQL `SessionStore`, plus what diagnostics need. */
export interface PostgresSessionStore extends SessionStore {
  /** The database URL without credentials. */
  readonly location: string;
}

/** Messages per INSERT statement (PostgreSQL allows 65,535 parameters per statement). */
const INSERT_BATCH = 500;

/**
 * Opens the PostgreSQL session store at `url` (`postgres://user:password@host:port/database`),
 * for gateway fleets (SPEC §23.6): the same contract, codec and conformance suite as the SQLite
 * store. The pool connects lazily; the first call migrates (under an advisory lock, so a fleet
 * starting together migrates once). Every write is one transaction; appends to a session take
 * that session's row lock, so concurrent appends never share a sequence number. Driver failures
 * are one-line `StorageError`s naming the URL without its password.
 */
export function openPostgresSessionStore(url: string, options: PostgresSessionStoreOptions = {}): PostgresSessionStore {
  const location = redactDatabaseUrl(url);
  const now = options.now ?? Date.now;
  const { pool, ready, transaction } = createPostgresPool(url, location, options.poolSize ?? 10);
  let schemaVersion = 0;
  const whenReady = async (): Promise<void> => {
    schemaVersion = await ready();
  };

  const run = async <Row extends object = Record<string, unknown>>(
    statement: NamedQuery | QueryConfig,
    values: unknown[] = [],
    client?: PoolClient,
  ) => {
    if (client === undefined) await whenReady();
    return (client ?? pool).query<Row>({ ...statement, values });
  };

  const readSession = async (id: string, client?: PoolClient): Promise<SessionRecord | null> => {
    const row = (await run<PostgresSessionRow>(SQL.sessionById, [id], client)).rows[0];
    return row === undefined ? null : sessionFromRow(row);
  };

  /** Inserts `encoded` after the session's last message; the caller holds the transaction. */
  const insertEncoded = async (client: PoolClient, sessionId: string, encoded: readonly EncodedMessage[]) => {
    // Taking the session row's lock first serializes appends to one session across connections.
    if ((await run(SQL.touchSession, [now(), sessionId], client)).rowCount === 0) throw unknownSessionError(sessionId);
    return insertRows(client, sessionId, encoded);
  };

  /** Inserts `encoded` after the last message; the caller holds the transaction and the session row's lock. */
  const insertRows = async (client: PoolClient, sessionId: string, encoded: readonly EncodedMessage[]) => {
    let seq = (await run<{ next: number }>(SQL.nextSeq, [sessionId], client)).rows[0]?.next ?? 1;
    for (let start = 0; start < encoded.length; start += INSERT_BATCH) {
      const batch = encoded.slice(start, start + INSERT_BATCH);
      const values: unknown[] = [sessionId];
      for (const row of batch) values.push(seq++, ...row);
      await client.query({ text: insertMessagesText(batch.length), values });
    }
    return seq - 1;
  };

  /** Sets `fields` on the session (and `updated_at`); throws for an unknown session. */
  const updateFields = async (id: string, fields: SessionFields, client?: PoolClient): Promise<void> => {
    const set = (value: unknown) => value !== undefined;
    const result = await run(
      SQL.updateSession,
      [
        id,
        set(fields.title),
        checkedTitle(fields.title) ?? null,
        set(fields.provider),
        fields.provider ?? null,
        set(fields.model),
        fields.model ?? null,
        set(fields.baseUrl),
        storedBaseUrl(fields.baseUrl) ?? null,
        set(fields.api),
        fields.api ?? null,
        now(),
      ],
      client,
    );
    if (result.rowCount === 0) throw unknownSessionError(id);
  };

  const insertRequest = async (
    client: PoolClient | undefined,
    sessionId: string,
    record: Omit<RequestRecord, 'id' | 'sessionId'>,
  ): Promise<void> => {
    const decisions = stringifyJson(record.decisions, 'request decisions');
    await run(
      SQL.insertRequest,
      [sessionId, record.at, record.api, record.routeKey, record.status, decisions, record.error ?? null],
      client,
    );
  };

  const writeLease = async (client: PoolClient, lease: LeaseRecord): Promise<void> => {
    await run(SQL.writeLease, leaseColumns(lease), client);
  };

  /** One turn write: the session row's lock orders it with every other write to the session. */
  const writeTurn = async (
    client: PoolClient,
    sessionId: string,
    write: TurnWrite,
    encoded: readonly EncodedMessage[],
  ) => {
    let locked = (await run<{ version: number }>(SQL.lockSession, [sessionId], client)).rows[0];
    if (locked !== undefined && write.createSession !== undefined) {
      throw new SessionChangedError(sessionId, 0, locked.version);
    }
    if (locked === undefined && write.createSession !== undefined) {
      // Two creators of one id at once: the primary key refuses the second, which reads it again.
      await insertSession(client, { ...write.createSession, id: sessionId }).catch((error: unknown) => {
        if ((error as { code?: unknown }).code === '23505') throw new SessionChangedError(sessionId, 0, 1);
        throw error;
      });
      locked = (await run<{ version: number }>(SQL.lockSession, [sessionId], client)).rows[0];
    }
    if (locked === undefined) throw unknownSessionError(sessionId);
    const leaseRow =
      write.acquireLease !== undefined || write.leaseId !== undefined
        ? (await run(SQL.leaseBySession, [sessionId], client)).rows[0]
        : undefined;
    const lease = checkTurnWrite(sessionId, write, leaseRow === undefined ? null : leaseFromRow(leaseRow), now());
    if (
      write.createSession === undefined &&
      write.expectedVersion !== undefined &&
      write.expectedVersion !== locked.version
    ) {
      throw new SessionChangedError(sessionId, write.expectedVersion, locked.version);
    }
    if (lease.acquired !== null) await writeLease(client, lease.acquired);
    if (encoded.length > 0) await insertRows(client, sessionId, encoded);
    const written = write.session !== undefined || encoded.length > 0;
    // One version step for the whole write: the fields update or the touch.
    if (write.session !== undefined) await updateFields(sessionId, write.session, client);
    else if (written) await run(SQL.touchSession, [now(), sessionId], client);
    for (const record of write.requests ?? []) await insertRequest(client, sessionId, record);
    for (const fingerprint of write.fingerprints ?? []) {
      await run(SQL.addTurnFingerprint, [fingerprint, sessionId, now()], client);
    }
    if (lease.releaseId !== null) await run(SQL.releaseLease, [sessionId, lease.releaseId], client);
    return { version: locked.version + (written ? 1 : 0), lease: lease.releaseId === null ? lease.acquired : null };
  };

  /** One in-place compaction: under the session row's lock, like every other write to the session. */
  const compactInPlace = async (
    client: PoolClient,
    sessionId: string,
    compaction: InPlaceCompaction,
    encoded: readonly EncodedMessage[],
  ): Promise<InPlaceCompactionResult> => {
    const locked = (await run<{ model_config: string; version: number }>(SQL.lockSession, [sessionId], client)).rows[0];
    if (locked === undefined) throw unknownSessionError(sessionId);
    const leaseRow =
      compaction.leaseId !== undefined ? (await run(SQL.leaseBySession, [sessionId], client)).rows[0] : undefined;
    checkTurnWrite(sessionId, compaction, leaseRow === undefined ? null : leaseFromRow(leaseRow), now());
    if (compaction.expectedVersion !== undefined && compaction.expectedVersion !== locked.version) {
      throw new SessionChangedError(sessionId, compaction.expectedVersion, locked.version);
    }
    const rows = (
      await run<{ seq: number; archived: number | null; extra: string | null }>(SQL.archiveRows, [sessionId], client)
    ).rows;
    const plan = archivePlan(
      rows.map((row) => ({ key: row.seq, archived: row.archived, undone: isUndoneExtra(row.extra) })),
      compaction.from,
      compaction.to,
    );
    if (plan.archive.length) await run(SQL.markArchived, [plan.compaction, sessionId, plan.archive], client);
    if (plan.replace.length) await run(SQL.deleteMessages, [sessionId, plan.replace], client);
    await insertRows(client, sessionId, encoded);
    if (compaction.modelConfig !== undefined) {
      const merged = mergeModelConfig(parseModelConfig(locked.model_config), compaction.modelConfig);
      await run(SQL.writeModelConfig, [stringifyJson(merged, 'model config'), now(), sessionId], client);
    } else await run(SQL.touchSession, [now(), sessionId], client);
    return { compaction: plan.compaction, archived: plan.archive.length, version: locked.version + 1 };
  };

  const insertSession = async (client: PoolClient, input: NewSession): Promise<string> => {
    const id = input.id ?? newSessionId(new Date(now()));
    if ((await run(SQL.sessionExists, [id], client)).rowCount) throw duplicateSessionError(id);
    if (input.parentSessionId != null && !(await run(SQL.sessionExists, [input.parentSessionId], client)).rowCount) {
      throw unknownSessionError(input.parentSessionId);
    }
    await run(
      SQL.insertSession,
      [
        id,
        checkedTitle(input.title) ?? null,
        input.parentSessionId ?? null,
        now(),
        input.provider ?? null,
        input.model ?? null,
        storedBaseUrl(input.baseUrl) ?? null,
        input.api ?? null,
        stringifyJson(input.modelConfig ?? {}, 'model config'),
      ],
      client,
    );
    return id;
  };

  const store: PostgresSessionStore = {
    location,

    createSession: async (input = {}) =>
      transaction(async (client) => (await readSession(await insertSession(client, input), client)) as SessionRecord),
    getSession: async (id) => readSession(id),
    listSessions: async (listOptions = {}) => {
      const limit = listOptions.limit === undefined || listOptions.limit < 0 ? null : listOptions.limit;
      if (listOptions.owner !== undefined) {
        const owned = [limit, `${listOptions.owner}/`];
        return (await run<PostgresSessionRow>(SQL.ownedSessionsNewest, owned)).rows.map(sessionFromRow);
      }
      return (await run<PostgresSessionRow>(SQL.sessionsNewest, [limit])).rows.map(sessionFromRow);
    },
    latestSession: async () => {
      const row = (await run<PostgresSessionRow>(SQL.sessionsNewest, [1])).rows[0];
      return row === undefined ? null : sessionFromRow(row);
    },
    updateSession: async (id, fields) => updateFields(id, fields),
    deleteSession: async (id) => ((await run(SQL.deleteSession, [id])).rowCount ?? 0) > 0,
    childSessions: async (id) => (await run<PostgresSessionRow>(SQL.childSessions, [id])).rows.map(sessionFromRow),

    appendMessage: async (sessionId, message) => {
      const encoded = [encodeMessage(message)];
      return transaction((client) => insertEncoded(client, sessionId, encoded));
    },
    appendMessages: async (sessionId, messages, appendOptions = {}) => {
      const encoded = messages.map(encodeMessage);
      const fields = appendOptions.session;
      await transaction(async (client) => {
        await insertEncoded(client, sessionId, encoded);
        if (fields) await updateFields(sessionId, fields, client);
      });
    },
    listMessages: async (sessionId, listOptions = {}) => {
      const report = listOptions.onUndecodable ?? options.onUndecodable ?? (() => undefined);
      const statement = listOptions.includeArchived ? SQL.listAllMessages : SQL.listMessages;
      const result = await run<unknown[]>({ ...statement, rowMode: 'array' } as QueryConfig, [sessionId]);
      const messages = decodeMessageRows(result.rows as unknown[][], (row) => report({ sessionId, ...row }));
      return visibleMessages(messages, listOptions.includeUndone);
    },
    undoLastExchange: async (sessionId) =>
      transaction(async (client) => {
        // The session row's lock serializes this with appends to the same session.
        if ((await run(SQL.lockSession, [sessionId], client)).rowCount === 0) throw unknownSessionError(sessionId);
        const updates = undoRowUpdates((await run<UndoRow>(SQL.undoRows, [sessionId], client)).rows);
        for (const update of updates) await run(SQL.writeExtra, [update.extra, sessionId, update.seq], client);
        if (updates.length) await run(SQL.touchSession, [now(), sessionId], client);
        return updates.length;
      }),

    writeTurn: async (sessionId, write) => {
      const encoded = (write.messages ?? []).map(encodeMessage);
      return transaction((client) => writeTurn(client, sessionId, write, encoded));
    },

    compactInPlace: async (sessionId, compaction) => {
      const encoded = compaction.messages.map(encodeMessage);
      return transaction((client) => compactInPlace(client, sessionId, compaction, encoded));
    },
    searchMessages: async (text, searchOptions) => {
      const limit = searchLimit(searchOptions);
      const pattern = likePattern(checkedSearchText(text));
      const rows = (await run<SearchRow>(SQL.searchMessages, [pattern, searchOptions?.sessionId ?? null, limit])).rows;
      return searchHitsOf(rows, text);
    },

    patchModelConfig: async (sessionId, patch) =>
      transaction(async (client) => {
        const row = (await run<{ model_config: string }>(SQL.lockSession, [sessionId], client)).rows[0];
        if (row === undefined) throw unknownSessionError(sessionId);
        const merged = mergeModelConfig(parseModelConfig(row.model_config), patch);
        await run(SQL.writeModelConfig, [stringifyJson(merged, 'model config'), now(), sessionId], client);
        return merged;
      }),

    forkSession: async (sourceId, forkOptions = {}) => {
      const encoded = forkOptions.messages?.map(encodeMessage);
      return transaction(async (client) => {
        const source = await readSession(sourceId, client);
        if (source === null) throw unknownSessionError(sourceId);
        const childId = await insertSession(client, {
          id: childSessionId(source.id, new Date(now())),
          title: forkOptions.title === undefined ? defaultBranchTitle(source) : forkOptions.title,
          parentSessionId: source.id,
          provider: source.provider,
          model: source.model,
          baseUrl: source.baseUrl,
          api: source.api,
          modelConfig: forkOptions.modelConfig ?? source.modelConfig,
        });
        if (encoded === undefined) await run(SQL.copyMessages, [childId, source.id], client);
        else await insertEncoded(client, childId, encoded);
        return (await readSession(childId, client)) as SessionRecord;
      });
    },

    recordVerdict: async (input) =>
      transaction(async (client) => {
        // One route key's merge at a time across the fleet (the row may not exist yet to lock).
        await run(SQL.verdictLock, [ADVISORY_LOCK_CLASS, input.routeKey], client);
        const existing = (await run(SQL.verdictByKey, [input.routeKey], client)).rows[0];
        const merged = mergeVerdict(existing === undefined ? null : verdictFromRow(existing), input, now());
        await run(
          SQL.upsertVerdict,
          [
            merged.routeKey,
            merged.provider,
            merged.host,
            merged.model,
            JSON.stringify(merged.fields),
            merged.firstSeen,
            merged.updatedAt,
            merged.errorText,
          ],
          client,
        );
        return merged;
      }),
    listVerdicts: async () => (await run(SQL.listVerdicts)).rows.map(verdictFromRow),
    getVerdict: async (routeKey) => {
      const row = (await run(SQL.verdictByKey, [routeKey])).rows[0];
      return row === undefined ? null : verdictFromRow(row);
    },
    forgetVerdicts: async (routeKey) =>
      (routeKey === 'all' ? await run(SQL.forgetAllVerdicts) : await run(SQL.forgetVerdict, [routeKey])).rowCount ?? 0,

    recordRequest: async (record) => {
      const { sessionId, ...rest } = record;
      if (!(await run(SQL.sessionExists, [sessionId])).rowCount) throw unknownSessionError(sessionId);
      await insertRequest(undefined, sessionId, rest);
    },
    listRequests: async (sessionId) => (await run(SQL.listRequests, [sessionId])).rows.map(requestFromRow),

    listHandleKeys: async () => (await run<HandleKeyRow>(SQL.listHandleKeys)).rows.map(handleKeyFromRow),
    addHandleKey: async (key) => {
      const valid = validHandleKey(key);
      await run(SQL.addHandleKey, [valid.id, valid.secret, valid.createdAt]);
      return (await run<HandleKeyRow>(SQL.listHandleKeys)).rows.map(handleKeyFromRow);
    },
    retireHandleKeys: async (keepId) => (await run(SQL.retireHandleKeys, [keepId])).rowCount ?? 0,

    addTurnFingerprint: async (sessionId, fingerprint) => {
      if (!(await run(SQL.sessionExists, [sessionId])).rowCount) throw unknownSessionError(sessionId);
      await run(SQL.addTurnFingerprint, [fingerprint, sessionId, now()]);
    },
    sessionsWithTurn: async (fingerprint, limit) =>
      (await run<{ session_id: string }>(SQL.sessionsWithTurn, [fingerprint, limit])).rows.map((row) => row.session_id),
    sessionHoldsTurn: async (sessionId, fingerprint) =>
      ((await run(SQL.sessionHoldsTurn, [fingerprint, sessionId])).rowCount ?? 0) > 0,

    acquireLease: async (sessionId, claim) =>
      transaction(async (client) => {
        // The session row's lock orders claimants; the lease row is then read and written under it.
        if (!(await run(SQL.lockSession, [sessionId], client)).rowCount) throw unknownSessionError(sessionId);
        const at = now();
        const row = (await run(SQL.leaseBySession, [sessionId], client)).rows[0];
        const existing = row === undefined ? null : leaseFromRow(row);
        if (!mayTakeLease(existing, claim, at)) throw new SessionBusyError(existing as NonNullable<typeof existing>);
        const lease = leaseFromClaim(sessionId, claim, at);
        await writeLease(client, lease);
        return lease;
      }),
    renewLease: async (sessionId, leaseId, ttlMs) => {
      const at = now();
      const row = (await run(SQL.renewLease, [at, at + ttlMs, sessionId, leaseId])).rows[0];
      return row === undefined ? null : leaseFromRow(row);
    },
    releaseLease: async (sessionId, leaseId) => ((await run(SQL.releaseLease, [sessionId, leaseId])).rowCount ?? 0) > 0,
    readLease: async (sessionId) => {
      const row = (await run(SQL.leaseBySession, [sessionId])).rows[0];
      return row === undefined ? null : leaseFromRow(row);
    },

    ...postgresGatewayUsers({ run, transaction }),

    ping: async () => {
      await whenReady();
      await pool.query('SELECT 1');
    },

    describe: async () => {
      await whenReady();
      return { kind: 'postgres', schemaVersion, location };
    },

    close: async () => {
      if (!pool.ended) await pool.end();
    },
  };
  return guardStore(store, (error) => postgresFailure(error, location));
}
