import { describe, expect, it } from 'vitest';
import { openPostgresSessionStore } from '../../src/storage/postgres-session-store.js';
import { openSqliteSessionStore } from '../../src/storage/sqlite-session-store.js';
import { stateDbPath } from '../../src/storage/store-paths.js';
import { createTestDatabase, skipWithoutPostgres } from '../storage/postgres-test-database.js';
import { parseJson, runHermes, useE2e } from '../support/e2e.js';
import { longSession, PLANTED_IDENTIFIERS } from '../support/long-session.js';

/**
 * In-place compaction on PostgreSQL (SPEC §26.6, §23.6): the real CLI compacts a session stored
 * in PostgreSQL in place, `sessions search` and `sessions show --archived` find the archive there,
 * and `hermes sessions migrate` carries a compacted SQLite session's archive to PostgreSQL.
 */

const e2e = useE2e();
const deepseek = (baseUrl: string) => ['--base-url', baseUrl, '--api-key', 'k'];

describe.skipIf(skipWithoutPostgres())('in-place compaction on PostgreSQL', () => {
  it('compacts in place, searches the archive, and migrate carries a compacted SQLite session', async () => {
    const database = await createTestDatabase();
    e2e.defer(database.drop);
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const sandbox = e2e.sandbox({ config: 'compaction:\n  context_window: 32000\n' });
    const env = { HERMES_DATABASE_URL: database.url };
    const history = longSession({ turns: 12, resultTokens: 1_500 });
    const create = {
      title: 'seeded',
      provider: 'deepseek',
      model: 'deepseek-v4-flash',
      baseUrl: emulator.baseUrl,
      api: 'chat_completions',
    };

    // PostgreSQL: compact in place through the CLI.
    const postgres = openPostgresSessionStore(database.url);
    e2e.defer(() => postgres.close());
    const onPostgres = await postgres.createSession(create);
    await postgres.appendMessages(onPostgres.id, history);
    const run = await runHermes(['sessions', 'compress', onPostgres.id, ...deepseek(emulator.baseUrl)], sandbox, env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`${onPostgres.id}\n`);
    const search = await runHermes(['sessions', 'search', PLANTED_IDENTIFIERS[0], '--json'], sandbox, env);
    expect(parseJson<{ session_id: string; archived: boolean }[]>(search)).toContainEqual(
      expect.objectContaining({ session_id: onPostgres.id, archived: true }),
    );
    const shown = await runHermes(['sessions', 'show', onPostgres.id, '--archived'], sandbox, env);
    expect(shown.stdout).toContain('(archived #1) Step 1: go on.');
    expect((await postgres.listMessages(onPostgres.id))[2]?.content).toMatch(/^\[Summary of the earlier part/);

    // SQLite: compact in place, then migrate to PostgreSQL; the archive comes along, marked.
    const sqlite = openSqliteSessionStore(stateDbPath(sandbox.home));
    const local = await sqlite.createSession(create);
    await sqlite.appendMessages(local.id, history);
    await sqlite.close();
    const compacted = await runHermes(['sessions', 'compress', local.id, ...deepseek(emulator.baseUrl)], sandbox);
    expect(compacted.code, compacted.stderr).toBe(0);
    const migrated = await runHermes(['sessions', 'migrate', '--to', database.url, '--json'], sandbox);
    expect(migrated.code, migrated.stderr).toBe(0);
    const reread = openSqliteSessionStore(stateDbPath(sandbox.home));
    const expected = await reread.listMessages(local.id, { includeArchived: true });
    await reread.close();
    expect(await postgres.listMessages(local.id, { includeArchived: true })).toStrictEqual(expected);
    expect(expected.some((message) => (message as { _archived?: number })._archived === 1)).toBe(true);
  });
});
