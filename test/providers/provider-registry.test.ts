import { describe, expect, test } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { PROVIDERS, getProvider, resolveProvider } from '../../src/providers/provider-registry.js';
import { CARRIER_ROUTE_ROWS } from '../../src/replay/replay-carrier-routes.js';
import { MUST_ECHO_FAMILIES } from '../../src/replay/replay-must-echo.js';

const enabled = { enabled: true };

describe('provider registry', () => {
  test('every provider id named in SPEC §4 and §5 is known', () => {
    const named = new Set([
      ...CARRIER_ROUTE_ROWS.flatMap((row) => row.providers),
      ...MUST_ECHO_FAMILIES.flatMap((family) => [...family.providers, ...family.exactProviders]),
    ]);
    for (const id of named) expect(getProvider(id), id).toBeDefined();
  });

  test.each([
    ['openrouter', 'https://openrouter.ai/api/v1', 'OPENROUTER_API_KEY'],
    ['gemini', 'https://generativelanguage.googleapis.com/v1beta/openai', 'GEMINI_API_KEY'],
    ['copilot', 'https://api.githubcopilot.com', 'GITHUB_COPILOT_TOKEN'],
    ['ollama', 'http://localhost:11434/v1', undefined],
    ['lmstudio', 'http://localhost:1234/v1', undefined],
    ['custom', undefined, undefined],
  ])('%s: base URL %s, key %s', (id, baseUrl, apiKeyEnv) => {
    expect(getProvider(id)).toMatchObject({ id, baseUrl, apiKeyEnv, api: 'chat_completions' });
  });

  test('ids are unique and looked up case-insensitively', () => {
    expect(new Set(PROVIDERS.map((info) => info.id)).size).toBe(PROVIDERS.length);
    expect(getProvider(' OpenRouter ')?.id).toBe('openrouter');
    expect(getProvider('nope')).toBeUndefined();
  });

  test('WIRE.md §1: how each provider enables reasoning', () => {
    const cases: [string, string, object, object][] = [
      ['openrouter', 'x', { enabled: true, effort: 'high' }, { reasoning: { effort: 'high' } }],
      ['openrouter', 'x', enabled, { reasoning: { enabled: true } }],
      ['openrouter', 'x', { enabled: true, budgetTokens: 2000 }, { reasoning: { max_tokens: 2000 } }],
      [
        'deepseek',
        'deepseek-v4',
        { enabled: true, effort: 'medium' },
        { thinking: { type: 'enabled' }, reasoning_effort: 'high' },
      ],
      [
        'deepseek',
        'deepseek-v4',
        { enabled: true, effort: 'minimal' },
        { thinking: { type: 'enabled' }, reasoning_effort: 'low' },
      ],
      ['groq', 'x', enabled, { reasoning_format: 'parsed' }],
      ['cerebras', 'x', { enabled: true, effort: 'low' }, { reasoning_effort: 'low' }],
      ['dashscope', 'qwen3', { enabled: true, budgetTokens: 512 }, { enable_thinking: true, thinking_budget: 512 }],
      ['zai', 'glm-4.7', enabled, { thinking: { type: 'enabled' } }],
      ['kimi', 'kimi-k2.6', { enabled: true, effort: 'high' }, { thinking: { type: 'enabled' } }],
      ['kimi', 'kimi-k3', { enabled: true, effort: 'max' }, { thinking: { type: 'enabled' }, reasoning_effort: 'max' }],
      ['openai', 'gpt-5', { enabled: true, effort: 'minimal' }, { reasoning_effort: 'minimal' }],
      ['xai', 'grok-3-mini', { enabled: true, effort: 'high' }, { reasoning_effort: 'high' }],
      ['gemini', 'gemini-2.5-pro', { enabled: true, effort: 'medium' }, { reasoning_effort: 'medium' }],
      ['ollama', 'qwen3', { enabled: true, effort: 'high' }, { reasoning_effort: 'high' }],
      ['vllm', 'Qwen/Qwen3-8B', enabled, { chat_template_kwargs: { enable_thinking: true } }],
      ['vllm', 'deepseek-ai/DeepSeek-V3.1', enabled, { chat_template_kwargs: { thinking: true } }],
      ['mistral', 'magistral-medium', enabled, {}],
      ['custom', 'x', enabled, {}],
      ['openrouter', 'x', { enabled: false, effort: 'high' }, {}],
      ['deepseek', 'x', { enabled: false }, {}],
    ];
    for (const [id, model, reasoning, body] of cases) {
      expect(
        getProvider(id)?.reasoningRequest(model, reasoning as never),
        `${id} ${JSON.stringify(reasoning)}`,
      ).toEqual(body);
    }
  });

  test('resolveProvider: unknown id with a base URL behaves as custom; without one it is a usage error naming known ids', () => {
    expect(resolveProvider('deepseek').id).toBe('deepseek');
    expect(resolveProvider('my-server', 'http://10.0.0.2:8000/v1').id).toBe('custom');
    expect(() => resolveProvider('my-server')).toThrow(UsageError);
    expect(() => resolveProvider('my-server')).toThrow(/unknown provider "my-server".*openrouter/);
  });
});
