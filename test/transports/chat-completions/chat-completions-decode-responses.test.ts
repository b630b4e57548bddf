import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import type { AssistantMessage } from '../../../src/core/message.js';
import type { FinishReason, Usage } from '../../../src/core/usage.js';
import { decodeChatCompletionsResponse } from '../../../src/transports/chat-completions/chat-completions-decode.js';
import { cassette, fixtureText } from './chat-completions-fixtures.js';

/**
 * Recorded non-streaming responses decoded into the stored assistant message (SPEC §2.1,
 * §7.2): raw `reasoning_content` verbatim, `reasoning`, `reasoning_details` entries kept as
 * sent, the private record for Gemini's message-level signature, think tags stripped from
 * `content`, tool calls, usage and finish reason.
 */

interface WireMessage {
  content?: string | null;
  reasoning_content?: string;
  reasoning?: string;
  reasoning_details?: JsonObject[];
  tool_calls?: { id: string; function: { name: string; arguments: string } }[] | null;
}

interface ResponseCase {
  name: string;
  body: () => JsonObject;
  mustEcho: boolean;
  expected: (message: WireMessage) => AssistantMessage;
  finishReason: FinishReason;
  usage: Usage;
}

function fromCassette(file: string, index: number): () => JsonObject {
  return () => cassette(file)[index]?.response.body as JsonObject;
}

function fromJson(file: string): () => JsonObject {
  return () => JSON.parse(fixtureText(file)) as JsonObject;
}

function wireMessage(body: JsonObject): WireMessage {
  return (body['choices'] as unknown as { message: WireMessage }[])[0]?.message as WireMessage;
}

function toolCalls(message: WireMessage): AssistantMessage['tool_calls'] {
  return (message.tool_calls ?? []).map((call) => ({
    id: call.id,
    type: 'function' as const,
    function: { name: call.function.name, arguments: call.function.arguments },
  }));
}

/** The stored message: `reasoning` both as the reasoning text and as RC, tool calls when the wire had any. */
function storedMessage(
  message: WireMessage,
  reasoning: string,
  finish: string,
  extra: Partial<AssistantMessage> = {},
): AssistantMessage {
  const calls = toolCalls(message) ?? [];
  return {
    role: 'assistant',
    content: message.content === '' && calls.length > 0 ? null : (message.content ?? ''),
    reasoning,
    reasoning_content: reasoning,
    ...extra,
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
    finish_reason: finish,
  };
}

/** `reasoning_content` providers: RC stored verbatim and surfaced as `reasoning`. */
function rawReasoningContent(finish: string) {
  return (message: WireMessage): AssistantMessage =>
    storedMessage(message, message.reasoning_content as string, finish);
}

/** `reasoning` providers (and OpenRouter): no raw RC, so RC = the extracted text (SPEC §2.1 rule 3). */
function reasoningField(finish: string) {
  return (message: WireMessage): AssistantMessage =>
    storedMessage(
      message,
      message.reasoning as string,
      finish,
      message.reasoning_details ? { reasoning_details: message.reasoning_details } : {},
    );
}

/** Raw `<think>` output in `content`: removed from the visible text and used as the reasoning. */
function thinkTags(message: WireMessage): AssistantMessage {
  const match = /^<think>([\s\S]*?)<\/think>\s*([\s\S]*)$/.exec(message.content ?? '');
  if (!match) throw new Error('fixture content has no think block');
  return {
    role: 'assistant',
    content: match[2] as string,
    reasoning: match[1] as string,
    reasoning_content: match[1] as string,
    finish_reason: 'stop',
  };
}

const usage = (input: number, output: number, total: number, reasoning?: number, cached?: number): Usage => ({
  inputTokens: input,
  outputTokens: output,
  totalTokens: total,
  ...(reasoning === undefined ? {} : { reasoningTokens: reasoning }),
  ...(cached === undefined ? {} : { cacheReadTokens: cached }),
});
const STOP: FinishReason = { unified: 'stop', raw: 'stop' };
const TOOLS: FinishReason = { unified: 'tool-calls', raw: 'tool_calls' };

const CASES: ResponseCase[] = [
  {
    name: 'deepseek reasoning',
    body: fromJson('deepseek/vercel-reasoning.json'),
    mustEcho: true,
    expected: rawReasoningContent('stop'),
    finishReason: STOP,
    usage: usage(18, 345, 363, 315, 0),
  },
  {
    name: 'deepseek tool turn 1',
    body: fromCassette('deepseek/pydantic-deferred-capability-with-thinking.cassette.json', 0),
    mustEcho: true,
    expected: rawReasoningContent('tool_calls'),
    finishReason: TOOLS,
    usage: usage(563, 116, 679, 60, 512),
  },
  {
    name: 'deepseek parallel tool calls',
    body: fromCassette('deepseek/pydantic-deferred-capability-with-thinking.cassette.json', 1),
    mustEcho: true,
    expected: rawReasoningContent('tool_calls'),
    finishReason: TOOLS,
    usage: usage(875, 79, 954, 26, 0),
  },
  {
    name: 'deepseek final answer',
    body: fromCassette('deepseek/pydantic-deferred-capability-with-thinking.cassette.json', 2),
    mustEcho: true,
    expected: rawReasoningContent('stop'),
    finishReason: STOP,
    usage: usage(976, 61, 1037, 25, 896),
  },
  {
    name: 'azure foundry deepseek',
    body: fromJson('azure-foundry/vercel-azure-deepseek-reasoning.1.json'),
    mustEcho: true,
    expected: rawReasoningContent('stop'),
    finishReason: STOP,
    usage: usage(19, 1969, 1988),
  },
  {
    name: 'dashscope qwen',
    body: fromJson('dashscope/vercel-alibaba-reasoning.json'),
    mustEcho: false,
    expected: rawReasoningContent('stop'),
    finishReason: STOP,
    usage: usage(24, 1668, 1692, 1353, 0),
  },
  {
    name: 'xai tool call (content "" becomes null)',
    body: fromJson('xai/vercel-xai-tool-call.json'),
    mustEcho: false,
    expected: rawReasoningContent('tool_calls'),
    finishReason: TOOLS,
    usage: usage(291, 26, 506, 189, 244),
  },
  {
    name: 'zai clear thinking',
    body: fromCassette('zai/pydantic-clear-thinking-without-thinking.cassette.json', 0),
    mustEcho: false,
    expected: rawReasoningContent('stop'),
    finishReason: STOP,
    usage: usage(13, 369, 382, 366, 0),
  },
  {
    name: 'zai glm-5.3 effort',
    body: fromCassette('zai/pydantic-glm-5-3-reasoning-effort.cassette.json', 1),
    mustEcho: false,
    expected: rawReasoningContent('stop'),
    finishReason: STOP,
    usage: usage(20, 120, 140, 111, 0),
  },
  {
    name: 'zai preserved thinking turn 2',
    body: fromCassette('zai/pydantic-preserved-thinking-round-trip.cassette.json', 1),
    mustEcho: false,
    expected: rawReasoningContent('stop'),
    finishReason: STOP,
    usage: usage(198, 134, 332, 122, 0),
  },
  {
    name: 'openrouter summary + encrypted at the same index',
    body: fromCassette('openrouter/pydantic-preserve-reasoning-block.cassette.json', 0),
    mustEcho: false,
    expected: reasoningField('stop'),
    finishReason: STOP,
    usage: usage(8, 150, 158, 64, 0),
  },
  {
    name: 'openrouter claude signature',
    body: fromCassette('openrouter/pydantic-thinking-high-emits-effort-high.cassette.json', 0),
    mustEcho: false,
    expected: reasoningField('stop'),
    finishReason: STOP,
    usage: usage(43, 53, 96, 48, 0),
  },
  {
    name: 'openrouter kimi',
    body: fromCassette('openrouter/pydantic-kimi-k2-5.cassette.json', 0),
    mustEcho: false,
    expected: reasoningField('stop'),
    finishReason: STOP,
    usage: usage(20, 48, 68, 42, 0),
  },
  {
    name: 'openrouter qwen',
    body: fromCassette('openrouter/pydantic-qwen3-235b.cassette.json', 0),
    mustEcho: false,
    expected: reasoningField('stop'),
    finishReason: STOP,
    usage: usage(22, 275, 297, 274, 3),
  },
  {
    name: 'openrouter usage',
    body: fromCassette('openrouter/pydantic-usage.cassette.json', 0),
    mustEcho: false,
    expected: reasoningField('stop'),
    finishReason: STOP,
    usage: usage(17, 1515, 1532, 704),
  },
  {
    name: 'openrouter gpt-5 summary',
    body: fromCassette('openrouter/pydantic-eager-input-streaming-non-anthropic.cassette.json', 0),
    mustEcho: false,
    expected: reasoningField('stop'),
    finishReason: STOP,
    usage: usage(37, 92, 129, 64, 0),
  },
  {
    name: 'groq gpt-oss',
    body: fromCassette('groq/pydantic-wire-contract-gpt-oss-thinking-high.cassette.json', 0),
    mustEcho: false,
    expected: reasoningField('stop'),
    finishReason: STOP,
    usage: usage(84, 105, 189, 95),
  },
  {
    name: 'groq qwen3',
    body: fromCassette('groq/pydantic-wire-contract-qwen3-enable.cassette.json', 0),
    mustEcho: false,
    expected: reasoningField('stop'),
    finishReason: STOP,
    usage: usage(21, 142, 163, 136),
  },
  {
    name: 'groq parsed reasoning',
    body: fromJson('groq/vercel-groq-reasoning.json'),
    mustEcho: false,
    expected: reasoningField('stop'),
    finishReason: STOP,
    usage: usage(17, 649, 666, 570),
  },
  {
    name: 'groq raw think tags',
    body: fromCassette('groq/pydantic-thinking-part.cassette.json', 0),
    mustEcho: false,
    expected: thinkTags,
    finishReason: STOP,
    usage: usage(21, 1414, 1435),
  },
  {
    name: 'cerebras reasoning',
    body: fromCassette('cerebras/pydantic-thinking-part-survives-multiturn.cassette.json', 0),
    mustEcho: false,
    expected: reasoningField('stop'),
    finishReason: STOP,
    usage: usage(79, 37, 116, 25, 0),
  },
  {
    name: 'cerebras gpt-oss',
    body: fromCassette('cerebras/pydantic-wire-contract-gpt-oss-always-on.cassette.json', 0),
    mustEcho: false,
    expected: reasoningField('stop'),
    finishReason: STOP,
    usage: usage(80, 45, 125, 34, 0),
  },
  {
    name: 'cerebras without reasoning',
    body: fromCassette('cerebras/pydantic-wire-contract-zai-clear-thinking.cassette.json', 0),
    mustEcho: false,
    expected: () => ({ role: 'assistant', content: '4', finish_reason: 'stop' }),
    finishReason: STOP,
    usage: usage(18, 2, 20, 0, 0),
  },
  {
    name: 'ollama cloud tool call',
    body: fromCassette('ollama/pydantic-ollama-cloud-tool-output.cassette.json', 1),
    mustEcho: false,
    expected: reasoningField('tool_calls'),
    finishReason: TOOLS,
    usage: usage(206, 194, 400),
  },
  {
    name: 'ollama local',
    body: fromCassette('ollama/pydantic-ollama-local-native-output.cassette.json', 0),
    mustEcho: false,
    expected: reasoningField('stop'),
    finishReason: STOP,
    usage: usage(136, 15, 151),
  },
  {
    name: 'hugging face router think tags',
    body: fromCassette('huggingface/pydantic-hf-thinking-part.cassette.json', 1),
    mustEcho: false,
    expected: thinkTags,
    finishReason: STOP,
    usage: usage(32, 1425, 1457),
  },
  {
    // Gemini 2.5 on the OpenAI-compat endpoint: message-level signature (nested and top-level),
    // tool-call id "". The signature goes into the private record (SPEC §7.1–§7.2).
    name: 'gemini openai-compat message-level signature',
    body: fromCassette('gemini-openai-compat/pydantic-compatible-api-tool-calls-without-id.cassette.json', 0),
    mustEcho: false,
    expected: () => {
      const raw = cassette('gemini-openai-compat/pydantic-compatible-api-tool-calls-without-id.cassette.json')[0]
        ?.response.body as JsonObject;
      const signature = (wireMessage(raw) as unknown as { thought_signature: string }).thought_signature;
      return {
        role: 'assistant',
        content: null,
        reasoning_details: [
          { type: 'hermes.native_assistant', extra_content: { google: { thought_signature: signature } } },
        ],
        tool_calls: [{ id: '', type: 'function', function: { name: 'get_current_time', arguments: '{}' } }],
        finish_reason: 'tool_calls',
      };
    },
    finishReason: TOOLS,
    usage: usage(35, 12, 109),
  },
  {
    // Snowflake: `finish_reason: ""`, reasoning only in `reasoning_details` (kept as sent).
    name: 'snowflake reasoning_details with tool call',
    body: fromCassette('snowflake/pydantic-snowflake-thinking.cassette.json', 0),
    mustEcho: false,
    expected: (message) => ({
      role: 'assistant',
      content: 'Sure! Let me check that for you!',
      reasoning: 'Let me get the weather for Mexico City.',
      reasoning_content: 'Let me get the weather for Mexico City.',
      reasoning_details: message.reasoning_details as JsonObject[],
      tool_calls: [
        {
          id: 'toolu_bdrk_01VmA9jmWpws4HgPqjhtGo6i',
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city":"Mexico City"}' },
        },
      ],
    }),
    finishReason: { unified: 'tool-calls', raw: null },
    usage: usage(597, 81, 678, 0, 0),
  },
];

describe('chat-completions non-streaming decode of recorded responses (SPEC §2.1, §7.2)', () => {
  it.each(CASES)('$name', (testCase) => {
    const body = testCase.body();
    const before = JSON.stringify(body);
    const { events, terminal } = decodeChatCompletionsResponse(body, { mustEcho: testCase.mustEcho });
    if (terminal.type !== 'finish') throw terminal.error;
    expect(terminal.message).toEqual(testCase.expected(wireMessage(body)));
    expect(terminal.finishReason).toEqual(testCase.finishReason);
    expect(terminal.usage).toEqual(testCase.usage);
    expect(events[0]).toEqual({ type: 'start' });
    expect(events[events.length - 1]).toBe(terminal);
    expect(JSON.stringify(body)).toBe(before);
  });

  it('keeps OpenRouter summary and encrypted entries apart although both say index 0 (WIRE.md §1.7)', () => {
    const body = cassette('openrouter/pydantic-preserve-reasoning-block.cassette.json')[0]?.response.body as JsonObject;
    const { terminal } = decodeChatCompletionsResponse(body, { mustEcho: false });
    if (terminal.type !== 'finish') throw terminal.error;
    expect(terminal.message.reasoning_details?.map((entry) => entry['type'])).toEqual([
      'reasoning.summary',
      'reasoning.encrypted',
    ]);
    expect(String(terminal.message.reasoning_details?.[1]?.['data'])).toHaveLength(1548);
  });

  it('a 200 body holding an OpenRouter error envelope is a terminal error with the upstream text', () => {
    const { terminal } = decodeChatCompletionsResponse(
      {
        error: {
          message: 'Provider returned error',
          code: 502,
          metadata: { raw: 'upstream overloaded', provider_name: 'Anthropic' },
        },
      },
      { mustEcho: false, provider: 'openrouter' },
    );
    expect(terminal.type).toBe('error');
    if (terminal.type !== 'error') return;
    expect(terminal.error.message).toBe('openrouter stream error (code 502): upstream overloaded');
    expect(terminal.error.retryable).toBe(true);
  });
});
