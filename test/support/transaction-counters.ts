import { openSync, readSync, closeSync, fstatSync } from 'node:fs';
import { createRequire } from 'node:module';
import type pg from 'pg';

/**
 * Counting write transactions without trusting the code under test.
 *
 * - SQLite (WAL mode): every commit appends frames to `<db>-wal`, and the last frame of a
 *   commit carries the database size in pages (non-zero only there). {@link sqliteCommits}
 *   reads the file and counts those frames for the current WAL generation (the salt in the WAL
 *   header; a checkpoint that restarts the WAL changes it, and the count then throws rather than
 *   miscount). Format: https://www.sqlite.org/fileformat2.html#walformat
 * - PostgreSQL: a hook on the driver's `Client.query` ({@link countPostgresWrites}) counts
 *   `COMMIT`s, plus each INSERT/UPDATE/DELETE sent outside `BEGIN … COMMIT` (one implicit
 *   transaction each).
 */

const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;

/** Commits in the current WAL generation of the SQLite database at `path`, with the generation's salt. */
export function sqliteCommits(path: string): { commits: number; salt: string } {
  let descriptor: number;
  try {
    descriptor = openSync(`${path}-wal`, 'r');
  } catch {
    return { commits: 0, salt: '' };
  }
  try {
    const size = fstatSync(descriptor).size;
    if (size < WAL_HEADER_BYTES) return { commits: 0, salt: '' };
    const header = Buffer.alloc(WAL_HEADER_BYTES);
    readSync(descriptor, header, 0, WAL_HEADER_BYTES, 0);
    const pageSize = header.readUInt32BE(8);
    const salt = header.subarray(16, 24);
    const frame = Buffer.alloc(FRAME_HEADER_BYTES);
    let commits = 0;
    for (let offset = WAL_HEADER_BYTES; offset + FRAME_HEADER_BYTES + pageSize <= size;) {
      readSync(descriptor, frame, 0, FRAME_HEADER_BYTES, offset);
      // Frames left over from an earlier generation carry its salt: the log ends before them.
      if (!frame.subarray(8, 16).equals(salt)) break;
      if (frame.readUInt32BE(4) !== 0) commits += 1;
      offset += FRAME_HEADER_BYTES + pageSize;
    }
    return { commits, salt: salt.toString('hex') };
  } finally {
    closeSync(descriptor);
  }
}

/** Runs `body` and returns how many commits it made on the SQLite database at `path`. */
export async function countSqliteCommits(path: string, body: () => Promise<unknown>): Promise<number> {
  const before = sqliteCommits(path);
  await body();
  const after = sqliteCommits(path);
  if (before.salt !== '' && after.salt !== before.salt)
    throw new Error('the WAL was checkpointed and restarted meanwhile');
  return after.commits - before.commits;
}

const WRITE_STATEMENT = /^\s*(INSERT|UPDATE|DELETE)\b/i;

/**
 * Counts write transactions every `pg` client of this process sends while `body` runs (the
 * store's pool loads the same `pg` module, so its clients go through the hook).
 */
export async function countPostgresWrites(body: () => Promise<unknown>): Promise<number> {
  const driver = createRequire(import.meta.url)('pg') as typeof pg;
  const prototype = driver.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = prototype.query;
  const inTransaction = new WeakSet<object>();
  let count = 0;
  prototype.query = function (this: object, ...args: unknown[]) {
    const first = args[0];
    const text = typeof first === 'string' ? first : ((first as { text?: string } | undefined)?.text ?? '');
    const command = text.trim().toUpperCase();
    if (command === 'BEGIN') inTransaction.add(this);
    else if (command === 'COMMIT' || command === 'ROLLBACK') {
      if (command === 'COMMIT') count += 1;
      inTransaction.delete(this);
    } else if (!inTransaction.has(this) && WRITE_STATEMENT.test(text)) count += 1;
    return original.apply(this, args);
  };
  try {
    await body();
  } finally {
    prototype.query = original;
  }
  return count;
}
