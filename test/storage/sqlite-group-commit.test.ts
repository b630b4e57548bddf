import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { HermesError } from '../../src/core/errors.js';
import { groupCommit } from '../../src/storage/sqlite-group-commit.js';
import { openSqliteSessionStore } from '../../src/storage/sqlite-session-store.js';

const directories: string[] = [];
const databases: Database.Database[] = [];

function databasePath(): string {
  const directory = mkdtempSync(join(tmpdir(), 'hermes-group-commit-'));
  directories.push(directory);
  return join(directory, 'state.db');
}

function rawDatabase(path: string): Database.Database {
  const database = new Database(path);
  database.pragma('journal_mode = WAL');
  databases.push(database);
  return database;
}

afterEach(() => {
  for (const database of databases.splice(0)) if (database.open) database.close();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe('group commit (sqlite-group-commit.ts)', () => {
  it('commits the writes queued in one event-loop turn once, each under its own savepoint', () => {
    const database = rawDatabase(databasePath());
    database.exec('CREATE TABLE rows (value TEXT NOT NULL)');
    const insert = database.prepare('INSERT INTO rows (value) VALUES (?)');
    const write = database.transaction((value: string) => {
      insert.run(value);
      if (value === 'bad') throw new Error('refused');
      return value.toUpperCase();
    });
    const commits = groupCommit(database);
    let beganOutsideTransaction = 0;
    const queued = ['a', 'bad', 'b'].map((value) =>
      commits.enqueue(() => {
        if (!database.inTransaction) beganOutsideTransaction += 1;
        return write.immediate(value);
      }),
    );
    return Promise.allSettled(queued).then((outcomes) => {
      expect(outcomes).toEqual([
        { status: 'fulfilled', value: 'A' },
        { status: 'rejected', reason: new Error('refused') },
        { status: 'fulfilled', value: 'B' },
      ]);
      expect(beganOutsideTransaction).toBe(0);
      expect(database.prepare('SELECT value FROM rows ORDER BY rowid').pluck().all()).toEqual(['a', 'b']);
    });
  });

  it('runs a write alone as its own transaction', async () => {
    const database = rawDatabase(databasePath());
    database.exec('CREATE TABLE rows (value TEXT NOT NULL)');
    const insert = database.transaction((value: string) => database.prepare('INSERT INTO rows VALUES (?)').run(value));
    const commits = groupCommit(database);
    await commits.enqueue(() => insert.immediate('only'));
    expect(database.inTransaction).toBe(false);
    expect(database.prepare('SELECT count(*) FROM rows').pluck().get()).toBe(1);
  });
});

describe('SQLite writeTurn under group commit', () => {
  it('a group the write lock refuses rejects every write in it with one line, and stores none of them', async () => {
    const path = databasePath();
    const store = openSqliteSessionStore(path, { busyTimeoutMs: 50 });
    try {
      const sessions = await Promise.all([store.createSession(), store.createSession()]);
      // Another process holds the write lock past the busy timeout.
      const other = rawDatabase(path);
      other.exec('BEGIN IMMEDIATE');
      const outcomes = await Promise.allSettled(
        sessions.map((session) => store.writeTurn(session.id, { messages: [{ role: 'user', content: 'q' }] })),
      );
      other.exec('ROLLBACK');
      for (const outcome of outcomes) {
        expect(outcome.status).toBe('rejected');
        const reason = (outcome as PromiseRejectedResult).reason as Error;
        expect(reason).toBeInstanceOf(HermesError);
        expect(reason.message).not.toContain('\n');
        expect(reason.message).toContain(path);
      }
      for (const session of sessions) expect(await store.listMessages(session.id)).toEqual([]);
      // The lock is free again: the next group commits.
      await store.writeTurn(sessions[0]!.id, { messages: [{ role: 'user', content: 'again' }] });
      expect((await store.listMessages(sessions[0]!.id)).map((message) => message.content)).toEqual(['again']);
    } finally {
      await store.close();
    }
  });

  it('writes to one session apply in call order', async () => {
    const store = openSqliteSessionStore(databasePath());
    try {
      const session = await store.createSession();
      const writes = await Promise.all(
        ['a', 'b', 'c'].map((content) => store.writeTurn(session.id, { messages: [{ role: 'user', content }] })),
      );
      expect(writes.map((written) => written.version)).toEqual([2, 3, 4]);
      expect((await store.listMessages(session.id)).map((message) => message.content)).toEqual(['a', 'b', 'c']);
      const claims = await Promise.allSettled(
        ['first', 'second'].map((leaseId) =>
          store.writeTurn(session.id, {
            acquireLease: { leaseId, owner: 'test', pid: 4242, host: 'h', ttlMs: 60_000, holderGone: () => false },
          }),
        ),
      );
      expect(claims.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected']);
      expect((await store.readLease(session.id))?.leaseId).toBe('first');
    } finally {
      await store.close();
    }
  });

  it('close() commits what is still queued', async () => {
    const path = databasePath();
    const store = openSqliteSessionStore(path);
    const session = await store.createSession();
    const written = store.writeTurn(session.id, { messages: [{ role: 'user', content: 'kept' }] });
    await store.close();
    await expect(written).resolves.toMatchObject({ version: 2 });
    const reopened = openSqliteSessionStore(path);
    try {
      expect((await reopened.listMessages(session.id)).map((message) => message.content)).toEqual(['kept']);
    } finally {
      await reopened.close();
    }
  });
});
