import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { HermesError } from '../core/errors.js';
import { nativeModuleMismatchMessage } from './sqlite-native-module.js';
import { StorageError, missingTableName, storageMessages } from './storage-errors.js';

/**
 * Maps a better-sqlite3 (`SqliteError`, `code` like `SQLITE_CORRUPT`) or file-system error
 * raised on `state.db` to a one-line {@link StorageError}, and better-sqlite3 failing to load
 * because it was built for another Node.js version to a one-line `HermesError`. Anything else
 * is returned unchanged (a programming error keeps its stack for the log).
 */
export function sqliteFailure(error: unknown, path: string, busyTimeoutMs: number): unknown {
  if (!(error instanceof Error)) return error;
  const mismatch = nativeModuleMismatchMessage(error);
  if (mismatch !== undefined) return new HermesError(mismatch, { cause: error });
  const code = String((error as { code?: unknown }).code ?? '');
  const reason = error.message;
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return new StorageError('damaged', storageMessages.damaged(path, reason, sqliteRemedy(path)), { cause: error });
  }
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'SQLITE_IOERR_WRITE' || /disk is full/i.test(reason)) {
    return new StorageError('disk-full', storageMessages.diskFull(path), { cause: error });
  }
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS' || code === 'EACCES' || code === 'EPERM') {
    return new StorageError('read-only', storageMessages.readOnly(path), { cause: error });
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new StorageError('locked', storageMessages.locked(path, busyTimeoutMs / 1000), { cause: error });
  }
  const table = missingTableName(reason);
  if (table !== null) {
    const remedy = `move ${path} aside (hermes then creates a fresh one) or restore it from a backup`;
    return new StorageError('missing-table', storageMessages.missingTable(path, table, remedy), { cause: error });
  }
  if (code.startsWith('SQLITE_IOERR') && diskNearlyFull(path)) {
    // A write that hits a full disk through the WAL index or a file extension is reported by
    // SQLite as a plain I/O error ("disk I/O error"); the free space tells them apart.
    return new StorageError('disk-full', storageMessages.diskFull(path), { cause: error });
  }
  if (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_CANTOPEN') || code === 'EIO') {
    return new StorageError('io', storageMessages.io(path, reason), { cause: error });
  }
  return error;
}

/** Less than 1 MiB free for this process on the file system that holds `path`. */
function diskNearlyFull(path: string): boolean {
  try {
    const stats = statfsSync(dirname(path));
    return stats.bavail * stats.bsize < 1024 * 1024;
  } catch {
    return false;
  }
}

/** What to do with a damaged `state.db`. */
export function sqliteRemedy(path: string): string {
  return `move it aside (hermes then starts a fresh one), after saving what it holds with "sqlite3 ${path} .recover | sqlite3 recovered.db"`;
}
