import { describe, expect, test } from 'vitest';
import type { Route } from '../../src/core/route.js';
import { keepThinkingFlags, mergeRequestFlags } from '../../src/replay/replay-keep-thinking.js';

const route = (provider: string, model: string, baseUrl?: string): Route => ({
  api: 'chat_completions',
  provider,
  model,
  baseUrl,
});

describe('SPEC §8 keep-thinking flags (WIRE.md §1.3–§1.5)', () => {
  test.each([
    [route('zai', 'glm-4.7'), { thinking: { type: 'enabled', clear_thinking: false } }],
    [
      route('custom', 'GLM-5.1', 'https://api.z.ai/api/paas/v4'),
      { thinking: { type: 'enabled', clear_thinking: false } },
    ],
    [route('zai', 'glm-4.5-air'), { thinking: { type: 'enabled', clear_thinking: false } }],
    [route('zai', 'glm-4.0'), {}],
    [route('openrouter', 'z-ai/glm-4.7'), {}],
    [route('kimi', 'kimi-k2.6'), { thinking: { type: 'enabled', keep: 'all' } }],
    [route('moonshot', 'kimi-k3'), { thinking: { type: 'enabled', keep: 'all' } }],
    [route('custom', 'kimi-k2.7-code', 'https://api.moonshot.cn/v1'), { thinking: { type: 'enabled', keep: 'all' } }],
    [route('kimi-coding', 'kimi-k2.7-code-preview'), { thinking: { type: 'enabled', keep: 'all' } }],
    [route('kimi', 'kimi-k2.5'), {}],
    [route('openrouter', 'moonshotai/kimi-k2.6'), {}],
    [route('dashscope', 'qwen3.6-plus'), { preserve_thinking: true }],
    [
      route('custom', 'qwen3-max', 'https://dashscope-intl.aliyuncs.com/compatible-mode/v1'),
      { preserve_thinking: true },
    ],
    [
      route('vllm', 'Qwen/Qwen3.6-35B', 'http://localhost:8000/v1'),
      { chat_template_kwargs: { preserve_thinking: true } },
    ],
    [route('custom', 'qwen3.6', 'http://192.168.1.5:8080/v1'), { chat_template_kwargs: { preserve_thinking: true } }],
    [route('together', 'Qwen/Qwen3.6', 'https://api.together.xyz/v1'), {}],
    [route('deepseek', 'deepseek-v4'), {}],
  ])('%j → %j', (target, flags) => {
    expect(keepThinkingFlags(target, true)).toEqual(flags);
  });

  test('nothing when reasoning is disabled', () => {
    expect(keepThinkingFlags(route('zai', 'glm-4.7'), false)).toEqual({});
    expect(
      keepThinkingFlags(route('acme', 'm'), false, [{ providers: ['acme'], carriers: [], keepThinking: { x: 1 } }]),
    ).toEqual({});
  });

  test('SPEC §23.4: a route override merges its keepThinking flags', () => {
    expect(
      keepThinkingFlags(route('kimi', 'kimi-k2.6'), true, [
        {
          providers: ['kimi'],
          carriers: ['reasoning_content'],
          keepThinking: { thinking: { budget_tokens: 10 }, extra: true },
        },
      ]),
    ).toEqual({
      thinking: { type: 'enabled', keep: 'all', budget_tokens: 10 },
      extra: true,
    });
  });

  test('mergeRequestFlags merges objects one level deep and does not mutate', () => {
    const base = { thinking: { type: 'enabled' }, reasoning_effort: 'high' };
    expect(mergeRequestFlags(base, { thinking: { keep: 'all' } })).toEqual({
      thinking: { type: 'enabled', keep: 'all' },
      reasoning_effort: 'high',
    });
    expect(base).toEqual({ thinking: { type: 'enabled' }, reasoning_effort: 'high' });
  });
});
