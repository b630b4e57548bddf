import { mkdtempSync, openSync, rmSync, statSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { sqliteFailure } from '../../src/storage/sqlite-errors.js';
import { SQLITE_SCHEMA_VERSION } from '../../src/storage/sqlite-schema.js';
import { openSqliteSessionStore, type SqliteSessionStore } from '../../src/storage/sqlite-session-store.js';
import { StorageError } from '../../src/storage/storage-errors.js';
import type { UndecodableMessage } from '../../src/storage/session-store.js';
import { conversation } from './session-store-messages.js';

/**
 * One-line storage failures on `state.db`: a damaged page or row, a missing table, a newer
 * schema, a full disk, a read-only file. Each is a `StorageError` whose message says what
 * happened and what to do; a damaged row costs only that row.
 */

const directories: string[] = [];
const stores: SqliteSessionStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function databasePath(): string {
  const directory = mkdtempSync(join(tmpdir(), 'hermes-failures-'));
  directories.push(directory);
  return join(directory, 'state.db');
}

function open(path: string, options: Parameters<typeof openSqliteSessionStore>[1] = {}): SqliteSessionStore {
  const store = openSqliteSessionStore(path, options);
  stores.push(store);
  return store;
}

function withRaw(path: string, body: (database: Database.Database) => void): void {
  const database = new Database(path);
  try {
    body(database);
  } finally {
    database.close();
  }
}

function caught(body: () => unknown): unknown {
  try {
    body();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('a damaged row costs only that row', () => {
  it('listMessages returns the other rows and names the bad one (seq and why)', async () => {
    const path = databasePath();
    const reported: UndecodableMessage[] = [];
    const store = open(path, { onUndecodable: (row) => reported.push(row) });
    const session = await store.createSession({ id: 'damaged' });
    const messages = conversation();
    await store.appendMessages(session.id, messages);
    const toolCallSeq = messages.findIndex((message) => message.role === 'assistant' && message.tool_calls) + 1;
    withRaw(path, (database) => {
      database.prepare('UPDATE messages SET tool_calls = \'[{"id": broken\' WHERE seq = ?').run(toolCallSeq);
      database.prepare("UPDATE messages SET extra = '[1]' WHERE seq = 1").run();
    });
    const listed = await store.listMessages(session.id);
    expect(listed).toStrictEqual(messages.filter((_message, index) => index + 1 !== toolCallSeq && index !== 0));
    expect(reported).toEqual([
      { sessionId: 'damaged', seq: 1, reason: 'column extra does not hold a JSON object' },
      {
        sessionId: 'damaged',
        seq: toolCallSeq,
        reason: expect.stringMatching(/^column tool_calls is not valid JSON \(/),
      },
    ]);
    // A per-call callback takes precedence over the store's sink.
    const mine: number[] = [];
    await store.listMessages(session.id, { onUndecodable: (row) => mine.push(row.seq) });
    expect(mine).toEqual([1, toolCallSeq]);
    expect(reported).toHaveLength(2);
    // The session still lists with its full row count.
    expect((await store.getSession(session.id))?.messageCount).toBe(messages.length);
  });

  it('a value of the wrong type in a column is damage too, never a crash later', async () => {
    const path = databasePath();
    const reported: number[] = [];
    const store = open(path, { onUndecodable: (row) => reported.push(row.seq) });
    const session = await store.createSession();
    await store.appendMessages(session.id, [
      { role: 'user', content: 'one' } as Message,
      { role: 'user', content: 'two', timestamp: 5 } as Message,
    ]);
    withRaw(path, (database) => {
      database.prepare("UPDATE messages SET timestamp = 'yesterday' WHERE seq = 2").run();
      database.prepare("UPDATE messages SET origin = '[]' WHERE seq = 1").run();
    });
    expect(await store.listMessages(session.id)).toEqual([]);
    expect(reported).toEqual([1, 2]);
  });
});

describe('one-line failures', () => {
  it('a missing table is refused at open, naming the table and what to do', async () => {
    const path = databasePath();
    await open(path).close();
    withRaw(path, (database) => database.exec('DROP TABLE requests'));
    const error = caught(() => openSqliteSessionStore(path));
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).kind).toBe('missing-table');
    expect((error as Error).message).toBe(
      `the session database ${path} has no table "requests" (dropped, or written by another tool): ` +
        `move ${path} aside (hermes then creates a fresh one) or restore it from a backup`,
    );
  });

  it('a table dropped while the store is open fails the call with the same line', async () => {
    const path = databasePath();
    const store = open(path);
    const session = await store.createSession();
    withRaw(path, (database) => database.exec('PRAGMA foreign_keys = OFF; DROP TABLE messages'));
    const failure = store.listMessages(session.id);
    await expect(failure).rejects.toBeInstanceOf(StorageError);
    await expect(failure).rejects.toThrow(`the session database ${path} has no table "messages"`);
  });

  it('a newer schema says so and what to do', async () => {
    const path = databasePath();
    await open(path).close();
    withRaw(path, (database) => database.pragma(`user_version = ${SQLITE_SCHEMA_VERSION + 3}`));
    const error = caught(() => openSqliteSessionStore(path));
    expect((error as StorageError).kind).toBe('newer-schema');
    expect((error as Error).message).toBe(
      `the session database ${path} has schema version ${SQLITE_SCHEMA_VERSION + 3}, newer than this hermes ` +
        `understands (${SQLITE_SCHEMA_VERSION}): upgrade hermes, or point HERMES_HOME elsewhere`,
    );
  });

  it('a damaged page is one line naming the file and how to recover it', async () => {
    const path = databasePath();
    const store = open(path);
    const session = await store.createSession();
    for (let index = 0; index < 40; index += 1) {
      await store.appendMessage(session.id, { role: 'user', content: `message ${index} `.repeat(200) });
    }
    await store.close();
    stores.length = 0;
    // Overwrite every page after the first (the header stays valid) with garbage.
    const size = statSync(path).size;
    const descriptor = openSync(path, 'r+');
    writeSync(descriptor, Buffer.alloc(size - 4096, 0x5a), 0, size - 4096, 4096);
    closeSync(descriptor);
    let failure: unknown;
    try {
      const reopened = open(path);
      await reopened.listMessages(session.id);
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(StorageError);
    expect((failure as StorageError).kind).toBe('damaged');
    expect((failure as Error).message).toMatch(
      new RegExp(`^the session database ${path} is damaged \\(.+\\): move it aside`),
    );
    expect((failure as Error).message).toContain('.recover');
    expect((failure as Error).message).not.toContain('\n');
  });

  it('driver codes map to the disk-full, read-only and locked lines; other errors pass through', () => {
    const error = (code: string, message: string) => Object.assign(new Error(message), { code });
    const full = sqliteFailure(error('SQLITE_FULL', 'database or disk is full'), '/h/state.db', 5000) as StorageError;
    expect(full.kind).toBe('disk-full');
    expect(full.message).toBe(
      'cannot write to the session database /h/state.db: the disk is full; free some space and retry (nothing of this write was stored)',
    );
    const readOnly = sqliteFailure(
      error('SQLITE_READONLY', 'attempt to write a readonly database'),
      '/h/state.db',
      5000,
    );
    expect((readOnly as StorageError).kind).toBe('read-only');
    expect((sqliteFailure(error('SQLITE_BUSY', 'database is locked'), '/h/state.db', 5000) as Error).message).toBe(
      'the session database /h/state.db stayed locked by another process for 5 s; retry, or stop the hermes process that holds it',
    );
    const bug = new TypeError('x is not a function');
    expect(sqliteFailure(bug, '/h/state.db', 5000)).toBe(bug);
  });
});
