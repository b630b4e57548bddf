import { describe, expect, it } from 'vitest';
import { chatJson, parseJson, resumeArgs, routeArgs, runHermes, showSession, useE2e } from '../support/e2e.js';

/**
 * Reasoning effort end to end through `hermes chat` against the emulators' effort rules: a 4xx
 * refusing the effort sent is learned per (provider, host, model) in the session and store-wide,
 * retried once with the nearest accepted level, shown by `hermes routes verdicts`; and
 * `reasoning_overrides` follow the route of every request (a resume on another model).
 */

const e2e = useE2e();

interface VerdictJson {
  route_key: string;
  fields: string[];
  refused_efforts: string[];
  error_text: string;
}

const bodyOf = (request: { body: unknown } | undefined) => (request?.body ?? {}) as Record<string, unknown>;

describe('learned reasoning efforts (hermes chat)', () => {
  it('DeepSeek refusing max: one 400, the retry sends high, every later request starts at high', async () => {
    const { emulator, sandbox, route } = await e2e.chatRoute(
      { persona: 'deepseek', acceptEfforts: ['low', 'high'] },
      'deepseek',
      'deepseek-v4-pro',
    );
    const first = await chatJson(sandbox, ['-q', 'hello', '--effort', 'max', ...route]);
    expect(first.answer).toContain('You said: hello');
    expect(emulator.requests.map((request) => request.status)).toEqual([400, 200]);
    expect(bodyOf(emulator.requests[0])['reasoning_effort']).toBe('max');
    expect(bodyOf(emulator.requests[1])['reasoning_effort']).toBe('high');
    expect(bodyOf(emulator.requests[1])['thinking']).toEqual({ type: 'enabled' });

    const host = new URL(emulator.baseUrl).hostname;
    const shown = await showSession(sandbox, first.session_id);
    // max and xhigh both send "max" on DeepSeek: both are refused.
    expect(shown.model_config['reasoning_rejected_efforts']).toEqual([
      ['deepseek', host, 'deepseek-v4-pro', ['max', 'xhigh']],
    ]);
    const verdicts = parseJson<VerdictJson[]>(await runHermes(['routes', 'verdicts', '--json'], sandbox));
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]).toMatchObject({
      route_key: `deepseek|${host}|deepseek-v4-pro`,
      fields: [],
      refused_efforts: ['max', 'xhigh'],
    });
    expect(verdicts[0]?.error_text).toContain("does not support 'max' with this model");
    const text = await runHermes(['routes', 'verdicts'], sandbox);
    expect(text.stdout).toContain('refuses reasoning effort: max, xhigh');
    expect(text.stdout).not.toContain('rejects:');
    const logs = await runHermes(['logs', '--level', 'warn'], sandbox);
    expect(logs.stdout).toMatch(
      /refuses reasoning effort max \(reasoning_effort "max"\); retrying once with effort high/,
    );

    // A new session on the same route: the store-wide verdict applies from its first request.
    const before = emulator.requests.length;
    await chatJson(sandbox, ['-q', 'again', '--effort', 'xhigh', ...route]);
    expect(
      emulator.requests.slice(before).map((request) => [request.status, bodyOf(request)['reasoning_effort']]),
    ).toEqual([[200, 'high']]);
    // Another model on the host learned nothing: it still sends max.
    const sibling = routeArgs('deepseek', 'deepseek-v4-flash', emulator.baseUrl);
    const siblingStart = emulator.requests.length;
    await chatJson(sandbox, ['-q', 'hi', '--effort', 'max', ...sibling]);
    expect(bodyOf(emulator.requests[siblingStart])['reasoning_effort']).toBe('max');
  });

  it('a provider that refuses every effort value: exactly one retry, at the nearest level', async () => {
    const { emulator, sandbox, route } = await e2e.chatRoute(
      { persona: 'openrouter', acceptEfforts: ['bogus'] },
      'openrouter',
      'openai/gpt-5.4',
    );
    const run = await runHermes(['chat', '-q', 'hello', '--effort', 'high', ...route], sandbox);
    // The refusal names high: the retry sends the nearest level (medium, the lower of two
    // equally near); its refusal is the end (one retry only, SPEC §13.3).
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("does not support 'medium'");
    const efforts = emulator.requests.map((request) => [
      request.status,
      (bodyOf(request)['reasoning'] as { effort?: string }).effort,
    ]);
    expect(efforts).toEqual([
      [400, 'high'],
      [400, 'medium'],
    ]);
  });

  it('Anthropic adaptive thinking refusing xhigh: retried once with high', async () => {
    const emulator = await e2e.anthropic({ acceptEfforts: ['low', 'medium', 'high', 'max'] });
    const sandbox = e2e.sandbox();
    const route = routeArgs('anthropic', 'claude-opus-5', emulator.baseUrl, 'x');
    const answer = await chatJson(sandbox, ['-q', 'read the file notes.txt', '--effort', 'xhigh', ...route]);
    expect(answer.answer).toContain('Reasoning continuity: intact (1/1).');
    const efforts = emulator.requests.map((request) => [
      request.status,
      (bodyOf(request)['output_config'] as { effort?: string } | undefined)?.effort,
    ]);
    // The refusal, its retry, then the tool-result request of the same turn already at high.
    expect(efforts).toEqual([
      [400, 'xhigh'],
      [200, 'high'],
      [200, 'high'],
    ]);
  });

  it('Gemini 2.5 that always thinks: effort none (budget 0) is refused, the retry thinks at the minimal budget', async () => {
    const emulator = await e2e.gemini({ alwaysThinks: true });
    const sandbox = e2e.sandbox();
    const route = routeArgs('google', 'gemini-2.5-pro', emulator.baseUrl, 'x', 'gemini');
    const answer = await chatJson(sandbox, ['-q', 'hello', '--effort', 'none', ...route]);
    expect(answer.answer).toContain('You said: hello');
    const budgets = emulator.requests.map((request) => {
      const generation = bodyOf(request)['generationConfig'] as { thinkingConfig?: { thinkingBudget?: number } };
      return [request.status, generation.thinkingConfig?.thinkingBudget];
    });
    expect(budgets).toEqual([
      [400, 0],
      [200, 128],
    ]);
    const verdicts = parseJson<VerdictJson[]>(await runHermes(['routes', 'verdicts', '--json'], sandbox));
    expect(verdicts.map((verdict) => verdict.refused_efforts)).toEqual([['none']]);
    expect(verdicts[0]?.error_text).toContain('only works in thinking mode');
  });

  it('Responses refusing none: the retry climbs to the nearest listed level', async () => {
    const emulator = await e2e.responses({ issuer: 'openai', acceptEfforts: ['low', 'medium', 'high'] });
    const sandbox = e2e.sandbox();
    const route = routeArgs('openai-responses', 'gpt-5.4', emulator.baseUrl, 'x', 'codex_responses');
    await chatJson(sandbox, ['-q', 'hello', '--effort', 'none', ...route]);
    const efforts = emulator.requests.map((request) => [
      request.status,
      (bodyOf(request)['reasoning'] as { effort?: string }).effort,
    ]);
    expect(efforts).toEqual([
      [400, 'none'],
      [200, 'low'],
    ]);
  });
});

describe('reasoning_overrides (config.yaml)', () => {
  it('each request gets its own model’s override: a resume on another model switches effort', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const sandbox = e2e.sandbox({
      config:
        'reasoning: { effort: high }\nreasoning_overrides:\n  deepseek-v4-pro: { effort: low }\n  deepseek-v4-lite: { enabled: false }\n',
    });
    const flash = routeArgs('deepseek', 'deepseek-v4-flash', emulator.baseUrl);
    const first = await chatJson(sandbox, ['-q', 'hello', ...flash]);
    const pro = routeArgs('deepseek', 'deepseek-v4-pro', emulator.baseUrl);
    await chatJson(sandbox, [...resumeArgs(first.session_id, 'and now?'), ...pro]);
    const lite = routeArgs('deepseek', 'deepseek-v4-lite', emulator.baseUrl);
    await chatJson(sandbox, [...resumeArgs(first.session_id, 'and off?'), ...lite]);
    // --effort on the command line wins over the override for this run.
    await chatJson(sandbox, [...resumeArgs(first.session_id, 'and max?'), '--effort', 'max', ...pro]);
    expect(
      emulator.requests.map((request) => [
        bodyOf(request)['model'],
        bodyOf(request)['reasoning_effort'],
        bodyOf(request)['thinking'],
      ]),
    ).toEqual([
      ['deepseek-v4-flash', 'high', { type: 'enabled' }],
      ['deepseek-v4-pro', 'low', { type: 'enabled' }],
      ['deepseek-v4-lite', undefined, undefined],
      ['deepseek-v4-pro', 'max', { type: 'enabled' }],
    ]);
  });

  it('an unknown key in an override is one line naming it, exit 2', async () => {
    const sandbox = e2e.sandbox({ config: 'reasoning_overrides:\n  gpt-5.4: { efort: high }\n' });
    const run = await runHermes(['chat', '-q', 'hi'], sandbox);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('reasoning_overrides.gpt-5.4: unknown key "efort"');
  });
});
