import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { nativeModuleMismatchMessage } from './sqlite-native-module.js';
import { readSchemaVersion, SQLITE_SCHEMA_VERSION } from './sqlite-schema.js';

/** What `hermes doctor` learns about a `state.db` file without changing it. */
export interface SqliteCheck {
  path: string;
  exists: boolean;
  /** `PRAGMA user_version`, when the file could be read. */
  schemaVersion?: number;
  /** The version this build writes. */
  currentVersion: number;
  /** `ok`, or the first problem SQLite's integrity check reports. */
  integrity?: string;
  /** Why the file could not be opened or checked (one line). */
  error?: string;
}

/**
 * Opens `path` read-only (never creating or migrating it) and runs `PRAGMA integrity_check(1)`
 * (sqlite.org/pragma.html#pragma_integrity_check: `ok`, or the first problem found).
 */
export function checkSqliteFile(path: string): SqliteCheck {
  const result: SqliteCheck = { path, exists: existsSync(path), currentVersion: SQLITE_SCHEMA_VERSION };
  if (!result.exists) return result;
  let database: Database.Database | null = null;
  try {
    database = new Database(path, { readonly: true, fileMustExist: true });
    result.schemaVersion = readSchemaVersion(database);
    const rows = database.pragma('integrity_check(1)') as { integrity_check: string }[];
    result.integrity = rows.map((row) => row.integrity_check).join('; ') || 'no answer';
  } catch (error) {
    result.error = nativeModuleMismatchMessage(error) ?? (error as Error).message.split('\n')[0] ?? 'unreadable';
  } finally {
    database?.close();
  }
  return result;
}
