import type { PoolClient } from 'pg';
import { StorageError, storageMessages } from './storage-errors.js';

/**
 * Numbered migrations of the PostgreSQL store (SPEC §23.6). The applied versions are rows of
 * `hermes_schema_migrations`; migration N brings the database from N-1 to N. Migrations only get
 * appended; a released one is never edited. Every column whose bytes matter (message text, JSON
 * carriers, model config) is `text`, never `jsonb`: jsonb reorders keys and drops duplicates,
 * and opaque reasoning JSON must replay byte for byte. Message columns are those of the SQLite
 * store, with the same codec (`sqlite-message-codec.ts`).
 */
export const POSTGRES_MIGRATIONS: readonly string[] = [
  // 1: sessions, messages, store-wide verdicts (SPEC §23.1), request log (SPEC §23.3), leases.
  `
  CREATE TABLE sessions (
    id text PRIMARY KEY,
    title text,
    parent_session_id text REFERENCES sessions(id) ON DELETE SET NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    provider text,
    model text,
    base_url text,
    api text,
    model_config text NOT NULL DEFAULT '{}',
    -- Insertion order, breaking updated_at ties as SQLite's rowid does.
    created_order bigserial NOT NULL
  );
  CREATE INDEX sessions_updated_at ON sessions (updated_at DESC, created_order DESC);
  CREATE INDEX sessions_parent_session_id ON sessions (parent_session_id);

  CREATE TABLE messages (
    session_id text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq integer NOT NULL,
    role text NOT NULL,
    content text,
    tool_call_id text,
    tool_name text,
    tool_calls text,
    reasoning text,
    reasoning_content text,
    reasoning_details text,
    anthropic_content_blocks text,
    bedrock_content_blocks text,
    codex_reasoning_items text,
    codex_message_items text,
    finish_reason text,
    api_content text,
    origin text,
    timestamp double precision,
    platform_message_id text,
    effect_disposition text,
    reasoning_from_content integer,
    null_keys text,
    extra text,
    details_text_from_content text,
    PRIMARY KEY (session_id, seq)
  );

  CREATE TABLE verdicts (
    route_key text PRIMARY KEY,
    provider text NOT NULL,
    host text NOT NULL,
    model text NOT NULL,
    fields text NOT NULL,
    first_seen bigint NOT NULL,
    updated_at bigint NOT NULL,
    error_text text NOT NULL
  );

  CREATE TABLE requests (
    id bigserial PRIMARY KEY,
    session_id text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    at bigint NOT NULL,
    api text NOT NULL,
    route_key text NOT NULL,
    status integer NOT NULL,
    decisions text NOT NULL
  );
  CREATE INDEX requests_session_id ON requests (session_id, id);

  CREATE TABLE session_leases (
    session_id text PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    lease_id text NOT NULL,
    owner text NOT NULL,
    pid integer NOT NULL,
    host text NOT NULL,
    acquired_at bigint NOT NULL,
    heartbeat_at bigint NOT NULL,
    expires_at bigint NOT NULL
  );
  `,
  // 2: the keys sealing the gateway's reasoning handles (SPEC §25.6), shared by the whole fleet.
  `
  CREATE TABLE handle_keys (
    id text PRIMARY KEY,
    secret text NOT NULL,
    created_at bigint NOT NULL
  );
  `,
  // 3: the session's write version (SessionRecord.version): one more on every write to the row or
  // its messages, so a process that keeps a session's history compares one number.
  `
  ALTER TABLE sessions ADD COLUMN version integer NOT NULL DEFAULT 1;
  `,
  // 4: a failed request's provider complaint (RequestRecord.error), shown by the inspector and --explain.
  `
  ALTER TABLE requests ADD COLUMN error text;
  `,
  // 5: in-place compaction (SPEC §26.6): a compacted message stays stored, archived by compaction
  // N of its session; the live history is read through the partial index and never touches them.
  `
  ALTER TABLE messages ADD COLUMN archived integer;
  CREATE INDEX messages_live ON messages (session_id, seq) WHERE archived IS NULL;
  `,
  // 6: fingerprints of front-door assistant turns (what the client sees of each), so a client
  // that names no session (Gemini CLI) is found by its history in one indexed read.
  `
  CREATE TABLE turn_fingerprints (
    fingerprint text NOT NULL,
    session_id text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    noted_at bigint NOT NULL,
    PRIMARY KEY (fingerprint, session_id)
  );
  CREATE INDEX turn_fingerprints_session_id ON turn_fingerprints (session_id);
  `,
  // 7: gateway users (SPEC §26.10, store-users.ts), shared by the fleet: the SHA-256 of each key,
  // never the key, and the request counts of the two newest rate windows per user.
  `
  CREATE TABLE gateway_users (
    name text PRIMARY KEY,
    key_hash text NOT NULL UNIQUE,
    requests_per_minute integer,
    created_at bigint NOT NULL,
    revoked_at bigint
  );
  CREATE TABLE gateway_rate_windows (
    user_name text NOT NULL,
    window_start bigint NOT NULL,
    count integer NOT NULL,
    PRIMARY KEY (user_name, window_start)
  );
  `,
  // 8: the newest holders of a fingerprint read from the index alone: a turn many conversations
  // share (a short "Done.") is held by many sessions, and the lookup reads only the few it needs.
  `
  CREATE INDEX turn_fingerprints_newest ON turn_fingerprints (fingerprint, noted_at DESC, session_id COLLATE "C");
  `,
  // 9: turn fingerprints keyed (session_id, fingerprint): one index serves uniqueness, a session's
  // rows (cascade, export) and the holds-turn check, so a noted turn writes two indexes, not three.
  `
  ALTER TABLE turn_fingerprints DROP CONSTRAINT turn_fingerprints_pkey;
  ALTER TABLE turn_fingerprints ADD PRIMARY KEY (session_id, fingerprint);
  DROP INDEX turn_fingerprints_session_id;
  `,
  // 10: each session's live message count (SessionRecord.messageCount) stored in its row and kept
  // by statement triggers on every insert, delete and update of messages, whichever statement
  // makes them: reading a session is one row, never a count over its history (SPEC §26.7). One
  // update per session per statement, however many rows it wrote (a transition table per event:
  // PostgreSQL "CREATE TRIGGER", REFERENCING).
  `
  ALTER TABLE sessions ADD COLUMN message_count integer NOT NULL DEFAULT 0;
  UPDATE sessions s SET message_count =
    (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id AND m.archived IS NULL);
  CREATE FUNCTION hermes_count_messages() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      UPDATE sessions s SET message_count = s.message_count + d.n
        FROM (SELECT session_id, COUNT(*)::integer AS n FROM added WHERE archived IS NULL GROUP BY session_id) d
        WHERE s.id = d.session_id;
    ELSIF TG_OP = 'DELETE' THEN
      UPDATE sessions s SET message_count = s.message_count - d.n
        FROM (SELECT session_id, COUNT(*)::integer AS n FROM removed WHERE archived IS NULL GROUP BY session_id) d
        WHERE s.id = d.session_id;
    ELSE
      UPDATE sessions s SET message_count = s.message_count + d.n
        FROM (
          SELECT session_id, SUM(n)::integer AS n FROM (
            SELECT session_id, 1 AS n FROM added WHERE archived IS NULL
            UNION ALL
            SELECT session_id, -1 AS n FROM removed WHERE archived IS NULL
          ) change GROUP BY session_id
        ) d
        WHERE s.id = d.session_id AND d.n <> 0;
    END IF;
    RETURN NULL;
  END
  $$;
  CREATE TRIGGER messages_counted_insert AFTER INSERT ON messages
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION hermes_count_messages();
  CREATE TRIGGER messages_counted_delete AFTER DELETE ON messages
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION hermes_count_messages();
  CREATE TRIGGER messages_counted_update AFTER UPDATE ON messages
    REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION hermes_count_messages();
  `,
];

/** The schema version this build writes. */
export const POSTGRES_SCHEMA_VERSION: number = POSTGRES_MIGRATIONS.length;

/** The tables of the current schema (a database lacking one is refused). */
export const POSTGRES_TABLES: readonly string[] = [
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

/** Advisory lock keys (class, object) of this store: migrations, and one per verdict route key. */
export const ADVISORY_LOCK_CLASS = 0x4865; // "He"
export const MIGRATION_LOCK_KEY = 1;

/**
 * Applies every pending migration in one transaction under a transaction-scoped advisory lock,
 * so processes starting together (a gateway fleet) migrate once: the others wait on the lock,
 * then find nothing to do. Returns the schema version. `where` is the URL without credentials.
 */
export async function migratePostgres(client: PoolClient, where: string): Promise<number> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', [ADVISORY_LOCK_CLASS, MIGRATION_LOCK_KEY]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS hermes_schema_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL)',
    );
    const result = await client.query<{ version: number | null }>(
      'SELECT MAX(version) AS version FROM hermes_schema_migrations',
    );
    const current = result.rows[0]?.version ?? 0;
    if (current > POSTGRES_SCHEMA_VERSION) {
      throw new StorageError(
        'newer-schema',
        storageMessages.newerSchema(
          where,
          current,
          POSTGRES_SCHEMA_VERSION,
          'upgrade hermes on every host of the fleet',
        ),
      );
    }
    for (let version = current + 1; version <= POSTGRES_SCHEMA_VERSION; version += 1) {
      await client.query(POSTGRES_MIGRATIONS[version - 1] ?? '');
      await client.query('INSERT INTO hermes_schema_migrations (version, applied_at) VALUES ($1, $2)', [
        version,
        Date.now(),
      ]);
    }
    const tables = await client.query<{ name: string }>(
      'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()',
    );
    const present = new Set(tables.rows.map((row) => row.name));
    const missing = POSTGRES_TABLES.find((table) => !present.has(table));
    if (missing !== undefined) {
      throw new StorageError(
        'missing-table',
        storageMessages.missingTable(
          where,
          missing,
          'restore it from a backup, or point storage.url at a new database (hermes creates its tables there)',
        ),
      );
    }
    await client.query('COMMIT');
    return Math.max(current, POSTGRES_SCHEMA_VERSION);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
