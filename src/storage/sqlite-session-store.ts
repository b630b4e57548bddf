import type Database from 'better-sqlite3';
import type { JsonObject } from '../core/json.js';
import { newSessionId } from '../core/ids.js';
import type { NewSession, RequestRecord, SessionRecord, SessionStore, VerdictRecord } from './session-store.js';
import { DEFAULT_BUSY_TIMEOUT_MS, openSqliteDatabase } from './sqlite-open.js';
import {
  decodeMessageRow,
  encodeMessage,
  MESSAGE_SELECT_COLUMNS,
  MESSAGE_VALUE_COLUMNS,
} from './sqlite-message-codec.js';
import type { EncodedMessage, MessageRow } from './sqlite-message-codec.js';
import {
  defaultBranchTitle,
  duplicateSessionError,
  mergeModelConfig,
  mergeVerdict,
  parseModelConfig,
  stringifyJson,
  unknownSessionError,
} from './session-store-rules.js';
import type { VerdictInput } from './session-store-rules.js';

/** Options for {@link openSqliteSessionStore}. */
export interface SqliteSessionStoreOptions {
  /** Clock for created/updated times (epoch ms); tests pass a deterministic one. Default `Date.now`. */
  now?: () => number;
  /** Milliseconds to wait for another process's write lock. Default 5,000. */
  busyTimeoutMs?: number;
}

/** The SQLite `SessionStore` (`$HERMES_HOME/state.db`), plus what diagnostics need. */
export interface SqliteSessionStore extends SessionStore {
  /** The database file path (or `:memory:`). */
  readonly path: string;
  /** Schema version stored in the database (`PRAGMA user_version`). */
  readonly schemaVersion: number;
  /** The journal mode SQLite reports (`wal` for a file database). */
  journalMode(): string;
}

interface SessionRow {
  id: string;
  title: string | null;
  parent_session_id: string | null;
  created_at: number;
  updated_at: number;
  provider: string | null;
  model: string | null;
  base_url: string | null;
  api: string | null;
  model_config: string | null;
  message_count: number;
}

interface VerdictRow {
  route_key: string;
  provider: string;
  host: string;
  model: string;
  fields: string;
  first_seen: number;
  updated_at: number;
  error_text: string;
}

interface RequestRow {
  id: number;
  session_id: string;
  at: number;
  api: string;
  route_key: string;
  status: number;
  decisions: string;
}

// One query per listing: the count is a correlated subquery over the (session_id, seq) index,
// never one extra query per session.
const SESSION_SELECT = `SELECT s.id, s.title, s.parent_session_id, s.created_at, s.updated_at, s.provider,
  s.model, s.base_url, s.api, s.model_config,
  (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS message_count FROM sessions s`;
// Ties on updated_at (same millisecond) go to the row written last.
const NEWEST_FIRST = 'ORDER BY s.updated_at DESC, s.rowid DESC';

function toSessionRecord(row: SessionRow): SessionRecord {
  return {
    id: row.id,
    title: row.title,
    parentSessionId: row.parent_session_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    provider: row.provider,
    model: row.model,
    baseUrl: row.base_url,
    api: row.api,
    modelConfig: parseModelConfig(row.model_config),
    messageCount: row.message_count,
  };
}

function toVerdictRecord(row: VerdictRow): VerdictRecord {
  return {
    routeKey: row.route_key,
    provider: row.provider,
    host: row.host,
    model: row.model,
    fields: JSON.parse(row.fields) as string[],
    firstSeen: row.first_seen,
    updatedAt: row.updated_at,
    errorText: row.error_text,
  };
}

function toRequestRecord(row: RequestRow): RequestRecord {
  return {
    id: row.id,
    sessionId: row.session_id,
    at: row.at,
    api: row.api,
    routeKey: row.route_key,
    status: row.status,
    decisions: JSON.parse(row.decisions) as JsonObject[],
  };
}

/** Builds every prepared statement once per connection. */
function prepareStatements(database: Database.Database) {
  const valuePlaceholders = MESSAGE_VALUE_COLUMNS.map(() => '?').join(', ');
  const valueColumns = MESSAGE_VALUE_COLUMNS.join(', ');
  return {
    sessionById: database.prepare<[string], SessionRow>(`${SESSION_SELECT} WHERE s.id = ?`),
    sessionsNewest: database.prepare<[number], SessionRow>(`${SESSION_SELECT} ${NEWEST_FIRST} LIMIT ?`),
    childSessions: database.prepare<[string], SessionRow>(
      `${SESSION_SELECT} WHERE s.parent_session_id = ? ORDER BY s.created_at, s.rowid`,
    ),
    insertSession: database.prepare(
      `INSERT INTO sessions (id, title, parent_session_id, created_at, updated_at, provider, model, base_url, api, model_config)
       VALUES (@id, @title, @parentSessionId, @now, @now, @provider, @model, @baseUrl, @api, @modelConfig)`,
    ),
    updateSession: database.prepare(
      `UPDATE sessions SET
         title = CASE WHEN @setTitle THEN @title ELSE title END,
         provider = CASE WHEN @setProvider THEN @provider ELSE provider END,
         model = CASE WHEN @setModel THEN @model ELSE model END,
         base_url = CASE WHEN @setBaseUrl THEN @baseUrl ELSE base_url END,
         api = CASE WHEN @setApi THEN @api ELSE api END,
         updated_at = @now
       WHERE id = @id`,
    ),
    touchSession: database.prepare<[number, string]>('UPDATE sessions SET updated_at = ? WHERE id = ?'),
    deleteSession: database.prepare<[string]>('DELETE FROM sessions WHERE id = ?'),
    modelConfig: database.prepare<[string], { model_config: string | null }>(
      'SELECT model_config FROM sessions WHERE id = ?',
    ),
    writeModelConfig: database.prepare<[string, number, string]>(
      'UPDATE sessions SET model_config = ?, updated_at = ? WHERE id = ?',
    ),
    nextSeq: database.prepare<[string], { next: number }>(
      'SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM messages WHERE session_id = ?',
    ),
    insertMessage: database.prepare<[string, number, ...EncodedMessage]>(
      `INSERT INTO messages (session_id, seq, ${valueColumns}) VALUES (?, ?, ${valuePlaceholders})`,
    ),
    // A branch copies rows as stored, column for column: nothing is decoded or re-encoded.
    copyMessages: database.prepare<[string, string]>(
      `INSERT INTO messages (session_id, seq, ${valueColumns})
       SELECT ?, seq, ${valueColumns} FROM messages WHERE session_id = ? ORDER BY seq`,
    ),
    listMessages: database.prepare<[string], MessageRow>(
      `SELECT ${MESSAGE_SELECT_COLUMNS} FROM messages WHERE session_id = ? ORDER BY seq`,
    ),
    verdictByKey: database.prepare<[string], VerdictRow>('SELECT * FROM verdicts WHERE route_key = ?'),
    listVerdicts: database.prepare<[], VerdictRow>('SELECT * FROM verdicts ORDER BY route_key'),
    upsertVerdict: database.prepare(
      `INSERT INTO verdicts (route_key, provider, host, model, fields, first_seen, updated_at, error_text)
       VALUES (@routeKey, @provider, @host, @model, @fields, @firstSeen, @updatedAt, @errorText)
       ON CONFLICT (route_key) DO UPDATE SET fields = excluded.fields, updated_at = excluded.updated_at,
         error_text = excluded.error_text`,
    ),
    forgetVerdict: database.prepare<[string]>('DELETE FROM verdicts WHERE route_key = ?'),
    forgetAllVerdicts: database.prepare<[]>('DELETE FROM verdicts'),
    sessionExists: database.prepare<[string], { found: number }>('SELECT 1 AS found FROM sessions WHERE id = ?'),
    insertRequest: database.prepare<[string, number, string, string, number, string]>(
      'INSERT INTO requests (session_id, at, api, route_key, status, decisions) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    listRequests: database.prepare<[string], RequestRow>('SELECT * FROM requests WHERE session_id = ? ORDER BY id'),
  };
}

/**
 * Opens (creating and migrating when needed) the SQLite session store at `path`. Every write is
 * one `BEGIN IMMEDIATE` transaction: it takes the write lock before reading, so a concurrent
 * process (CLI + gateway on one file) waits on the busy timeout instead of losing an update.
 * Throws a `HermesError` naming the path when the file is not a usable SQLite database.
 */
export function openSqliteSessionStore(path: string, options: SqliteSessionStoreOptions = {}): SqliteSessionStore {
  const { database, schemaVersion } = openSqliteDatabase(path, options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS);
  const now = options.now ?? Date.now;
  const statements = prepareStatements(database);

  const requireSession = (sessionId: string): SessionRecord => {
    const row = statements.sessionById.get(sessionId);
    if (row === undefined) throw unknownSessionError(sessionId);
    return toSessionRecord(row);
  };

  /** Inserts `encoded` after the session's last message; the caller holds the write transaction. */
  const insertEncoded = (sessionId: string, encoded: readonly EncodedMessage[]): number => {
    if (statements.touchSession.run(now(), sessionId).changes === 0) throw unknownSessionError(sessionId);
    let seq = statements.nextSeq.get(sessionId)?.next ?? 1;
    for (const values of encoded) {
      statements.insertMessage.run(sessionId, seq, ...values);
      seq += 1;
    }
    return seq - 1;
  };

  const createSession = database.transaction((input: NewSession): SessionRecord => {
    const id = input.id ?? newSessionId(new Date(now()));
    if (statements.sessionExists.get(id) !== undefined) throw duplicateSessionError(id);
    if (input.parentSessionId != null && statements.sessionExists.get(input.parentSessionId) === undefined) {
      throw unknownSessionError(input.parentSessionId);
    }
    statements.insertSession.run({
      id,
      title: input.title ?? null,
      parentSessionId: input.parentSessionId ?? null,
      now: now(),
      provider: input.provider ?? null,
      model: input.model ?? null,
      baseUrl: input.baseUrl ?? null,
      api: input.api ?? null,
      modelConfig: stringifyJson(input.modelConfig ?? {}, 'model config'),
    });
    return requireSession(id);
  });

  const appendEncoded = database.transaction(insertEncoded);

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

  const recordVerdict = database.transaction((input: VerdictInput): VerdictRecord => {
    const existingRow = statements.verdictByKey.get(input.routeKey);
    const merged = mergeVerdict(existingRow === undefined ? null : toVerdictRecord(existingRow), input, now());
    statements.upsertVerdict.run({ ...merged, fields: JSON.stringify(merged.fields) });
    return merged;
  });

  return {
    path,
    schemaVersion,
    journalMode: () => String(database.pragma('journal_mode', { simple: true })),

    createSession: async (input = {}) => createSession.immediate(input),
    getSession: async (id) => {
      const row = statements.sessionById.get(id);
      return row === undefined ? null : toSessionRecord(row);
    },
    listSessions: async (listOptions = {}) =>
      statements.sessionsNewest.all(listOptions.limit ?? -1).map(toSessionRecord),
    latestSession: async () => {
      const row = statements.sessionsNewest.get(1);
      return row === undefined ? null : toSessionRecord(row);
    },
    updateSession: async (id, fields) => {
      const result = statements.updateSession.run({
        id,
        now: now(),
        setTitle: fields.title === undefined ? 0 : 1,
        title: fields.title ?? null,
        setProvider: fields.provider === undefined ? 0 : 1,
        provider: fields.provider ?? null,
        setModel: fields.model === undefined ? 0 : 1,
        model: fields.model ?? null,
        setBaseUrl: fields.baseUrl === undefined ? 0 : 1,
        baseUrl: fields.baseUrl ?? null,
        setApi: fields.api === undefined ? 0 : 1,
        api: fields.api ?? null,
      });
      if (result.changes === 0) throw unknownSessionError(id);
    },
    deleteSession: async (id) => statements.deleteSession.run(id).changes > 0,
    childSessions: async (id) => statements.childSessions.all(id).map(toSessionRecord),

    // Encoding happens before BEGIN so the write lock is held only for the inserts.
    appendMessage: async (sessionId, message) => appendEncoded.immediate(sessionId, [encodeMessage(message)]),
    appendMessages: async (sessionId, messages) => {
      appendEncoded.immediate(sessionId, messages.map(encodeMessage));
    },
    listMessages: async (sessionId) => statements.listMessages.all(sessionId).map(decodeMessageRow),

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
      statements.insertRequest.run(
        record.sessionId,
        record.at,
        record.api,
        record.routeKey,
        record.status,
        stringifyJson(record.decisions, 'request decisions'),
      );
    },
    listRequests: async (sessionId) => statements.listRequests.all(sessionId).map(toRequestRecord),

    close: async () => {
      if (database.open) database.close();
    },
  };
}
