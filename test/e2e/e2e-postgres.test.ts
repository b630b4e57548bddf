import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { startChatEmulator } from '../../src/emulators/chat-completions/chat-emulator.js';
import type { RunningChatEmulator } from '../../src/emulators/chat-completions/chat-emulator-types.js';
import { openPostgresSessionStore } from '../../src/storage/postgres-session-store.js';
import { stateDbPath } from '../../src/storage/store-paths.js';
import { createTestDatabase, skipWithoutPostgres } from '../storage/postgres-test-database.js';
import { assistantsOf, chatJson, parseJson, routeArgs, runHermes, useE2e } from '../support/e2e.js';

/**
 * The real CLI on PostgreSQL (SPEC §23.6): `chat`, `--resume`, `sessions`, `routes` and
 * `replay preview --session` all use the store `HERMES_DATABASE_URL` (or `storage.url`) names,
 * and nothing is written to `$HERMES_HOME/state.db`.
 */

const e2e = useE2e();

describe.skipIf(skipWithoutPostgres())('hermes on PostgreSQL', () => {
  it('chat with tools, resume with every reasoning carrier replayed, sessions, routes and replay preview', async () => {
    const database = await createTestDatabase();
    e2e.defer(database.drop);
    const emulator: RunningChatEmulator = await startChatEmulator({ persona: 'deepseek' });
    e2e.defer(() => emulator.close());
    const sandbox = e2e.sandbox();
    const env = { HERMES_DATABASE_URL: database.url };
    const route = routeArgs('deepseek', 'deepseek-v4-flash', emulator.baseUrl);
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route], env);
    const sessionId = first.session_id;

    const before = emulator.requests.length;
    await chatJson(sandbox, ['--resume', sessionId, '-q', 'and now?', ...route], env);
    // DeepSeek must get every stored reasoning_content back after a resume (WIRE.md, SPEC §4).
    const replayed = assistantsOf(emulator.requests[before]?.body);
    expect(replayed.length).toBeGreaterThan(0);
    expect(replayed.every((message) => typeof message['reasoning_content'] === 'string')).toBe(true);
    expect(emulator.requests.slice(before).every((request) => request.status === 200)).toBe(true);

    const store = openPostgresSessionStore(database.url);
    e2e.defer(() => store.close());
    const stored = await store.listMessages(sessionId);
    // The session's system prompt is its first stored message.
    expect(stored.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
    ]);

    const listed = await runHermes(['sessions', 'list', '--json'], sandbox, env);
    expect(parseJson<{ id: string; message_count: number }[]>(listed)).toEqual([
      expect.objectContaining({ id: sessionId, message_count: 7 }),
    ]);
    const shown = parseJson<{ messages: Message[] }>(
      await runHermes(['sessions', 'show', sessionId, '--json'], sandbox, env),
    );
    expect(shown.messages).toStrictEqual(stored);
    const preview = await runHermes(['replay', 'preview', '--session', sessionId, '--json'], sandbox, env);
    expect(preview.code, preview.stderr).toBe(0);
    const previewed = JSON.parse(preview.stdout) as { messages: Record<string, unknown>[] };
    expect(previewed.messages.filter((message) => message['role'] === 'assistant')).toHaveLength(3);
    await store.recordVerdict({
      routeKey: 'groq|api.groq.com|m',
      provider: 'groq',
      host: 'api.groq.com',
      model: 'm',
      fields: ['reasoning'],
      errorText: 'property reasoning is unsupported',
    });
    const verdicts = await runHermes(['routes', 'verdicts'], sandbox, env);
    expect(verdicts.code, verdicts.stderr).toBe(0);
    expect(verdicts.stdout).toContain('groq|api.groq.com|m');
    expect(existsSync(stateDbPath(sandbox.home))).toBe(false);
  });

  it('storage.url in config.yaml selects it too; a bad URL is one line', async () => {
    const database = await createTestDatabase();
    e2e.defer(database.drop);
    const sandbox = e2e.sandbox();
    writeFileSync(join(sandbox.home, 'config.yaml'), `storage:\n  url: ${database.url}\n`);
    const chat = await runHermes(['chat', '-q', 'hello', '--json'], sandbox);
    expect(chat.code, chat.stderr).toBe(0);
    const store = openPostgresSessionStore(database.url);
    e2e.defer(() => store.close());
    expect(await store.listSessions()).toHaveLength(1);
    expect(existsSync(stateDbPath(sandbox.home))).toBe(false);

    const refused = await runHermes(['sessions', 'list'], sandbox, {
      HERMES_DATABASE_URL: 'postgres://hermes:s3cret@127.0.0.1:1/nowhere',
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^hermes: cannot reach the session database postgres:\/\/hermes@127\.0\.0\.1:1\/nowhere \(/,
    );
    expect(refused.stderr).not.toContain('s3cret');
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('sessions migrate: state.db to PostgreSQL and back, verified, idempotent', async () => {
    const database = await createTestDatabase();
    e2e.defer(database.drop);
    const sandbox = e2e.sandbox();
    const chat = await runHermes(['chat', '-q', 'read the file notes.txt', '--json'], sandbox);
    const sessionId = parseJson<{ session_id: string }>(chat).session_id;
    const up = await runHermes(['sessions', 'migrate', '--to', database.url], sandbox);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toContain(`migrated sqlite:${stateDbPath(sandbox.home)} -> postgres://`);
    expect(up.stdout).toMatch(/sessions: 1 \(1 copied, 0 extended, 0 already there\)/);
    // system prompt, user, assistant tool call, tool result, answer
    expect(up.stdout).toMatch(/messages: 5 \(5 copied\); sha-256 of stored bytes verified for 5/);
    expect(up.stdout).not.toContain(new URL(database.url).password || 'no-password-in-url');
    const again = await runHermes(['sessions', 'migrate', '--to', database.url, '--json'], sandbox);
    expect(parseJson<{ sessions: { unchanged: number }; messages: { copied: number } }>(again)).toMatchObject({
      sessions: { unchanged: 1 },
      messages: { copied: 0 },
    });
    const backPath = join(sandbox.home, 'back.db');
    const down = await runHermes(
      ['sessions', 'migrate', '--from', database.url, '--to', `sqlite:${backPath}`],
      sandbox,
    );
    expect(down.code, down.stderr).toBe(0);
    const shownBack = await runHermes(['sessions', 'show', sessionId, '--json'], sandbox, {
      HERMES_DATABASE_URL: `sqlite:${backPath}`,
    });
    const shownHere = await runHermes(['sessions', 'show', sessionId, '--json'], sandbox);
    expect(parseJson(shownBack)).toStrictEqual(parseJson(shownHere));
  });
});

describe('sessions migrate without a server', () => {
  it('copies state.db to another SQLite file; a missing source and an unknown scheme are one line', async () => {
    const sandbox = e2e.sandbox();
    await runHermes(['chat', '-q', 'hello', '--json'], sandbox);
    const copy = join(sandbox.home, 'copy.db');
    const run = await runHermes(['sessions', 'migrate', '--to', `sqlite:${copy}`], sandbox);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/sessions: 1 \(1 copied/);
    const missing = await runHermes(
      ['sessions', 'migrate', '--from', join(sandbox.home, 'nope.db'), '--to', `sqlite:${copy}`],
      sandbox,
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`hermes: no session database at ${join(sandbox.home, 'nope.db')}\n`);
    const unknown = await runHermes(['sessions', 'migrate', '--to', 'mysql://u:p@h/db'], sandbox);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('hermes: unknown store "mysql://h/db": use postgres://… or sqlite:PATH\n');
  });
});
