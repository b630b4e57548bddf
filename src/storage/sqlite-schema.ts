import type Database from 'better-sqlite3';
import { StorageError, storageMessages } from './storage-errors.js';

/**
 * Numbered migrations for `state.db` (STYLE rule 6 (docs/architecture.md)). The schema version lives in the database
 * as `PRAGMA user_version`: migration N brings the file from version N-1 to N. Migrations only
 * ever get appended to this list; a released one is never edited.
 */
export const SQLITE_MIGRATIONS: readonly string[] = [
  // 1: sessions, messages, store-wide verdicts (SPEC §23.1), request log (SPEC §23.3).
  `
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    title TEXT,
    parent_session_id TEXT REFERENCES sessions(id) ON DELETE SET NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    provider TEXT,
    model TEXT,
    base_url TEXT,
    api TEXT,
    model_config TEXT NOT NULL DEFAULT '{}'
  );
  CREATE INDEX sessions_updated_at ON sessions(updated_at);
  CREATE INDEX sessions_parent_session_id ON sessions(parent_session_id);

  -- Column meaning and the absent-vs-null rule: see sqlite-message-codec.ts. The UNIQUE
  -- constraint is also the (session_id, seq) index every load and append uses; a second,
  -- identical index would only double the write cost.
  CREATE TABLE messages (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL,
    content TEXT,
    tool_call_id TEXT,
    tool_calls TEXT,
    tool_name TEXT,
    effect_disposition TEXT,
    timestamp REAL,
    finish_reason TEXT,
    reasoning TEXT,
    reasoning_content TEXT,
    reasoning_details TEXT,
    anthropic_content_blocks TEXT,
    bedrock_content_blocks TEXT,
    codex_reasoning_items TEXT,
    codex_message_items TEXT,
    api_content TEXT,
    platform_message_id TEXT,
    origin TEXT,
    reasoning_from_content INTEGER,
    null_keys TEXT,
    extra TEXT,
    UNIQUE (session_id, seq)
  );

  CREATE TABLE verdicts (
    route_key TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    host TEXT NOT NULL,
    model TEXT NOT NULL,
    fields TEXT NOT NULL,
    first_seen INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    error_text TEXT NOT NULL
  );

  CREATE TABLE requests (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    at INTEGER NOT NULL,
    api TEXT NOT NULL,
    route_key TEXT NOT NULL,
    status INTEGER NOT NULL,
    decisions TEXT NOT NULL
  );
  CREATE INDEX requests_session_id ON requests(session_id, id);
  `,
  // 2: reasoning_details entries whose `text` equals reasoning_content are stored once (see
  // sqlite-message-codec.ts): the entry keeps its key with "" and this lists the entry indexes.
  `
  ALTER TABLE messages ADD COLUMN details_text_from_content TEXT;
  `,
  // 3: the session lease (SPEC §23.6): at most one row per session, the turn holding it.
  `
  CREATE TABLE session_leases (
    session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    lease_id TEXT NOT NULL,
    owner TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    acquired_at INTEGER NOT NULL,
    heartbeat_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  );
  `,
  // 4: the keys sealing the gateway's reasoning handles (SPEC §25.6); the newest seals, all open.
  `
  CREATE TABLE handle_keys (
    id TEXT PRIMARY KEY,
    secret TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  `,
  // 5: the session's write version (SessionRecord.version): one more on every write to the row or
  // its messages, so a process that keeps a session's history compares one number.
  `
  ALTER TABLE sessions ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
  `,
  // 6: a failed request's provider complaint (RequestRecord.error), shown by the inspector and --explain.
  `
  ALTER TABLE requests ADD COLUMN error TEXT;
  `,
  // 7: in-place compaction (SPEC §26.6): a compacted message stays stored, archived by compaction
  // N of its session; the live history is read through the partial index and never touches them.
  `
  ALTER TABLE messages ADD COLUMN archived INTEGER;
  CREATE INDEX messages_live ON messages(session_id, seq) WHERE archived IS NULL;
  `,
  // 8: fingerprints of front-door assistant turns (what the client sees of each), so a client
  // that names no session (Gemini CLI) is found by its history in one indexed read.
  `
  CREATE TABLE turn_fingerprints (
    fingerprint TEXT NOT NULL,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    noted_at INTEGER NOT NULL,
    PRIMARY KEY (fingerprint, session_id)
  );
  CREATE INDEX turn_fingerprints_session_id ON turn_fingerprints(session_id);
  `,
  // 9: gateway users (SPEC §26.10, store-users.ts): the SHA-256 of each key, never the key, and
  // the request counts of the two newest rate windows per user.
  `
  CREATE TABLE gateway_users (
    name TEXT PRIMARY KEY,
    key_hash TEXT NOT NULL UNIQUE,
    requests_per_minute INTEGER,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
  );
  CREATE TABLE gateway_rate_windows (
    user_name TEXT NOT NULL,
    window_start INTEGER NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (user_name, window_start)
  );
  `,
  // 10: the newest holders of a fingerprint read from the index alone: a turn many conversations
  // share (a short "Done.") is held by many sessions, and the lookup reads only the few it needs.
  `
  CREATE INDEX turn_fingerprints_newest ON turn_fingerprints(fingerprint, noted_at DESC, session_id);
  `,
  // 11: turn fingerprints stored in their (session_id, fingerprint) key (WITHOUT ROWID): a noted
  // turn writes two b-trees, not four. The key serves uniqueness, a session's rows (cascade,
  // export) and the holds-turn check; the newest-holders index stays. The ids the gateway gives
  // sessions start with their creation time, so a commit's new rows share the key's last pages.
  `
  CREATE TABLE turn_fingerprints_keyed (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    fingerprint TEXT NOT NULL,
    noted_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, fingerprint)
  ) WITHOUT ROWID;
  INSERT INTO turn_fingerprints_keyed (session_id, fingerprint, noted_at)
    SELECT session_id, fingerprint, noted_at FROM turn_fingerprints;
  DROP TABLE turn_fingerprints;
  ALTER TABLE turn_fingerprints_keyed RENAME TO turn_fingerprints;
  CREATE INDEX turn_fingerprints_newest ON turn_fingerprints(fingerprint, noted_at DESC, session_id);
  `,
  // 12: each session's live message count (SessionRecord.messageCount) stored in its row and kept
  // by triggers on every insert, delete and archive of its messages, whichever statement makes
  // them: reading a session is one row, never a count over its history (SPEC §26.7).
  `
  ALTER TABLE sessions ADD COLUMN message_count INTEGER NOT NULL DEFAULT 0;
  UPDATE sessions SET message_count =
    (SELECT COUNT(*) FROM messages m WHERE m.session_id = sessions.id AND m.archived IS NULL);
  CREATE TRIGGER messages_counted_insert AFTER INSERT ON messages WHEN NEW.archived IS NULL
  BEGIN
    UPDATE sessions SET message_count = message_count + 1 WHERE id = NEW.session_id;
  END;
  CREATE TRIGGER messages_counted_delete AFTER DELETE ON messages WHEN OLD.archived IS NULL
  BEGIN
    UPDATE sessions SET message_count = message_count - 1 WHERE id = OLD.session_id;
  END;
  CREATE TRIGGER messages_counted_update AFTER UPDATE OF archived, session_id ON messages
  WHEN (OLD.archived IS NULL) <> (NEW.archived IS NULL) OR OLD.session_id <> NEW.session_id
  BEGIN
    UPDATE sessions SET message_count = message_count - 1 WHERE id = OLD.session_id AND OLD.archived IS NULL;
    UPDATE sessions SET message_count = message_count + 1 WHERE id = NEW.session_id AND NEW.archived IS NULL;
  END;
  `,
];

/** The tables of the current schema (a database lacking one is refused at open). */
export const SQLITE_TABLES: readonly string[] = [
  'sessions',
  'messages',
  'verdicts',
  'requests',
  'session_leases',
  'handle_keys',
  'turn_fingerprints',
  'gateway_users',
  'gateway_rate_windows',
];

/** The schema version this build writes. */
export const SQLITE_SCHEMA_VERSION: number = SQLITE_MIGRATIONS.length;

/** A database written by a newer hermes. */
export function newerSchemaFailure(path: string, found: number): StorageError {
  return new StorageError(
    'newer-schema',
    storageMessages.newerSchema(path, found, SQLITE_SCHEMA_VERSION, 'upgrade hermes, or point HERMES_HOME elsewhere'),
  );
}

/** Reads `PRAGMA user_version`. */
export function readSchemaVersion(database: Database.Database): number {
  return database.pragma('user_version', { simple: true }) as number;
}

/**
 * Applies every pending migration in ONE `BEGIN IMMEDIATE` transaction, so two processes that
 * open a fresh file at once (CLI + gateway) cannot both migrate: the second waits on the write
 * lock, then re-reads the version inside its transaction and finds nothing to do.
 */
export function migrateSchema(database: Database.Database, path: string): number {
  const migrate = database.transaction(() => {
    const current = readSchemaVersion(database);
    if (current > SQLITE_SCHEMA_VERSION) throw newerSchemaFailure(path, current);
    for (let version = current + 1; version <= SQLITE_SCHEMA_VERSION; version += 1) {
      database.exec(SQLITE_MIGRATIONS[version - 1] ?? '');
      // PRAGMA takes no bound parameters; `version` is a loop integer, never user input.
      database.pragma(`user_version = ${version}`);
    }
    return readSchemaVersion(database);
  });
  return migrate.immediate();
}
