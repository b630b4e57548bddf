import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { StorageError, storageMessages } from './storage-errors.js';

/**
 * Whether `state.db` is still the file the store opened and still reads as SQLite (the gateway's
 * `/readyz`, SPEC §26.10). An open connection keeps answering from its descriptor and page cache
 * after its file was deleted, replaced or overwritten, so a query alone would say "ready" while
 * the next process to open the path would fail; this reads the path itself: its identity
 * (device and inode) and the 16-byte SQLite header.
 */

/** What identifies the file a connection opened. */
export interface SqliteFileIdentity {
  device: number;
  inode: number;
}

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** The identity of the file at `path` now. */
export function sqliteFileIdentity(path: string): SqliteFileIdentity {
  const stat = statSync(path);
  return { device: stat.dev, inode: stat.ino };
}

/**
 * The identity of the file a store just opened, or null where there is none to watch: a read-only
 * home without `state.db` reads an empty stand-in in memory (`sqlite-open.ts`).
 */
export function openedFileIdentity(path: string, readOnly: boolean): SqliteFileIdentity | null {
  if (readOnly && !existsSync(path)) return null;
  return sqliteFileIdentity(path);
}

/** Throws a one-line {@link StorageError} when the file at `path` is gone, another file, unreadable or not SQLite. */
export function checkSqliteFile(path: string, opened: SqliteFileIdentity): void {
  let now: SqliteFileIdentity;
  const header = Buffer.alloc(SQLITE_HEADER.length);
  try {
    now = sqliteFileIdentity(path);
    const descriptor = openSync(path, 'r');
    try {
      readSync(descriptor, header, 0, header.length, 0);
    } finally {
      closeSync(descriptor);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    const reason =
      code === 'ENOENT' ? 'the file is gone (deleted or moved since it was opened)' : `${code} reading the file`;
    throw new StorageError('io', storageMessages.io(path, reason), { cause: error });
  }
  if (now.device !== opened.device || now.inode !== opened.inode) {
    throw new StorageError('io', storageMessages.io(path, 'another file replaced it since it was opened'));
  }
  if (!header.equals(SQLITE_HEADER)) {
    throw new StorageError(
      'damaged',
      storageMessages.damaged(path, 'its header is not SQLite', 'restore it from a backup, or move it aside'),
    );
  }
}
