import type { Database } from 'better-sqlite3';

/**
 * Group commit for SQLite writes. Each write queued in one turn of the event loop runs inside one
 * shared `BEGIN IMMEDIATE` transaction, each under its own savepoint (a better-sqlite3
 * transaction function called inside a transaction is a savepoint), and the queue commits once.
 *
 * What a caller sees does not change: a write is applied whole or not at all (its savepoint is
 * rolled back when it throws, and only its promise rejects), writes apply in the order they were
 * queued, and a promise resolves only after the commit that holds the write. A failed commit
 * rejects every write of the group. What changes is the cost: concurrent turns append to the
 * same last pages of the `messages` and `requests` tables, so one commit writes those pages to
 * the WAL once for all of them instead of once per write (SQLite "WAL file format": a commit
 * appends every page it changed).
 */
export interface GroupCommit {
  /** Queues `run` (a better-sqlite3 transaction function) for the next group; resolves with its result after the commit. */
  enqueue<T>(run: () => T): Promise<T>;
  /** Runs and commits what is queued now (before the database closes). */
  flush(): void;
}

interface QueuedWrite {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** Set by the group's transaction. */
  outcome?: { ok: true; value: unknown } | { ok: false; error: unknown };
}

export function groupCommit(database: Database): GroupCommit {
  let queue: QueuedWrite[] = [];
  let scheduled = false;

  const runGroup = database.transaction((writes: readonly QueuedWrite[]) => {
    for (const write of writes) {
      try {
        write.outcome = { ok: true, value: write.run() };
      } catch (error) {
        write.outcome = { ok: false, error };
      }
    }
  });

  const flush = () => {
    scheduled = false;
    const writes = queue;
    if (writes.length === 0) return;
    queue = [];
    try {
      // A single write needs no savepoint of its own: it runs as the transaction itself.
      if (writes.length === 1) {
        const [only] = writes as [QueuedWrite];
        runOne(only);
        return;
      }
      runGroup.immediate(writes);
    } catch (error) {
      for (const write of writes) write.reject(error);
      return;
    }
    for (const write of writes) {
      const outcome = write.outcome as NonNullable<QueuedWrite['outcome']>;
      if (outcome.ok) write.resolve(outcome.value);
      else write.reject(outcome.error);
    }
  };

  /** `write.run` alone: called outside a transaction, a transaction function begins and commits its own. */
  const runOne = (write: QueuedWrite) => {
    let value: unknown;
    try {
      value = write.run();
    } catch (error) {
      write.reject(error);
      return;
    }
    write.resolve(value);
  };

  return {
    enqueue<T>(run: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ run, resolve: resolve as (value: unknown) => void, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
    flush,
  };
}
