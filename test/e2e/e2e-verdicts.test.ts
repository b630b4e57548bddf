import { describe, expect, it } from 'vitest';
import type { AssistantMessage } from '../../src/core/message.js';
import { assistantsOf, parseJson, routeArgs, runHermes, showSession, useE2e } from '../support/e2e.js';

/**
 * (SPEC §13, §23.1): a rejected reasoning carrier is learned per (provider, host, model),
 * persisted in the session and store-wide, and the request retried exactly once without it.
 */

const e2e = useE2e();

describe('unknown-field fallback end to end', () => {
  it('learns reasoning_details, retries once in the same call, and never sends it again on that route', async () => {
    const emulator = await e2e.chat({ persona: 'openrouter', rejectKeys: ['reasoning_details'] });
    const sandbox = e2e.sandbox();
    const route = (model: string) => routeArgs('openrouter', model, emulator.baseUrl);
    // Turn 1 has no assistant history yet, so nothing to reject; turn 2 (the tool result) replays RD.
    const first = await runHermes(['chat', '-q', 'read the file notes.txt', '--json', ...route('z-ai/glm-5')], sandbox);
    expect(first.code).toBe(0);
    const statuses = emulator.requests.map((request) => request.status);
    expect(statuses.filter((status) => status >= 400)).toHaveLength(1);
    const rejected = emulator.requests.find((request) => request.status >= 400);
    const retried = emulator.requests[emulator.requests.indexOf(rejected!) + 1];
    expect(rejected?.raw).toContain('reasoning_details');
    expect(retried?.status).toBe(200);
    // SPEC §13.2: a named RD teaches sent ∩ {reasoning, reasoning_details}; RC still travels.
    expect(retried?.raw).not.toContain('reasoning_details');
    expect(assistantsOf(retried?.body).some((message) => 'reasoning' in message)).toBe(false);
    expect(assistantsOf(retried?.body).every((message) => typeof message['reasoning_content'] === 'string')).toBe(true);

    const sessionId = parseJson<{ session_id: string }>(first).session_id;
    const shown = await showSession(sandbox, sessionId);
    const host = new URL(emulator.baseUrl).hostname;
    expect(shown.model_config['reasoning_rejected_carriers']).toEqual([
      ['openrouter', host, 'z-ai/glm-5', ['reasoning', 'reasoning_details']],
    ]);
    // History is never mutated: every stored assistant message still holds its details.
    const stored = shown.messages.filter((message): message is AssistantMessage => message.role === 'assistant');
    expect(stored.every((message) => (message.reasoning_details?.length ?? 0) > 0)).toBe(true);

    // --resume: the first request already omits the field.
    let before = emulator.requests.length;
    await runHermes(['chat', '--resume', sessionId, '-q', 'again', '--json', ...route('z-ai/glm-5')], sandbox);
    expect(emulator.requests[before]?.status).toBe(200);
    expect(assistantsOf(emulator.requests[before]?.body).some((message) => 'reasoning_details' in message)).toBe(false);

    // A brand-new session on the same route sends none either (store-wide verdict, SPEC §23.1).
    before = emulator.requests.length;
    await runHermes(['chat', '-q', 'read the file notes.txt', '--json', ...route('z-ai/glm-5')], sandbox);
    expect(emulator.requests.slice(before).every((request) => request.status === 200)).toBe(true);
    expect(emulator.requests.slice(before).some((request) => request.raw.includes('reasoning_details'))).toBe(false);

    // A sibling model on the same host is unaffected: it still sends reasoning_details (and is rejected once).
    before = emulator.requests.length;
    await runHermes(['chat', '-q', 'read the file notes.txt', '--json', ...route('z-ai/glm-5-air')], sandbox);
    expect(emulator.requests.slice(before).some((request) => request.raw.includes('reasoning_details'))).toBe(true);

    const verdicts = parseJson<{ route_key: string; fields: string[] }[]>(
      await runHermes(['routes', 'verdicts', '--json'], sandbox),
    );
    expect(verdicts.map((verdict) => [verdict.route_key, verdict.fields])).toEqual([
      [`openrouter|${host}|z-ai/glm-5`, ['reasoning', 'reasoning_details']],
      [`openrouter|${host}|z-ai/glm-5-air`, ['reasoning', 'reasoning_details']],
    ]);
    const logs = await runHermes(['logs', '--grep', 'reasoning', '--level', 'warn'], sandbox);
    expect(logs.stdout).toMatch(
      /WARN .*learned verdict: openrouter\|.*z-ai\/glm-5 rejects reasoning fields reasoning, reasoning_details; retrying once/,
    );
    const forgot = await runHermes(['routes', 'forget', `openrouter|${host}|z-ai/glm-5-air`], sandbox);
    expect(forgot.stdout).toBe('forgot 1 verdict\n');
  });

  it('a must-echo route never learns reasoning_content: the error reaches the user after one attempt', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek', rejectKeys: ['reasoning_content'] });
    const sandbox = e2e.sandbox();
    // Reached under its real host, the DeepSeek route sends exactly {reasoning_content} (SPEC §5 fallback).
    const env = { HERMES_CONNECT_TO: `https://api.deepseek.com=${new URL(emulator.baseUrl).origin}` };
    const route = routeArgs('deepseek', 'deepseek-v4-flash', 'https://api.deepseek.com/v1');
    const run = await runHermes(['chat', '-q', 'read the file notes.txt', ...route], sandbox, env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('reasoning_content');
    expect(emulator.requests.filter((request) => request.status >= 400)).toHaveLength(1);
    expect(parseJson<unknown[]>(await runHermes(['routes', 'verdicts', '--json'], sandbox))).toEqual([]);
  });

  it('a provider that rejects every retry ends after exactly two requests: the original and one retry', async () => {
    // DeepSeek on a loopback URL sends {reasoning_content, reasoning} (SPEC §5 local fallback). The persona
    // rejects every request carrying a carrier: the first rejection teaches `reasoning` (never RC on a
    // must-echo route, SPEC §13.3), the one retry still carries RC and is rejected, and that is the end.
    const { emulator, sandbox, route } = await e2e.chatRoute(
      { persona: 'deepseek', rejectAlways: true },
      'deepseek',
      'deepseek-v4-flash',
    );
    const run = await runHermes(['chat', '-q', 'read the file notes.txt', ...route], sandbox);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('hermes routes verdicts');
    // Turn 1 carries no history and succeeds; the tool-result request is rejected, retried once, rejected again.
    expect(emulator.requests.map((request) => request.status)).toEqual([200, 400, 400]);
  });
});
