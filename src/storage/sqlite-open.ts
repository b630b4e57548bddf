import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { HermesError } from '../core/errors.js';
import { migrateSchema } from './sqlite-schema.js';

/** How long a connection waits for another process's write lock before failing (CLI + gateway share the file). */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

/** An open, configured and migrated `state.db` connection. */
export interface OpenedSqliteDatabase {
  database: Database.Database;
  schemaVersion: number;
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
 * A file that is not SQLite or is corrupt becomes a `HermesError` naming the path and what to do.
 */
export function openSqliteDatabase(
  path: string,
  busyTimeoutMs: number = DEFAULT_BUSY_TIMEOUT_MS,
): OpenedSqliteDatabase {
  let database: Database.Database | undefined;
  try {
    if (path !== ':memory:') prepareFile(path);
    database = new Database(path, { timeout: busyTimeoutMs });
    // The first statement reads the header: a non-SQLite file fails here with
    // "file is not a database" (SQLITE_NOTADB).
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    database.pragma('foreign_keys = ON');
    const schemaVersion = migrateSchema(database, path);
    return { database, schemaVersion };
  } catch (error) {
    database?.close();
    if (error instanceof HermesError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new HermesError(
      `cannot open the session database ${path}: ${reason}. If the file is damaged, move it aside ` +
        `(hermes creates a fresh one) or point HERMES_HOME at another directory.`,
      { cause: error },
    );
  }
}
