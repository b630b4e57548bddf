import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresSessionStore } from '../../src/storage/postgres-session-store.js';
import { openSqliteSessionStore } from '../../src/storage/sqlite-session-store.js';
import type { SessionStore } from '../../src/storage/session-store.js';
import { countPostgresWrites, countSqliteCommits } from '../support/transaction-counters.js';
import { createTestDatabase, skipWithoutPostgres } from '../storage/postgres-test-database.js';
import { makeGatewaySandbox, startPersona, testApp } from './gateway-test-helpers.js';

/**
 * A gateway turn on a stored session writes twice (SPEC §23.6): the lease with the question,
 * then the answer with its request record and the lease's release. A front-door turn on a
 * client-named session writes once (its mirror: messages, fields and record with the lease taken
 * and dropped). Counted at the database (SQLite WAL commit frames, PostgreSQL COMMITs through a
 * driver hook), through the real HTTP app against the DeepSeek emulator, streaming and not.
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A gateway app over `store`, and one turn on it (the session named, or a new one). */
async function appOver(store: SessionStore) {
  const { emulator, route } = await startPersona('deepseek');
  cleanups.push(() => emulator.close());
  const app = testApp(store, route, makeGatewaySandbox().workspace);
  return async (text: string, stream: boolean, sessionId?: string): Promise<string> => {
    const response = await app.request('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(sessionId ? { 'X-Hermes-Session-Id': sessionId } : {}) },
      body: JSON.stringify({ stream, messages: [{ role: 'user', content: text }] }),
    });
    const body = await response.text();
    expect(response.status, body).toBe(200);
    if (stream) expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);
    return response.headers.get('X-Hermes-Session-Id') as string;
  };
}

/** One `/v1/messages` turn of a client-named session (the client holds the history). */
async function messagesTurn(app: ReturnType<typeof testApp>, sessionId: string, history: unknown[], stream: boolean) {
  const response = await app.request('/v1/messages', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
      'X-Hermes-Session-Id': sessionId,
    },
    body: JSON.stringify({ model: 'deepseek-v4-flash', max_tokens: 100, stream, messages: history }),
  });
  const text = await response.text();
  expect(response.status, text).toBe(200);
}

describe.each([false, true])('a continuing gateway turn (stream %s)', (stream) => {
  it('through /v1/messages is one SQLite commit', async () => {
    const { dbPath, workspace } = makeGatewaySandbox();
    const store = openSqliteSessionStore(dbPath);
    cleanups.push(() => store.close());
    const { emulator, route } = await startPersona('deepseek');
    cleanups.push(() => emulator.close());
    const app = testApp(store, route, workspace);
    const sessionId = 'client-session-1';
    const history: unknown[] = [{ role: 'user', content: 'hello there' }];
    await messagesTurn(app, sessionId, history, stream);
    history.push(
      { role: 'assistant', content: 'an earlier answer' },
      { role: 'user', content: 'and a second question' },
    );
    const commits = await countSqliteCommits(dbPath, () => messagesTurn(app, sessionId, history, stream));
    expect(commits).toBe(1);
    expect((await store.listMessages(sessionId)).map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(await store.readLease(sessionId)).toBeNull();
  });

  it('is two SQLite commits', async () => {
    const { dbPath } = makeGatewaySandbox();
    const store = openSqliteSessionStore(dbPath);
    cleanups.push(() => store.close());
    const turn = await appOver(store);
    const sessionId = await turn('hello there', stream);
    const commits = await countSqliteCommits(dbPath, () => turn('and a second question', stream, sessionId));
    expect(commits).toBe(2);
    const messages = await store.listMessages(sessionId);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(await store.listRequests(sessionId)).toHaveLength(2);
    expect(await store.readLease(sessionId)).toBeNull();
  });

  it.skipIf(skipWithoutPostgres())('is two PostgreSQL write transactions', async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const store = openPostgresSessionStore(database.url);
    cleanups.push(() => store.close());
    const turn = await appOver(store);
    const sessionId = await turn('hello there', stream);
    const writes = await countPostgresWrites(() => turn('and a second question', stream, sessionId));
    expect(writes).toBe(2);
    expect(await store.listMessages(sessionId)).toHaveLength(4);
    expect(await store.readLease(sessionId)).toBeNull();
  });
});
