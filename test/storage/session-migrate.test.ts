import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { openPostgresRows } from '../../src/storage/postgres-rows.js';
import { openPostgresSessionStore } from '../../src/storage/postgres-session-store.js';
import { migrateSessions, migrateSucceeded } from '../../src/storage/session-migrate.js';
import type { SessionStore } from '../../src/storage/session-store.js';
import { openSqliteRows } from '../../src/storage/sqlite-rows.js';
import { openSqliteSessionStore } from '../../src/storage/sqlite-session-store.js';
import type { StoreRows } from '../../src/storage/store-rows.js';
import { createTestSchema, skipWithoutPostgres } from './postgres-test-database.js';
import { conversation, everyCarrierMessage } from './session-store-messages.js';

/**
 * `hermes sessions migrate` (SPEC §23.6): every session, message, request record, verdict and handle key is
 * copied, counts and each message's stored-bytes hash verified, idempotently, SQLite to
 * PostgreSQL and back.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function databasePath(): string {
  const directory = mkdtempSync(join(tmpdir(), 'hermes-migrate-'));
  cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
  return join(directory, 'state.db');
}

function track<T extends { close(): Promise<void> }>(value: T): T {
  cleanups.push(() => value.close());
  return value;
}

/** A store with two sessions (one a branch of the other), requests, a verdict and every carrier kind. */
async function fill(store: SessionStore): Promise<string[]> {
  const parent = await store.createSession({
    title: 'Parent',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    api: 'anthropic_messages',
    modelConfig: { _anthropic_rejected_thinking: ['fp-1'], z: 1, a: { y: 2, b: 3 } },
  });
  await store.appendMessages(parent.id, [...conversation(), everyCarrierMessage()]);
  await store.recordRequest({
    sessionId: parent.id,
    at: 1_764_444_000_123,
    api: 'anthropic_messages',
    routeKey: 'anthropic|api.anthropic.com|claude-sonnet-4-5',
    status: 200,
    decisions: [{ messageIndex: 1, field: 'thinking', action: 'kept', reason: 'same issuer', bytes: 812 }],
  });
  const child = await store.forkSession(parent.id, { title: 'Branch' });
  await store.appendMessage(child.id, {
    role: 'user',
    content: 'only in the branch',
    reasoning_content: '',
  } as Message);
  await store.recordVerdict({
    routeKey: 'groq|api.groq.com|qwen',
    provider: 'groq',
    host: 'api.groq.com',
    model: 'qwen',
    fields: ['reasoning'],
    errorText: "property 'reasoning' is unsupported",
    at: 1_764_000_000_000,
  });
  await store.addHandleKey({ id: 'key-1', secret: 'c2VjcmV0LWtleS1ieXRlcw', createdAt: 1_764_000_000_500 });
  await store.addTurnFingerprint(parent.id, 'fingerprint-of-an-answer');
  await store.addGatewayUser({
    name: 'alice',
    keyHash: 'ab'.repeat(32),
    requestsPerMinute: 30,
    createdAt: 1_764_000_000_600,
    revokedAt: null,
  });
  return [parent.id, child.id];
}

async function snapshot(store: SessionStore, ids: string[]) {
  return {
    sessions: await Promise.all(ids.map((id) => store.getSession(id))),
    messages: await Promise.all(ids.map((id) => store.listMessages(id))),
    requests: (await Promise.all(ids.map((id) => store.listRequests(id)))).map((list) =>
      list.map(({ id: _id, ...rest }) => rest),
    ),
    verdicts: await store.listVerdicts(),
    handleKeys: await store.listHandleKeys(),
    fingerprintHolders: await store.sessionsWithTurn('fingerprint-of-an-answer', 5),
    users: await store.listGatewayUsers(),
  };
}

async function migrate(source: StoreRows, target: StoreRows) {
  const report = await migrateSessions(source, target);
  expect(migrateSucceeded(report), JSON.stringify(report)).toBe(true);
  return report;
}

describe('sessions migrate between SQLite files', () => {
  it('copies everything with times, lineage and bytes; a second run writes nothing; new messages extend', async () => {
    const fromPath = databasePath();
    const from = openSqliteSessionStore(fromPath);
    const ids = await fill(from);
    const toPath = databasePath();
    const report = await migrate(track(openSqliteRows(fromPath)), track(openSqliteRows(toPath)));
    expect(report.sessions).toEqual({ total: 2, copied: 2, extended: 0, unchanged: 0 });
    expect(report.messages.verified).toBe(report.messages.total);
    expect(report.requests).toEqual({ total: 1, copied: 1 });
    expect(report.verdicts).toEqual({ total: 1, written: 1 });
    expect(report.handleKeys).toEqual({ total: 1, copied: 1 });
    expect(report.turnFingerprints).toEqual({ total: 1, copied: 1 });
    expect(report.users).toEqual({ total: 1, copied: 1 });
    const to = track(openSqliteSessionStore(toPath));
    expect(await snapshot(to, ids)).toStrictEqual(await snapshot(from, ids));

    const again = await migrate(track(openSqliteRows(fromPath)), track(openSqliteRows(toPath)));
    expect(again.sessions).toEqual({ total: 2, copied: 0, extended: 0, unchanged: 2 });
    expect(
      again.messages.copied +
        again.requests.copied +
        again.verdicts.written +
        again.handleKeys.copied +
        again.turnFingerprints.copied +
        again.users.copied,
    ).toBe(0);

    await from.appendMessage(ids[0] as string, { role: 'user', content: 'later' });
    const extended = await migrate(track(openSqliteRows(fromPath)), track(openSqliteRows(toPath)));
    expect(extended.sessions.extended).toBe(1);
    expect(extended.messages.copied).toBe(1);
    expect(await snapshot(to, ids)).toStrictEqual(await snapshot(from, ids));
    await from.close();
  });

  it('leaves a session whose target copy differs alone and reports the conflict', async () => {
    const fromPath = databasePath();
    const from = track(openSqliteSessionStore(fromPath));
    const [id] = await fill(from);
    const toPath = databasePath();
    await migrate(track(openSqliteRows(fromPath)), track(openSqliteRows(toPath)));
    const raw = new Database(toPath);
    raw.prepare("UPDATE messages SET content = 'edited' WHERE session_id = ? AND seq = 1").run(id);
    raw.close();
    const report = await migrateSessions(track(openSqliteRows(fromPath)), track(openSqliteRows(toPath)));
    expect(report.conflicts).toEqual([id]);
    expect(migrateSucceeded(report)).toBe(false);
  });
});

/** Compacts the session in place: the messages after the first user message but the last two become a summary. */
async function compact(store: SessionStore, id: string, text: string): Promise<void> {
  const live = await store.listMessages(id);
  const head = live.findIndex((message) => message.role === 'user') + 1;
  await store.compactInPlace(id, {
    from: head,
    to: live.length - 2,
    messages: [{ role: 'user', content: text }, ...live.slice(-2)],
    modelConfig: {
      compactions: [...(((await store.getSession(id))?.modelConfig['compactions'] as []) ?? []), { at: text }],
    },
  });
}

/** Every stored message of each session, archived ones included (marked). */
async function archive(store: SessionStore, ids: string[]) {
  return Promise.all(ids.map((id) => store.listMessages(id, { includeArchived: true, includeUndone: true })));
}

describe('sessions migrate carries in-place compaction (SPEC §26.6)', () => {
  it('copies archived messages with their marks; a session compacted again since is rewritten, not a conflict', async () => {
    const fromPath = databasePath();
    const from = track(openSqliteSessionStore(fromPath));
    const ids = await fill(from);
    const [parent] = ids as [string];
    for (let turn = 0; turn < 4; turn += 1) {
      await from.appendMessages(parent, [
        { role: 'user', content: `more ${turn}` },
        { role: 'assistant', content: `answer ${turn}` },
      ]);
    }
    await compact(from, parent, 'first summary');
    const toPath = databasePath();
    await migrate(track(openSqliteRows(fromPath)), track(openSqliteRows(toPath)));
    const to = track(openSqliteSessionStore(toPath));
    expect(await archive(to, ids)).toStrictEqual(await archive(from, ids));
    expect(await to.listMessages(parent)).toStrictEqual(await from.listMessages(parent));

    await from.appendMessages(parent, [
      { role: 'user', content: 'later' },
      { role: 'assistant', content: 'later answer' },
    ]);
    await compact(from, parent, 'second summary');
    const again = await migrate(track(openSqliteRows(fromPath)), track(openSqliteRows(toPath)));
    expect(again.sessions.extended).toBe(1);
    expect(again.conflicts).toEqual([]);
    expect(await archive(to, ids)).toStrictEqual(await archive(from, ids));
    expect((await to.getSession(parent))?.modelConfig['compactions']).toHaveLength(2);
  });

  it('a target that holds a message the source lacks stays a conflict', async () => {
    const fromPath = databasePath();
    const from = track(openSqliteSessionStore(fromPath));
    const [parent] = (await fill(from)) as [string];
    await from.appendMessages(parent, [{ role: 'user', content: 'one more' }]);
    const toPath = databasePath();
    await migrate(track(openSqliteRows(fromPath)), track(openSqliteRows(toPath)));
    const to = track(openSqliteSessionStore(toPath));
    await to.appendMessages(parent, [{ role: 'user', content: 'only in the target' }]);
    await compact(from, parent, 'summary');
    const report = await migrateSessions(track(openSqliteRows(fromPath)), track(openSqliteRows(toPath)));
    expect(report.conflicts).toEqual([parent]);
  });
});

describe.skipIf(skipWithoutPostgres())('sessions migrate SQLite -> PostgreSQL -> SQLite', () => {
  it('carries archived messages and their marks both ways', async () => {
    const fromPath = databasePath();
    const from = track(openSqliteSessionStore(fromPath));
    const ids = await fill(from);
    await from.appendMessages(ids[0] as string, [
      { role: 'user', content: 'more' },
      { role: 'assistant', content: 'answer' },
    ]);
    await compact(from, ids[0] as string, 'summary');
    const schema = await createTestSchema();
    cleanups.push(schema.drop);
    await migrate(track(openSqliteRows(fromPath)), track(openPostgresRows(schema.url)));
    const postgres = track(openPostgresSessionStore(schema.url));
    expect(await archive(postgres, ids)).toStrictEqual(await archive(from, ids));
    const backPath = databasePath();
    await migrate(track(openPostgresRows(schema.url)), track(openSqliteRows(backPath)));
    expect(await archive(track(openSqliteSessionStore(backPath)), ids)).toStrictEqual(await archive(from, ids));
  });

  it('round-trips every carrier kind with matching hashes, idempotently', async () => {
    const fromPath = databasePath();
    const from = track(openSqliteSessionStore(fromPath));
    const ids = await fill(from);
    // A row an older codec wrote: NUL inside a text column, which PostgreSQL text cannot hold.
    await from.appendMessage(ids[1] as string, { role: 'assistant', content: 'before' } as Message);
    const raw = new Database(fromPath);
    raw.prepare("UPDATE messages SET content = 'nul' || char(0) || 'inside' WHERE content = 'before'").run();
    raw.close();
    const schema = await createTestSchema();
    cleanups.push(schema.drop);

    const up = await migrate(track(openSqliteRows(fromPath)), track(openPostgresRows(schema.url)));
    expect(up.messages.reencoded).toBe(1);
    expect(up.messages.verified).toBe(up.messages.total);
    const postgres = track(openPostgresSessionStore(schema.url));
    expect(await snapshot(postgres, ids)).toStrictEqual(await snapshot(from, ids));
    expect((await postgres.listMessages(ids[1] as string)).at(-1)?.content).toBe('nul\u0000inside');

    const again = await migrate(track(openSqliteRows(fromPath)), track(openPostgresRows(schema.url)));
    expect(again.sessions.unchanged).toBe(2);
    expect(again.messages.copied).toBe(0);

    const backPath = databasePath();
    const down = await migrate(track(openPostgresRows(schema.url)), track(openSqliteRows(backPath)));
    expect(down.messages.verified).toBe(down.messages.total);
    expect(down.messages.reencoded).toBe(0);
    const back = track(openSqliteSessionStore(backPath));
    expect(await snapshot(back, ids)).toStrictEqual(await snapshot(from, ids));
  });
});
