import { describe, expect, test } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import type { Message } from '../../src/core/message.js';
import type { TransportRequest } from '../../src/transports/shared/transport.js';
import { prepareChatCompletions } from '../../src/transports/chat-completions/chat-completions-encode.js';
import { NOTHING_LEARNED } from '../../src/replay/replay-route-profile.js';

const history: Message[] = [
  { role: 'user', content: 'hello' },
  { role: 'assistant', content: 'hi', reasoning_content: 'greeting', reasoning: 'greeting' },
];
const base = (overrides: Partial<TransportRequest>): TransportRequest => ({
  route: { api: 'chat_completions', provider: 'openrouter', model: 'openai/gpt-5' },
  history,
  tools: [],
  reasoning: { enabled: true },
  ...overrides,
});

describe('chat-completions encoding (SPEC §6–§8, WIRE.md §1)', () => {
  test('OpenRouter default URL, streaming body with usage, reasoning flag, exact body', () => {
    const prepared = prepareChatCompletions(base({}));
    expect(prepared.url).toBe('https://openrouter.ai/api/v1/chat/completions');
    expect(prepared.body).toEqual({
      model: 'openai/gpt-5',
      messages: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'hi', reasoning_content: 'greeting', reasoning: 'greeting' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      reasoning: { enabled: true },
    });
    expect(Object.keys(prepared.body)).toEqual(['model', 'messages', 'stream', 'stream_options', 'reasoning']);
    expect(prepared.routeKey).toBe('openrouter|openrouter.ai|openai/gpt-5');
    expect(prepared.carriersSent).toEqual(['reasoning_content', 'reasoning']);
  });

  test('Z.AI GLM: provider flag and keep-thinking merged into one thinking object; tools and max_tokens; no stream_options', () => {
    const prepared = prepareChatCompletions(
      base({
        route: { api: 'chat_completions', provider: 'zai', model: 'glm-4.7', baseUrl: 'https://api.z.ai/api/paas/v4/' },
        tools: [{ name: 'ls', description: 'list', parameters: { type: 'object', properties: {} } }],
        stream: false,
        maxTokens: 512,
      }),
    );
    expect(prepared.url).toBe('https://api.z.ai/api/paas/v4/chat/completions');
    expect(prepared.body).toEqual({
      model: 'glm-4.7',
      messages: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'hi', reasoning_content: 'greeting' },
      ],
      stream: false,
      tools: [
        {
          type: 'function',
          function: { name: 'ls', description: 'list', parameters: { type: 'object', properties: {} } },
        },
      ],
      thinking: { type: 'enabled', clear_thinking: false },
      max_tokens: 512,
    });
    expect(Object.keys(prepared.body)).toEqual(['model', 'messages', 'stream', 'tools', 'thinking', 'max_tokens']);
  });

  test('DeepSeek: thinking + effort, must-echo route; rejected carriers and routeKey host of the default URL', () => {
    const prepared = prepareChatCompletions(
      base({
        route: { api: 'chat_completions', provider: 'deepseek', model: 'deepseek-v4-pro' },
        reasoning: { enabled: true, effort: 'max' },
        learned: { ...NOTHING_LEARNED, rejectedCarriers: ['reasoning_content'] },
      }),
    );
    expect(prepared.body).toMatchObject({ thinking: { type: 'enabled' }, reasoning_effort: 'max' });
    expect(prepared.carriersSent).toEqual([]);
    expect(prepared.routeKey).toBe('deepseek|api.deepseek.com|deepseek-v4-pro');
  });

  test('Qwen on a local vLLM: enable_thinking and preserve_thinking in one chat_template_kwargs', () => {
    const prepared = prepareChatCompletions(
      base({ route: { api: 'chat_completions', provider: 'vllm', model: 'Qwen/Qwen3.6-35B' } }),
    );
    expect(prepared.url).toBe('http://localhost:8000/v1/chat/completions');
    expect(prepared.body['chat_template_kwargs']).toEqual({ enable_thinking: true, preserve_thinking: true });
  });

  test('custom without a base URL is a usage error', () => {
    expect(() =>
      prepareChatCompletions(base({ route: { api: 'chat_completions', provider: 'custom', model: 'm' } })),
    ).toThrow(UsageError);
  });
});
