import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HermesError, UsageError } from '../../src/core/errors.js';
import { DEFAULT_BUSY_TIMEOUT_MS, openSqliteDatabase } from '../../src/storage/sqlite-open.js';
import { openSqliteSessionStore } from '../../src/storage/sqlite-session-store.js';
import type { SqliteSessionStore } from '../../src/storage/sqlite-session-store.js';
import { SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION } from '../../src/storage/sqlite-schema.js';
import { MESSAGE_PAGE_ROWS } from '../../src/storage/sqlite-statements.js';
import { conversation, everyCarrierMessage } from './session-store-messages.js';
import { runSessionStoreConformance } from './session-store.cases.js';
import { thrownBy } from '../support/thrown.js';

const temporaryDirectories: string[] = [];

function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'hermes-storage-'));
  temporaryDirectories.push(directory);
  return directory;
}

afterEach(() => {
  for (const directory of temporaryDirectories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

runSessionStoreConformance('sqlite', (clock) =>
  openSqliteSessionStore(join(temporaryDirectory(), 'state.db'), { now: clock.now }),
);

describe('SQLite session store specifics (SPEC §18)', () => {
  let path: string;
  const opened: Array<SqliteSessionStore | Database.Database> = [];

  function open(): SqliteSessionStore {
    const store = openSqliteSessionStore(path);
    opened.push(store);
    return store;
  }

  function raw(): Database.Database {
    const database = new Database(path);
    opened.push(database);
    return database;
  }

  beforeEach(() => {
    path = join(temporaryDirectory(), 'nested', 'home', 'state.db');
  });
  afterEach(async () => {
    for (const handle of opened.splice(0).reverse()) {
      if (handle instanceof Database) handle.close();
      else await handle.close();
    }
  });

  it('runs in WAL mode with foreign keys on, and records the schema version in the file', () => {
    const store = open();
    expect(store.journalMode()).toBe('wal');
    expect(store.schemaVersion).toBe(SQLITE_SCHEMA_VERSION);
    const database = raw();
    expect(database.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(database.pragma('user_version', { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
    expect(SQLITE_SCHEMA_VERSION).toBeGreaterThanOrEqual(1);
  });

  it('keeps statement and savepoint journals in memory, so a group commit writes no temporary file', () => {
    const { database } = openSqliteDatabase(path, DEFAULT_BUSY_TIMEOUT_MS);
    opened.push(database);
    // 2 = MEMORY (sqlite.org/pragma.html#pragma_temp_store); the default, 0, spills past 64 KiB to a file.
    expect(database.pragma('temp_store', { simple: true })).toBe(2);
  });

  it('creates the directory with mode 0700 and the database file with mode 0600', () => {
    open();
    expect(statSync(join(path, '..')).mode & 0o777).toBe(0o700);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('stores JSON columns as JSON text written once, plain text in text columns, and null markers', async () => {
    const store = open();
    const session = await store.createSession({ id: 'columns' });
    const message = everyCarrierMessage();
    await store.appendMessage(session.id, message);
    await store.appendMessage(session.id, { role: 'assistant', content: null, reasoning_content: '', reasoning: null });
    await store.appendMessage(session.id, {
      role: 'assistant',
      content: 'c',
      reasoning_content: 'same',
      reasoning: 'same',
    });
    const rows = raw()
      .prepare(
        'SELECT content, reasoning, reasoning_content, reasoning_details, tool_calls, origin, reasoning_from_content, null_keys, extra FROM messages ORDER BY seq',
      )
      .all() as Array<Record<string, string | null>>;
    // Parsing once yields the list itself, not a string that holds JSON (no double encoding).
    expect(JSON.parse(rows[0]?.['reasoning_details'] ?? 'null')).toEqual(message.reasoning_details);
    expect(JSON.parse(rows[0]?.['tool_calls'] ?? 'null')).toEqual(message.tool_calls);
    expect(JSON.parse(rows[0]?.['origin'] ?? 'null')).toEqual(message.origin);
    expect(rows[0]?.['content']).toBe(message.content);
    expect([rows[0]?.['reasoning'], rows[0]?.['reasoning_content'], rows[0]?.['reasoning_from_content']]).toEqual([
      message.reasoning,
      message.reasoning_content,
      null,
    ]);
    expect(JSON.parse(rows[0]?.['extra'] ?? 'null')).toEqual({
      _thinking_signature_invalidated: true,
      _branched_from: { session: '20261129-192233-k3f9qa', seq: 4 },
      vendor_future_key: { nested: [1, 'two', null, { three: 3 }] },
    });
    expect(rows[1]).toEqual({
      content: null,
      reasoning: null,
      reasoning_content: '',
      reasoning_details: null,
      tool_calls: null,
      origin: null,
      reasoning_from_content: null,
      null_keys: '["content","reasoning"]',
      extra: null,
    });
    // SPEC §2.1 usually stores the same text as reasoning and reasoning_content: written once.
    expect(rows[2]).toEqual({
      content: 'c',
      reasoning: null,
      reasoning_content: 'same',
      reasoning_details: null,
      tool_calls: null,
      origin: null,
      reasoning_from_content: 1,
      null_keys: null,
      extra: null,
    });
    expect((await store.listMessages(session.id))[2]).toStrictEqual({
      role: 'assistant',
      content: 'c',
      reasoning_content: 'same',
      reasoning: 'same',
    });
  });

  it('stores a reasoning_details text equal to reasoning_content once, and replays the entry byte for byte', async () => {
    const store = open();
    const session = await store.createSession({});
    const reasoning = 'the same thinking, carried three times by OpenRouter-style turns';
    const message = {
      role: 'assistant' as const,
      content: 'ok',
      reasoning,
      reasoning_content: reasoning,
      reasoning_details: [
        { type: 'reasoning.text', text: reasoning, signature: 'EvAB', format: 'anthropic-claude-v1', index: 0 },
        { type: 'reasoning.text', text: 'a different text stays as it is', index: 1 },
        { type: 'reasoning.encrypted', data: 'gAAAA', index: 2 },
      ],
    };
    await store.appendMessage(session.id, message);
    const [loaded] = await store.listMessages(session.id);
    expect(loaded).toEqual(message);
    expect(JSON.stringify(loaded)).toBe(JSON.stringify(message));
    const row = raw()
      .prepare('SELECT reasoning, reasoning_details, details_text_from_content FROM messages')
      .get() as Record<string, string | null>;
    expect(row['reasoning']).toBeNull();
    expect(row['details_text_from_content']).toBe('[0]');
    expect(row['reasoning_details']).not.toContain(reasoning);
    // A branch copies the rows as they are and still decodes exactly.
    const child = await store.forkSession(session.id);
    expect(await store.listMessages(child.id)).toEqual([message]);
  });

  it('reopening the file preserves sessions, messages, model config, verdicts and requests', async () => {
    const first = open();
    const session = await first.createSession({ title: 'kept', modelConfig: { a: 1 } });
    await first.appendMessages(session.id, conversation());
    await first.patchModelConfig(session.id, { b: 2 });
    await first.recordVerdict({
      routeKey: 'p|h|m',
      provider: 'p',
      host: 'h',
      model: 'm',
      fields: ['reasoning'],
      errorText: 'e',
      at: 5,
    });
    await first.recordRequest({
      sessionId: session.id,
      at: 6,
      api: 'gemini',
      routeKey: 'p|h|m',
      status: 200,
      decisions: [{ kept: true }],
    });
    const before = {
      session: await first.getSession(session.id),
      verdicts: await first.listVerdicts(),
      requests: await first.listRequests(session.id),
    };
    await first.close();
    const second = open();
    expect(second.schemaVersion).toBe(SQLITE_SCHEMA_VERSION);
    expect(await second.getSession(session.id)).toEqual(before.session);
    expect(await second.listMessages(session.id)).toStrictEqual(conversation());
    expect(await second.listVerdicts()).toEqual(before.verdicts);
    expect(await second.listRequests(session.id)).toEqual(before.requests);
  });

  it("two store instances on one file see each other's writes (CLI + gateway)", async () => {
    const cli = open();
    const gateway = open();
    const session = await cli.createSession({ id: 'shared' });
    await gateway.appendMessage(session.id, { role: 'user', content: 'from the gateway' });
    expect(await cli.appendMessage(session.id, { role: 'user', content: 'from the cli' })).toBe(2);
    await gateway.patchModelConfig(session.id, { learned: true });
    expect(await cli.listMessages(session.id)).toEqual([
      { role: 'user', content: 'from the gateway' },
      { role: 'user', content: 'from the cli' },
    ]);
    expect((await cli.getSession(session.id))?.modelConfig).toEqual({ learned: true });
  });

  it('reads a history longer than one page whole and in order, and lists sessions at any limit', async () => {
    const store = open();
    const long = await store.createSession({ id: 'long' });
    const texts = Array.from({ length: MESSAGE_PAGE_ROWS * 2 + 345 }, (_, index) => `message ${index}`);
    await store.appendMessages(
      long.id,
      texts.map((content) => ({ role: 'user', content })),
    );
    for (const includeArchived of [false, true]) {
      const read = await store.listMessages(long.id, { includeArchived });
      expect(read.map((message) => message.content)).toEqual(texts);
    }
    await store.createSession({ id: 'newer' });
    await store.createSession({ id: 'newest' });
    // Each limit has its own statement; asking again, in any order, gives the same rows.
    for (const limit of [1, 2, undefined, 1, 3, 2]) {
      const ids = (await store.listSessions(limit === undefined ? {} : { limit })).map((session) => session.id);
      expect(ids).toEqual(['newest', 'newer', 'long'].slice(0, limit ?? 3));
    }
    expect((await store.latestSession())?.id).toBe('newest');
  });

  it('tolerates invalid JSON in model_config (SPEC §18) and repairs it on the next patch', async () => {
    const store = open();
    const session = await store.createSession({ id: 'broken', modelConfig: { a: 1 } });
    raw().prepare("UPDATE sessions SET model_config = '{not json' WHERE id = 'broken'").run();
    expect((await store.getSession(session.id))?.modelConfig).toEqual({});
    expect(await store.patchModelConfig(session.id, { b: 2 })).toEqual({ b: 2 });
    expect((await store.getSession(session.id))?.modelConfig).toEqual({ b: 2 });
  });

  it('forkSession rolls back a failure in the middle of the row copy: no child remains', async () => {
    const store = open();
    const source = await store.createSession({ id: 'source' });
    await store.appendMessages(source.id, conversation());
    // Another connection installs a trigger that fails the 4th copied row, as a full disk would.
    raw().exec(`CREATE TRIGGER fail_branch_copy BEFORE INSERT ON messages
      WHEN NEW.session_id <> 'source' AND NEW.seq = 4
      BEGIN SELECT RAISE(ABORT, 'simulated failure mid-copy'); END`);
    await expect(store.forkSession(source.id)).rejects.toThrow('simulated failure mid-copy');
    expect((await store.listSessions()).map((session) => session.id)).toEqual(['source']);
    const counts = raw().prepare('SELECT session_id, COUNT(*) AS n FROM messages GROUP BY session_id').all();
    expect(counts).toEqual([{ session_id: 'source', n: conversation().length }]);
  });

  it('a file that is not SQLite fails with a HermesError naming the path, not a stack trace', () => {
    const directory = temporaryDirectory();
    const notDatabase = join(directory, 'state.db');
    writeFileSync(notDatabase, 'this is a text file, not a database\n'.repeat(200));
    const caught = thrownBy(() => openSqliteSessionStore(notDatabase));
    expect(caught).toBeInstanceOf(HermesError);
    expect((caught as Error).message).toContain(notDatabase);
    expect((caught as Error).message).toContain('file is not a database');
    expect((caught as Error).message).toContain('move it aside');
  });

  it('moves the turn fingerprints of a version-10 file into their keyed table, rows and lookups kept', async () => {
    mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
    const old = raw();
    for (const migration of SQLITE_MIGRATIONS.slice(0, 10)) old.exec(migration);
    old.pragma('user_version = 10');
    old
      .prepare('INSERT INTO sessions (id, created_at, updated_at) VALUES (?, 1, 1), (?, 2, 2)')
      .run('20260101-000000-aaaaaa', '20260101-000000-bbbbbb');
    const note = old.prepare('INSERT INTO turn_fingerprints (fingerprint, session_id, noted_at) VALUES (?, ?, ?)');
    note.run('shared', '20260101-000000-aaaaaa', 10);
    note.run('shared', '20260101-000000-bbbbbb', 20);
    note.run('only-a', '20260101-000000-aaaaaa', 30);
    old.close();
    const store = open();
    expect(store.schemaVersion).toBe(SQLITE_SCHEMA_VERSION);
    expect(await store.sessionsWithTurn('shared', 5)).toEqual(['20260101-000000-bbbbbb', '20260101-000000-aaaaaa']);
    expect(await store.sessionHoldsTurn('20260101-000000-aaaaaa', 'only-a')).toBe(true);
    expect(await store.sessionHoldsTurn('20260101-000000-bbbbbb', 'only-a')).toBe(false);
    const database = raw();
    const table = database.prepare("SELECT sql FROM sqlite_master WHERE name = 'turn_fingerprints'").get() as {
      sql: string;
    };
    expect(table.sql).toContain('WITHOUT ROWID');
    const indexes = database
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'turn_fingerprints' ORDER BY name")
      .all();
    // The table is its key's b-tree: one index beside it.
    expect(indexes).toEqual([{ name: 'turn_fingerprints_newest' }]);
    // The key still cascades with its session.
    await store.deleteSession('20260101-000000-aaaaaa');
    expect(await store.sessionsWithTurn('shared', 5)).toEqual(['20260101-000000-bbbbbb']);
  });

  it("stores each session's live message count, backfilled from a version-11 file and kept by any statement", async () => {
    mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
    const old = raw();
    for (const migration of SQLITE_MIGRATIONS.slice(0, 11)) old.exec(migration);
    old.pragma('user_version = 11');
    old.prepare('INSERT INTO sessions (id, created_at, updated_at) VALUES (?, 1, 1), (?, 2, 2)').run('a', 'b');
    const insert = old.prepare(
      'INSERT INTO messages (session_id, seq, role, content, archived) VALUES (?, ?, ?, ?, ?)',
    );
    insert.run('a', 1, 'user', 'q', 1);
    insert.run('a', 2, 'user', 'q', null);
    insert.run('a', 3, 'assistant', 'a', null);
    insert.run('b', 1, 'user', 'q', null);
    old.close();
    const store = open();
    const counts = async () => [
      (await store.getSession('a'))?.messageCount,
      (await store.getSession('b'))?.messageCount,
    ];
    expect(await counts()).toEqual([2, 1]);
    // Statements that are not the store's (another program, a manual fix) keep the count too.
    const database = raw();
    database.prepare('UPDATE messages SET archived = NULL WHERE session_id = ? AND seq = 1').run('a');
    expect(await counts()).toEqual([3, 1]);
    database.prepare('UPDATE messages SET archived = 2 WHERE session_id = ?').run('a');
    expect(await counts()).toEqual([0, 1]);
    database.prepare('UPDATE messages SET session_id = ?, seq = seq + 10 WHERE session_id = ?').run('a', 'b');
    expect(await counts()).toEqual([1, 0]);
    database.prepare('DELETE FROM messages WHERE session_id = ?').run('a');
    expect(await counts()).toEqual([0, 0]);
    await store.appendMessages('b', conversation());
    expect(await counts()).toEqual([0, conversation().length]);
    // The count is a column of the session's row, kept by three triggers on messages.
    const triggers = database
      .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'messages' ORDER BY name")
      .pluck()
      .all();
    expect(triggers).toEqual(['messages_counted_delete', 'messages_counted_insert', 'messages_counted_update']);
  });

  it('refuses a file written by a newer schema version', async () => {
    const store = open();
    await store.close();
    raw().pragma(`user_version = ${SQLITE_SCHEMA_VERSION + 1}`);
    expect(() => openSqliteSessionStore(path)).toThrow(
      `has schema version ${SQLITE_SCHEMA_VERSION + 1}, newer than this hermes understands`,
    );
  });

  it('a unknown parent on createSession is a UsageError, not a constraint failure', async () => {
    const store = open();
    await expect(store.createSession({ parentSessionId: 'ghost' })).rejects.toThrow(UsageError);
  });
});
