import { describe, expect, it } from 'vitest';
import { openSqliteSessionStore } from '../../src/storage/sqlite-session-store.js';
import { stateDbPath } from '../../src/storage/store-paths.js';
import { parseJson, runHermes, useE2e, withStateDb, type ChatJson } from '../support/e2e.js';

/**
 * WIRE §8: a Responses relay's "… was not issued to this caller" and xAI's "Could not decrypt the
 * provided encrypted_content" are the same refusal as OpenAI's `invalid_encrypted_content`: the
 * emulator words it each way, and the real `hermes` binary answers each with the SPEC §12 kill
 * switch — one 400, one retry without encrypted reasoning, never sent again on that route.
 */

const e2e = useE2e();
type Json = Record<string, unknown>;

function chat(sessionId: string | null, query: string, baseUrl: string): string[] {
  const resume = sessionId === null ? [] : ['--resume', sessionId];
  const route = ['--provider', 'openai-responses', '--api', 'codex_responses', '--model', 'gpt-5.4'];
  return ['chat', ...resume, '-q', query, '--json', ...route, '--base-url', baseUrl, '--api-key', 'x'];
}

describe('encrypted reasoning refused in a relay’s or xAI’s words (WIRE §8)', () => {
  it.each([
    ['relay', 'was not issued to this caller'],
    ['xai', 'Could not decrypt the provided encrypted_content'],
  ] as const)('%s: one 400, then the kill switch and one retry', async (wording, text) => {
    const emulator = await e2e.responses({ issuer: 'openai', encryptedRejection: wording });
    const sandbox = e2e.sandbox();
    const first = parseJson<ChatJson>(
      await runHermes(chat(null, 'read the file notes.txt', emulator.baseUrl), sandbox),
    );
    // A blob the server will not take (as another account's would be).
    withStateDb(sandbox.home, (database) => {
      const row = database
        .prepare(
          'SELECT id, codex_reasoning_items FROM messages WHERE session_id = ? AND codex_reasoning_items IS NOT NULL ORDER BY seq LIMIT 1',
        )
        .get(first.session_id) as { id: number; codex_reasoning_items: string };
      const items = JSON.parse(row.codex_reasoning_items) as Json[];
      items[0]!['encrypted_content'] = `${String(items[0]?.['encrypted_content']).slice(0, -8)}AAAAAAA=`;
      database.prepare('UPDATE messages SET codex_reasoning_items = ? WHERE id = ?').run(JSON.stringify(items), row.id);
    });
    const before = emulator.requests.length;
    const resumed = parseJson<ChatJson>(await runHermes(chat(first.session_id, 'thanks', emulator.baseUrl), sandbox));
    expect(resumed.answer).toContain('You said: thanks');
    const attempts = emulator.requests.slice(before);
    expect(attempts.map((request) => request.status)).toEqual([400, 200]);
    expect(JSON.stringify((attempts[1]?.body as { input: unknown }).input)).not.toContain('encrypted_content');
    // The provider's complaint, as the failed request's record keeps it, is the reworded one.
    const store = openSqliteSessionStore(stateDbPath(sandbox.home));
    const failed = (await store.listRequests(first.session_id)).filter((record) => record.status === 400);
    await store.close();
    expect(failed.map((record) => record.error ?? '').join('\n')).toContain(text);
    const logs = await runHermes(['logs', '--level', 'warn', '--session', first.session_id], sandbox);
    expect(logs.stdout).toContain('encrypted reasoning rejected');
    const again = await runHermes(chat(first.session_id, 'and again', emulator.baseUrl), sandbox);
    expect(again.code).toBe(0);
    expect(emulator.requests.at(-1)?.status).toBe(200);
  });
});
