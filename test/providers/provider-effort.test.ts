import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { REASONING_EFFORTS } from '../../src/core/reasoning-options.js';
import { buildRequest, type RequestRoute } from '../../src/replay-api.js';

/**
 * The effort table on the wire (src/providers/provider-effort.ts): for each effort level, the
 * exact reasoning fields of the body each wire API and provider receives, built by the same
 * encoders the runtime sends with (`buildRequest` is `hermes replay preview`).
 */

interface Row {
  name: string;
  route: RequestRoute;
  /** The body fields that carry reasoning on this route. */
  pick: (body: JsonObject) => unknown;
  /** The expected value of `pick` per level, in REASONING_EFFORTS order. */
  levels: readonly unknown[];
}

const chatFields = (body: JsonObject) => ({
  thinking: body['thinking'],
  reasoning_effort: body['reasoning_effort'],
  reasoning: body['reasoning'],
});
const anthropicFields = (body: JsonObject) => ({
  thinking: body['thinking'],
  effort: (body['output_config'] as JsonObject | undefined)?.['effort'],
});
const geminiThinking = (body: JsonObject) =>
  ((body['generationConfig'] as JsonObject | undefined)?.['thinkingConfig'] as JsonObject | undefined) ?? null;

const word = (reasoning_effort: string | undefined) => ({
  thinking: undefined,
  reasoning_effort,
  reasoning: undefined,
});
const switched = (type: string, reasoning_effort?: string) => ({
  thinking: { type },
  reasoning_effort,
  reasoning: undefined,
});

const ROWS: Row[] = [
  {
    name: 'OpenAI chat reasoning_effort',
    route: { provider: 'openai', model: 'gpt-5.4' },
    pick: chatFields,
    levels: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'].map(word),
  },
  {
    name: 'DeepSeek thinking.type + reasoning_effort',
    route: { provider: 'deepseek', model: 'deepseek-v4-pro' },
    pick: chatFields,
    levels: [
      switched('disabled'),
      switched('enabled', 'low'),
      switched('enabled', 'low'),
      switched('enabled', 'high'),
      switched('enabled', 'high'),
      switched('enabled', 'max'),
      switched('enabled', 'max'),
    ],
  },
  {
    name: 'Kimi K3 thinking.type + reasoning_effort',
    route: { provider: 'kimi', model: 'kimi-k3' },
    pick: (body) => ({ ...chatFields(body), thinking: (body['thinking'] as JsonObject)['type'] }),
    levels: [
      { thinking: 'disabled', reasoning_effort: undefined, reasoning: undefined },
      ...['low', 'low', 'high', 'high', 'max', 'max'].map((effort) => ({
        thinking: 'enabled',
        reasoning_effort: effort,
        reasoning: undefined,
      })),
    ],
  },
  {
    name: 'Z.AI GLM thinking.type only',
    route: { provider: 'zai', model: 'glm-5.1' },
    pick: (body) => (body['thinking'] as JsonObject)['type'],
    levels: ['disabled', 'enabled', 'enabled', 'enabled', 'enabled', 'enabled', 'enabled'],
  },
  {
    name: 'OpenRouter reasoning.effort',
    route: { provider: 'openrouter', model: 'anthropic/claude-sonnet-5' },
    pick: (body) => body['reasoning'],
    levels: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'xhigh'].map((effort) => ({ effort })),
  },
  {
    name: 'Gemini OpenAI-compatible reasoning_effort',
    route: { provider: 'gemini', model: 'gemini-3-flash' },
    pick: chatFields,
    levels: ['none', 'low', 'low', 'medium', 'high', 'high', 'high'].map(word),
  },
  {
    name: 'xAI reasoning_effort low | high',
    route: { provider: 'xai', model: 'grok-3-mini' },
    pick: chatFields,
    levels: [undefined, 'low', 'low', 'high', 'high', 'high', 'high'].map(word),
  },
  {
    name: 'Responses reasoning.effort',
    route: { provider: 'openai-responses', model: 'gpt-5.4' },
    pick: (body) => (body['reasoning'] as JsonObject)['effort'],
    levels: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'],
  },
  {
    name: 'Anthropic adaptive thinking + output_config.effort',
    route: { provider: 'anthropic', model: 'claude-opus-5' },
    pick: anthropicFields,
    levels: [
      { thinking: { type: 'disabled' }, effort: undefined },
      ...['low', 'low', 'medium', 'high', 'xhigh', 'max'].map((effort) => ({ thinking: { type: 'adaptive' }, effort })),
    ],
  },
  {
    name: 'Anthropic extended thinking budget_tokens (max_tokens 16384 caps it)',
    route: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
    pick: anthropicFields,
    levels: [
      { thinking: undefined, effort: undefined },
      ...[1024, 2048, 8192, 12_288, 16_000, 16_383].map((budget) => ({
        thinking: { type: 'enabled', budget_tokens: budget },
        effort: undefined,
      })),
    ],
  },
  {
    name: 'Gemini 3 thinkingLevel',
    route: { provider: 'google', model: 'gemini-3-pro-preview' },
    pick: geminiThinking,
    levels: ['minimal', 'minimal', 'low', 'medium', 'high', 'high', 'high'].map((thinkingLevel) => ({
      includeThoughts: true,
      thinkingLevel,
    })),
  },
  {
    name: 'Gemini 2.5 thinkingBudget',
    route: { provider: 'google', model: 'gemini-2.5-flash' },
    pick: geminiThinking,
    levels: [0, 128, 1024, 8192, 24_576, 32_768, 32_768].map((thinkingBudget) => ({
      includeThoughts: thinkingBudget !== 0,
      thinkingBudget,
    })),
  },
];

describe('effort levels on the wire (provider-effort.ts)', () => {
  it.each(ROWS)('$name', ({ route, pick, levels }) => {
    const got = REASONING_EFFORTS.map((effort) =>
      pick(
        buildRequest({ messages: [{ role: 'user', content: 'hi' }], route, reasoning: { enabled: true, effort } }).body,
      ),
    );
    expect(got).toEqual(levels);
  });

  it('no effort keeps each route’s plain switch; reasoning off sends none of it', () => {
    const messages = [{ role: 'user' as const, content: 'hi' }];
    const deepseek = { provider: 'deepseek', model: 'deepseek-v4-pro' };
    expect(chatFields(buildRequest({ messages, route: deepseek, reasoning: { enabled: true } }).body)).toEqual(
      switched('enabled'),
    );
    expect(chatFields(buildRequest({ messages, route: deepseek, reasoning: { enabled: false } }).body)).toEqual(
      word(undefined),
    );
  });
});
