/**
 * Thinking signatures through a chat-completions relay, end to end through the real `hermes`
 * binary against the OpenRouter emulator.
 *
 * - SPEC §23.2: a `/model` switch never sends a blob the new model did not issue (a signed
 *   Anthropic-format detail or an encrypted one): no "Invalid signature in thinking block" at all.
 * - SPEC §24.8: when a relay does reject a signature (a stored blob that no longer verifies), the
 *   first such turn learns the fingerprints of the `reasoning_details` entries sent, persists them
 *   in the session, retries once and succeeds; no later turn fails that way again, and what was
 *   learned shows in `hermes routes verdicts` and `hermes doctor`.
 */
import { describe, expect, it } from 'vitest';
import { parseJson, readLog, routeArgs, runHermes, showSession, useE2e, withStateDb } from '../support/e2e.js';

const e2e = useE2e();

describe('SPEC §23.2 a model switch on a relay sends no foreign blob', () => {
  it('interactive chat: /model openai/gpt-5 after a signed tool loop, every request answers first time', async () => {
    const { emulator, sandbox, route } = await e2e.chatRoute(
      { persona: 'openrouter' },
      'openrouter',
      'anthropic/claude-sonnet-4.5',
    );
    const lines = ['read the file notes.txt', '/model openai/gpt-5', 'hello', 'again', '/exit'];
    const run = await runHermes(['chat', ...route], sandbox, {}, lines.map((line) => `${line}\n`).join(''));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('You said: hello');
    expect(run.stdout).toContain('You said: again');
    expect(run.stdout).not.toMatch(/signature rejected|^error:/m);
    expect(emulator.requests.map((request) => request.status)).toEqual([200, 200, 200, 200]);
    // After the switch no signature and no encrypted detail issued for Claude travels (the readable
    // reasoning does: the scripted model finds it intact); the new model's own turn replays its own.
    expect(emulator.requests[2]?.raw).not.toMatch(/"signature"|reasoning\.encrypted/);
    expect(emulator.requests[3]?.raw.match(/"signature"/g)).toHaveLength(1);
    expect(run.stdout).toMatch(/Reasoning continuity: intact \(3\/3\)/);
    expect(readLog(sandbox.home)).not.toMatch(/HTTP 400/);
  });

  it('the offline default (built-in emulator): /model openai/gpt-5 gets no 400 before answering', async () => {
    const sandbox = e2e.sandbox();
    const lines = ['read the file notes.txt', '/model openai/gpt-5', 'hello again', '/exit'];
    const run = await runHermes(['chat'], sandbox, {}, lines.map((line) => `${line}\n`).join(''));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('You said: hello again');
    expect(run.stdout).not.toMatch(/signature rejected/);
    expect(readLog(sandbox.home)).not.toMatch(/HTTP 400|Invalid .?signature/);
  });
});

describe('SPEC §24.8 signature rejections through a chat-completions relay', () => {
  it('a stored signature that no longer verifies: one 400, one retry without it, the fingerprints persisted and listed', async () => {
    const emulator = await e2e.chat({ persona: 'openrouter' });
    const sandbox = e2e.sandbox();
    const route = routeArgs('openrouter', 'anthropic/claude-sonnet-4.5', emulator.baseUrl);
    const first = parseJson<{ session_id: string }>(
      await runHermes(['chat', '-q', 'read the file notes.txt', '--json', ...route], sandbox),
    );
    // A stored signature that no longer verifies, as a key rotation upstream or a damaged row would leave it.
    withStateDb(sandbox.home, (database) => {
      const row = database
        .prepare(
          'SELECT id, reasoning_details FROM messages WHERE session_id = ? AND reasoning_details IS NOT NULL ORDER BY seq LIMIT 1',
        )
        .get(first.session_id) as { id: number; reasoning_details: string };
      const details = JSON.parse(row.reasoning_details) as Record<string, unknown>[];
      const signed = details.find((detail) => typeof detail['signature'] === 'string');
      const signature = String(signed?.['signature']);
      signed!['signature'] = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
      database.prepare('UPDATE messages SET reasoning_details = ? WHERE id = ?').run(JSON.stringify(details), row.id);
    });

    const resumed = await runHermes(['chat', '--resume', first.session_id, '-q', 'hello', '--json', ...route], sandbox);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(parseJson<{ answer: string }>(resumed).answer).toContain('You said: hello');
    expect(emulator.requests.map((request) => request.status)).toEqual([200, 200, 400, 200]);
    expect(emulator.requests[2]?.raw).toContain('reasoning_details');
    // The recovery runs only on a body matching the signature error (SPEC §24.8).
    expect(readLog(sandbox.home)).toMatch(
      /thinking signature rejected on openrouter\|127\.0\.0\.1\|anthropic\/claude-sonnet-4\.5: remembered \d+ reasoning_details fingerprint/,
    );
    const session = await showSession(sandbox, first.session_id);
    const fingerprints = session.model_config['_anthropic_rejected_thinking'] as string[];
    expect(fingerprints.length).toBeGreaterThan(0);

    // What the session learned is visible: routes verdicts and doctor list it.
    const verdicts = await runHermes(['routes', 'verdicts'], sandbox);
    expect(verdicts.code, verdicts.stderr).toBe(0);
    expect(verdicts.stdout).toContain('learned in sessions (each applies to that session only):');
    expect(verdicts.stdout).toContain(`${first.session_id} (openrouter · anthropic/claude-sonnet-4.5)`);
    expect(verdicts.stdout).toContain(
      `  ${fingerprints.length} rejected thinking signature${fingerprints.length === 1 ? '' : 's'} (never sent again)`,
    );
    const doctor = await runHermes(['doctor'], sandbox);
    expect(doctor.stdout).toMatch(
      new RegExp(
        `verdicts +none learned store-wide\\n +session ${first.session_id} \\(openrouter · anthropic/claude-sonnet-4\\.5\\): ${fingerprints.length} rejected thinking signature`,
      ),
    );

    const later = await runHermes(['chat', '--resume', first.session_id, '-q', 'again', '--json', ...route], sandbox);
    expect(later.code, later.stderr).toBe(0);
    expect(emulator.requests.slice(4).map((request) => request.status)).toEqual([200]);
  });
});
