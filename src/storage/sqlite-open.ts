import {
  accessSync,
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { HermesError } from '../core/errors.js';
import { sqliteFailure, sqliteRemedy } from './sqlite-errors.js';
import {
  migrateSchema,
  newerSchemaFailure,
  readSchemaVersion,
  SQLITE_SCHEMA_VERSION,
  SQLITE_TABLES,
} from './sqlite-schema.js';
import { StorageError, storageMessages } from './storage-errors.js';

/** How long a connection waits for another process's write lock before failing (CLI + gateway share the file). */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

/** An open, configured and migrated `state.db` connection. */
export interface OpenedSqliteDatabase {
  database: Database.Database;
  schemaVersion: number;
  /** True when the file could only be opened for reading (read-only file, directory or file system). */
  readOnly: boolean;
}

/**
 * Creates the parent directory (mode 0700: sessions hold prompts and tool output) and an empty
 * database file (mode 0600) when they are missing. SQLite then gives the `-wal` and `-shm` files
 * the same mode as the database file. Existing files and directories keep their mode.
 */
function prepareFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    // 'wx' fails when the file exists, so an existing database is never touched here.
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/**
 * Opens `path` (or `:memory:`) with the pragmas every Hermes connection uses, then migrates it:
 * - `journal_mode = WAL`: readers never block the writer, so `hermes sessions list` works while
 *   a gateway appends;
 * - `synchronous = NORMAL`: with WAL, a committed transaction survives a killed process; only an
 *   OS crash may lose the last commits, never corrupt the file;
 * - `foreign_keys = ON`: off by default in SQLite, and the cascades depend on it;
 * - `busy_timeout`: wait for another process's write lock instead of failing with
 *   "database is locked".
 * A file that cannot be written (read-only file, directory or file system) is opened for
 * reading when its schema is current, so read-only commands still work; its writes then fail
 * with the read-only line. Every failure is a one-line `HermesError` naming the path and what
 * to do; a database missing one of its tables is refused here rather than at the first query.
 */
export function openSqliteDatabase(
  path: string,
  busyTimeoutMs: number = DEFAULT_BUSY_TIMEOUT_MS,
): OpenedSqliteDatabase {
  let opened: OpenedSqliteDatabase;
  try {
    opened = openWritable(path, busyTimeoutMs);
  } catch (error) {
    const failure = sqliteFailure(error, path, busyTimeoutMs);
    const kind = failure instanceof StorageError ? failure.kind : null;
    // A file we may not write fails as read-only, or as "unable to open" when SQLite cannot
    // create the -wal/-shm files in a read-only directory.
    const readOnly =
      path !== ':memory:' && existsSync(path) && (kind === 'read-only' || (kind === 'io' && !writable(path)));
    // No state.db yet in a home this process may not write: nothing is stored, so read-only
    // commands see an empty store and every write fails with the read-only line.
    if (path !== ':memory:' && !existsSync(path) && kind === 'read-only') return openEmptyReadOnly();
    if (!readOnly) throw asOpenFailure(failure, error, path);
    opened = openReadOnly(path, busyTimeoutMs, new StorageError('read-only', storageMessages.readOnly(path)));
  }
  requireTables(opened.database, path);
  return opened;
}

/** Whether this process may write the database file and create its `-wal`/`-shm` files beside it. */
function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    accessSync(dirname(path), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function openWritable(path: string, busyTimeoutMs: number): OpenedSqliteDatabase {
  let database: Database.Database | undefined;
  try {
    if (path !== ':memory:') prepareFile(path);
    database = new Database(path, { timeout: busyTimeoutMs });
    // The first statement reads the header: a non-SQLite file fails here with
    // "file is not a database" (SQLITE_NOTADB).
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    database.pragma('foreign_keys = ON');
    // Statement and savepoint journals (a group commit runs each turn's write under a savepoint)
    // stay in memory: by default SQLite spills one past 64 KiB to a temporary file, which put two
    // to four 64 KiB file writes on every gateway turn (sqlite.org/tempfiles.html, "Statement
    // Journal Files" and "Temporary File Storage Locations").
    database.pragma('temp_store = MEMORY');
    const schemaVersion = migrateSchema(database, path);
    return { database, schemaVersion, readOnly: false };
  } catch (error) {
    database?.close();
    throw error;
  }
}

/** An empty store of the current schema, in memory, that refuses every write (`query_only`). */
function openEmptyReadOnly(): OpenedSqliteDatabase {
  const database = new Database(':memory:');
  database.pragma('foreign_keys = ON');
  const schemaVersion = migrateSchema(database, ':memory:');
  database.pragma('query_only = ON');
  return { database, schemaVersion, readOnly: true };
}

/**
 * Read-only access to a file this process may not write. SQLite must create the WAL index
 * (`-shm`) even to read a WAL database, which a read-only directory forbids; then the file (and
 * its `-wal`, so the latest commits are included) is copied to a private temporary directory and
 * the copy is opened with `query_only`, so every write still fails as read-only. The copy goes
 * away when the store closes.
 */
function openReadOnly(path: string, busyTimeoutMs: number, readOnlyFailure: StorageError): OpenedSqliteDatabase {
  let database: Database.Database | undefined;
  let snapshot: string | undefined;
  try {
    try {
      database = new Database(path, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs });
      readSchemaVersion(database);
    } catch {
      database?.close();
      snapshot = mkdtempSync(join(tmpdir(), 'hermes-readonly-'));
      const copy = join(snapshot, 'state.db');
      copyFileSync(path, copy);
      if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`);
      database = new Database(copy, { timeout: busyTimeoutMs });
      database.pragma('query_only = ON');
      const directory = snapshot;
      const close = database.close.bind(database);
      database.close = () => {
        const result = close();
        rmSync(directory, { recursive: true, force: true });
        return result;
      };
    }
    database.pragma('foreign_keys = ON');
    const schemaVersion = readSchemaVersion(database);
    if (schemaVersion > SQLITE_SCHEMA_VERSION) throw newerSchemaFailure(path, schemaVersion);
    if (schemaVersion < SQLITE_SCHEMA_VERSION) throw readOnlyFailure;
    return { database, schemaVersion, readOnly: true };
  } catch (error) {
    if (database?.open) database.close();
    else if (snapshot !== undefined) rmSync(snapshot, { recursive: true, force: true });
    if (error instanceof HermesError) throw error;
    throw asOpenFailure(sqliteFailure(error, path, busyTimeoutMs), error, path);
  }
}

/** Refuses a database that lacks one of the tables of its schema version. */
function requireTables(database: Database.Database, path: string): void {
  const present = new Set(
    database
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .all()
      .map((row) => row.name),
  );
  const missing = SQLITE_TABLES.find((table) => !present.has(table));
  if (missing === undefined) return;
  database.close();
  throw new StorageError(
    'missing-table',
    storageMessages.missingTable(
      path,
      missing,
      `move ${path} aside (hermes then creates a fresh one) or restore it from a backup`,
    ),
  );
}

function asOpenFailure(failure: unknown, error: unknown, path: string): HermesError {
  if (failure instanceof HermesError) return failure;
  const reason = error instanceof Error ? error.message : String(error);
  return new StorageError('damaged', `cannot open the session database ${path} (${reason}): ${sqliteRemedy(path)}`, {
    cause: error,
  });
}
