import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { openPostgresSessionStore, type PostgresSessionStore } from '../../src/storage/postgres-session-store.js';
import { POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION } from '../../src/storage/postgres-schema.js';
import { redactDatabaseUrl } from '../../src/storage/postgres-errors.js';
import { SessionBusyError } from '../../src/storage/session-lease.js';
import { StorageError } from '../../src/storage/storage-errors.js';
import { openSessionStore, selectedStoreUrl } from '../../src/storage/store-open.js';
import { createTestDatabase, createTestSchema, skipWithoutPostgres } from './postgres-test-database.js';
import { everyCarrierMessage } from './session-store-messages.js';

/**
 * What the PostgreSQL store adds to the shared contract (SPEC §23.6): migrations applied once
 * under an advisory lock by processes starting together, concurrent writers on one session,
 * bytes kept as text, one-line failures, and store selection by URL.
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function open(url: string): PostgresSessionStore {
  const store = openPostgresSessionStore(url);
  cleanups.push(() => store.close());
  return store;
}

async function rawQuery<Row extends object>(url: string, text: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end();
  }
}

describe.skipIf(skipWithoutPostgres())('PostgreSQL store specifics', () => {
  it('five processes starting together on an empty database migrate it exactly once', async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const stores = Array.from({ length: 5 }, () => open(database.url));
    const described = await Promise.all(stores.map((store) => store.describe()));
    for (const description of described) {
      expect(description).toEqual({
        kind: 'postgres',
        schemaVersion: POSTGRES_SCHEMA_VERSION,
        location: redactDatabaseUrl(database.url),
      });
    }
    const versions = await rawQuery<{ version: number }>(database.url, 'SELECT version FROM hermes_schema_migrations');
    // Each migration applied exactly once: 1, 2, … up to this build's version.
    const expected = Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_unused, index) => index + 1);
    expect(versions.map((row) => row.version).sort((a, b) => a - b)).toEqual(expected);
  });

  it('keys turn fingerprints by (session_id, fingerprint), with the newest-holders index beside', async () => {
    const schema = await createTestSchema();
    cleanups.push(schema.drop);
    const store = open(schema.url);
    const session = await store.createSession({ id: 'fingerprinted' });
    await store.writeTurn(session.id, { fingerprints: ['f1', 'f1', 'f2'] });
    expect(await store.sessionsWithTurn('f1', 5)).toEqual(['fingerprinted']);
    expect(await store.sessionHoldsTurn('fingerprinted', 'f2')).toBe(true);
    const indexes = await rawQuery<{ indexname: string; indexdef: string }>(
      schema.url,
      "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'turn_fingerprints' AND schemaname = current_schema() ORDER BY indexname",
    );
    expect(indexes.map((index) => index.indexname)).toEqual(['turn_fingerprints_newest', 'turn_fingerprints_pkey']);
    expect(indexes[1]?.indexdef).toContain('(session_id, fingerprint)');
  });

  it("stores each session's live message count, backfilled from a version-9 schema and kept by any statement", async () => {
    const schema = await createTestSchema();
    cleanups.push(schema.drop);
    const client = new pg.Client({ connectionString: schema.url });
    await client.connect();
    try {
      await client.query(
        'CREATE TABLE hermes_schema_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL)',
      );
      for (const [index, migration] of POSTGRES_MIGRATIONS.slice(0, 9).entries()) {
        await client.query(migration);
        await client.query('INSERT INTO hermes_schema_migrations (version, applied_at) VALUES ($1, 0)', [index + 1]);
      }
      await client.query("INSERT INTO sessions (id, created_at, updated_at) VALUES ('a', 1, 1), ('b', 2, 2)");
      await client.query(
        `INSERT INTO messages (session_id, seq, role, content, archived) VALUES
         ('a', 1, 'user', 'q', 1), ('a', 2, 'user', 'q', NULL), ('a', 3, 'assistant', 'a', NULL), ('b', 1, 'user', 'q', NULL)`,
      );
    } finally {
      await client.end();
    }
    const store = open(schema.url);
    const counts = async () => [
      (await store.getSession('a'))?.messageCount,
      (await store.getSession('b'))?.messageCount,
    ];
    expect(await counts()).toEqual([2, 1]);
    // Statements that are not the store's keep the count too, several rows and sessions at once.
    await rawQuery(schema.url, "UPDATE messages SET archived = NULL WHERE session_id = 'a' AND seq = 1");
    expect(await counts()).toEqual([3, 1]);
    await rawQuery(schema.url, "UPDATE messages SET archived = 2 WHERE session_id = 'a'");
    expect(await counts()).toEqual([0, 1]);
    await rawQuery(schema.url, "UPDATE messages SET session_id = 'a', seq = seq + 10 WHERE session_id = 'b'");
    expect(await counts()).toEqual([1, 0]);
    await rawQuery(schema.url, 'DELETE FROM messages');
    expect(await counts()).toEqual([0, 0]);
    const messages: Message[] = [
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'two' },
    ];
    await store.appendMessages('b', messages);
    expect(await counts()).toEqual([0, 2]);
    // The count is a column of the session's row, kept by three statement triggers on messages.
    const triggers = await rawQuery<{ name: string }>(
      schema.url,
      `SELECT DISTINCT trigger_name AS name FROM information_schema.triggers
       WHERE event_object_table = 'messages' AND trigger_schema = current_schema() ORDER BY name`,
    );
    expect(triggers.map((row) => row.name)).toEqual([
      'messages_counted_delete',
      'messages_counted_insert',
      'messages_counted_update',
    ]);
  });

  it('concurrent appends from two processes get distinct, gapless sequence numbers; one lease wins', async () => {
    const schema = await createTestSchema();
    cleanups.push(schema.drop);
    const [one, two] = [open(schema.url), open(schema.url)];
    const session = await one.createSession({ id: 'shared' });
    const writes = Array.from({ length: 40 }, (_unused, index) =>
      (index % 2 ? one : two).appendMessage(session.id, { role: 'user', content: `m${index}` }),
    );
    const sequences = await Promise.all(writes);
    expect([...sequences].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_unused, index) => index + 1));
    expect((await two.listMessages(session.id)).map((message) => message.content).sort()).toEqual(
      Array.from({ length: 40 }, (_unused, index) => `m${index}`).sort(),
    );
    const claim = (leaseId: string, pid: number) => ({
      leaseId,
      owner: 'hermes gateway',
      pid,
      host: 'fleet-host',
      ttlMs: 60_000,
      holderGone: () => false,
    });
    const outcomes = await Promise.allSettled([
      one.acquireLease(session.id, claim('a', 1)),
      two.acquireLease(session.id, claim('b', 2)),
      one.acquireLease(session.id, claim('c', 3)),
    ]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const refusals = outcomes.filter((outcome) => outcome.status === 'rejected');
    for (const refusal of refusals) expect((refusal as PromiseRejectedResult).reason).toBeInstanceOf(SessionBusyError);
  });

  it('keeps opaque JSON as text, byte for byte (key order, escapes), never jsonb', async () => {
    const schema = await createTestSchema();
    cleanups.push(schema.drop);
    const store = open(schema.url);
    const session = await store.createSession();
    const message = everyCarrierMessage();
    await store.appendMessage(session.id, message);
    const [row] = await rawQuery<{ reasoning_details: string; details_type: string }>(
      schema.url,
      `SELECT reasoning_details, pg_typeof(reasoning_details)::text AS details_type FROM messages`,
    );
    expect(row?.details_type).toBe('text');
    expect(JSON.parse(row?.reasoning_details ?? 'null')).toBeInstanceOf(Array);
    const [stored] = await store.listMessages(session.id);
    expect(JSON.stringify(stored)).toBe(JSON.stringify(message));
    const types = await rawQuery<{ data_type: string }>(
      schema.url,
      "SELECT DISTINCT data_type FROM information_schema.columns WHERE table_schema = current_schema() AND data_type LIKE 'json%'",
    );
    expect(types).toEqual([]);
  });

  it('newer schema, missing table and unreachable server are one line each, without the password', async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    await open(database.url).describe();
    await rawQuery(database.url, 'INSERT INTO hermes_schema_migrations VALUES (99, 0)');
    const newer = openPostgresSessionStore(database.url);
    await expect(newer.listSessions()).rejects.toThrow(
      `the session database ${redactDatabaseUrl(database.url)} has schema version 99, newer than this hermes understands`,
    );
    await newer.close();
    await rawQuery(database.url, 'DELETE FROM hermes_schema_migrations WHERE version = 99');
    await rawQuery(database.url, 'DROP TABLE requests');
    const missing = openPostgresSessionStore(database.url);
    await expect(missing.listSessions()).rejects.toThrow('has no table "requests"');
    await missing.close();

    const port = await closedPort();
    const unreachable = openPostgresSessionStore(`postgres://hermes:s3cret-pass@127.0.0.1:${port}/db`);
    const failure = await unreachable.listSessions().catch((error: unknown) => error);
    await unreachable.close();
    expect(failure).toBeInstanceOf(StorageError);
    expect((failure as StorageError).kind).toBe('unreachable');
    expect((failure as Error).message).toMatch(
      new RegExp(
        `^cannot reach the session database postgres://hermes@127\\.0\\.0\\.1:${port}/db \\(.*ECONNREFUSED.*\\): check storage\\.url`,
      ),
    );
    expect((failure as Error).message).not.toContain('s3cret');
  });

  it('is selected by HERMES_DATABASE_URL over storage.url; sqlite:PATH and unknown schemes too', async () => {
    const schema = await createTestSchema();
    cleanups.push(schema.drop);
    expect(selectedStoreUrl('sqlite:/x.db', { HERMES_DATABASE_URL: schema.url })).toBe(schema.url);
    expect(selectedStoreUrl('sqlite:/x.db', {})).toBe('sqlite:/x.db');
    const store = openSessionStore({ url: schema.url, home: '/nonexistent' });
    cleanups.push(() => store.close());
    expect((await store.describe()).kind).toBe('postgres');
    const session = await store.createSession();
    await store.appendMessage(session.id, { role: 'user', content: 'hi' } as Message);
    expect(await store.listMessages(session.id)).toEqual([{ role: 'user', content: 'hi' }]);
    expect(() => openSessionStore({ url: 'mysql://u:p@h/db', home: '/h' })).toThrow(
      'unknown storage URL "mysql://h/db": use postgres://USER:PASSWORD@HOST:PORT/DATABASE or sqlite:PATH',
    );
  });
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
