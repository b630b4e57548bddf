/**
 * SPEC §24.8 end to end through the real `hermes` binary against the OpenRouter emulator: a model
 * switch inside a session makes the relay answer `Invalid signature in thinking block`; the first
 * such turn learns the fingerprints of the `reasoning_details` entries sent, persists them in the
 * session, retries once and succeeds, and no later turn fails that way again.
 */
import { describe, expect, it } from 'vitest';
import { parseJson, readLog, routeArgs, runHermes, showSession, useE2e } from '../support/e2e.js';

const e2e = useE2e();

describe('SPEC §24.8 signature rejections through a chat-completions relay', () => {
  it('interactive chat: /model gpt-9-nonexistent, then every turn answers (one retry on the first)', async () => {
    const { emulator, sandbox, route } = await e2e.chatRoute(
      { persona: 'openrouter' },
      'openrouter',
      'anthropic/claude-sonnet-4.5',
    );
    const lines = ['read the file notes.txt', '/model gpt-9-nonexistent', 'hello', 'again', '/exit'];
    const run = await runHermes(['chat', ...route], sandbox, {}, lines.map((line) => `${line}\n`).join(''));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('You said: hello');
    expect(run.stdout).toContain('You said: again');
    expect(run.stdout).not.toMatch(/^error:/m);
    // Two requests for the tool loop, then: rejected, retried, and the next turn goes through first time.
    expect(emulator.requests.map((request) => request.status)).toEqual([200, 200, 400, 200, 200]);
    const log = readLog(sandbox.home);
    // The recovery runs only on a body matching the signature error (SPEC §24.8).
    expect(log).toMatch(
      /thinking signature rejected on openrouter\|127\.0\.0\.1\|gpt-9-nonexistent: remembered \d+ reasoning_details fingerprint/,
    );
  });

  it('one-shot turns: the fingerprints are persisted in the session and the retry sends none of the rejected entries', async () => {
    const emulator = await e2e.chat({ persona: 'openrouter' });
    const sandbox = e2e.sandbox();
    const route = (model: string) => routeArgs('openrouter', model, emulator.baseUrl);
    const first = parseJson<{ session_id: string }>(
      await runHermes(
        ['chat', '-q', 'read the file notes.txt', '--json', ...route('anthropic/claude-sonnet-4.5')],
        sandbox,
      ),
    );
    const switched = await runHermes(
      ['chat', '--resume', first.session_id, '-q', 'hello', '--json', ...route('gpt-9-nonexistent')],
      sandbox,
    );
    expect(switched.code, switched.stderr).toBe(0);
    expect(parseJson<{ answer: string }>(switched).answer).toContain('You said: hello');
    expect(emulator.requests.map((request) => request.status)).toEqual([200, 200, 400, 200]);
    const rejected = emulator.requests[2];
    const retried = emulator.requests[3];
    expect(rejected?.raw).toContain('reasoning_details');
    expect(retried?.raw).not.toContain('reasoning_details');
    const session = await showSession(sandbox, first.session_id);
    const fingerprints = session.model_config['_anthropic_rejected_thinking'];
    expect(Array.isArray(fingerprints) && fingerprints.length > 0).toBe(true);

    const later = await runHermes(
      ['chat', '--resume', first.session_id, '-q', 'again', '--json', ...route('gpt-9-nonexistent')],
      sandbox,
    );
    expect(later.code, later.stderr).toBe(0);
    expect(emulator.requests.slice(4).map((request) => request.status)).toEqual([200]);
  });
});
