import { describe, expect, it } from 'vitest';
import { StreamError } from '../../../src/core/errors.js';
import type { JsonObject } from '../../../src/core/json.js';
import type { AssistantMessage } from '../../../src/core/message.js';
import type { StreamEvent } from '../../../src/core/stream-event.js';
import type { FinishReason, Usage } from '../../../src/core/usage.js';
import { concatDeltaField, decodeSse, parsedChunks, sseTextOf, terminalOf } from './chat-completions-fixtures.js';

/**
 * Recorded provider streams replayed through the SSE reader and the decoder, whole and split at
 * random byte boundaries (docs/architecture.md; STYLE rule 8 (docs/architecture.md)). Proves SPEC §2.1 capture
 * (raw `reasoning_content` verbatim, `reasoning`, `reasoning_details` per WIRE.md §1.7,
 * tool-call assembly, usage with reasoning tokens, finish reason `{unified, raw}`).
 */

const SEEDS = [1, 7, 42, 1234, 99991];

interface StreamCase {
  file: string;
  mustEcho: boolean;
  /** The stored message expected, computed from the fixture's chunks. */
  message: (chunks: Record<string, unknown>[]) => AssistantMessage;
  finishReason: FinishReason;
  usage: Usage;
}

/** A `reasoning_content` route: RC verbatim and the same text as `reasoning` (first non-empty reader). */
function reasoningContentMessage(chunks: Record<string, unknown>[], finish: string): AssistantMessage {
  const raw = concatDeltaField(chunks, 'reasoning_content') ?? '';
  return {
    role: 'assistant',
    content: concatDeltaField(chunks, 'content') ?? '',
    reasoning: raw,
    reasoning_content: raw,
    finish_reason: finish,
  };
}

/** Every `reasoning_details` fragment of the stream, in order. */
function detailFragments(chunks: Record<string, unknown>[]): JsonObject[] {
  return chunks.flatMap((chunk) => {
    const delta = (chunk['choices'] as { delta?: { reasoning_details?: JsonObject[] } }[] | undefined)?.[0]?.delta;
    return delta?.reasoning_details ?? [];
  });
}

/** Usage in the order input, output, total, reasoning, cache read (SPEC §2.1 usage fields). */
function tokens(
  inputTokens: number,
  outputTokens: number,
  totalTokens: number,
  reasoningTokens: number,
  cacheReadTokens: number,
): Usage {
  return { inputTokens, outputTokens, totalTokens, reasoningTokens, cacheReadTokens };
}

const STOP: FinishReason = { unified: 'stop', raw: 'stop' };

/** A `reasoning_content` route that ends `stop`. */
function rcCase(file: string, mustEcho: boolean, usage: Usage): StreamCase {
  return { file, mustEcho, message: (chunks) => reasoningContentMessage(chunks, 'stop'), finishReason: STOP, usage };
}

/** A `reasoning_details` route that ends `stop`: the fragments stored as they came, no reasoning text readers. */
function detailsCase(file: string, usage: Usage): StreamCase {
  return {
    file,
    mustEcho: false,
    message: (chunks) => ({
      role: 'assistant',
      content: concatDeltaField(chunks, 'content') ?? '',
      reasoning_details: detailFragments(chunks),
      finish_reason: 'stop',
    }),
    finishReason: STOP,
    usage,
  };
}

const CASES: StreamCase[] = [
  rcCase('deepseek/vercel-reasoning.chunks.txt', true, tokens(18, 219, 237, 205, 0)),
  {
    file: 'deepseek/vercel-tool-call.chunks.txt',
    mustEcho: true,
    message: (chunks) => {
      const raw = concatDeltaField(chunks, 'reasoning_content') ?? '';
      return {
        role: 'assistant',
        content: null,
        reasoning: raw,
        reasoning_content: raw,
        tool_calls: [
          {
            id: 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF',
            type: 'function',
            function: { name: 'weather', arguments: '{"location": "San Francisco"}' },
          },
        ],
        finish_reason: 'tool_calls',
      };
    },
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: tokens(339, 83, 422, 39, 320),
  },
  rcCase('deepseek/pydantic-thinking-stream.cassette.json', true, tokens(6, 212, 218, 198, 0)),
  rcCase('zai/pydantic-thinking-stream.cassette.json', false, tokens(13, 564, 577, 561, 0)),
  rcCase('dashscope/vercel-alibaba-reasoning.chunks.txt', false, tokens(24, 1355, 1379, 1084, 0)),
  rcCase('xai/vercel-openai-compatible-xai-text.chunks.txt', false, tokens(12, 2, 354, 340, 11)),
  {
    // Claude via OpenRouter: `delta.reasoning` mirrors `reasoning_details` text; the signature
    // arrives in a last fragment with no text. RC comes from rule 3 (no raw RC on this route).
    file: 'openrouter/pydantic-streaming-reasoning.cassette.json',
    mustEcho: false,
    message: (chunks) => {
      const reasoning = concatDeltaField(chunks, 'reasoning') ?? '';
      const signatures = detailFragments(chunks)
        .map((fragment) => fragment['signature'])
        .filter((value) => typeof value === 'string' && value !== '');
      return {
        role: 'assistant',
        content: '2 + 2 = 4',
        reasoning,
        reasoning_content: reasoning,
        reasoning_details: [
          {
            type: 'reasoning.text',
            text: reasoning,
            signature: signatures[signatures.length - 1] as string,
            format: 'anthropic-claude-v1',
            index: 0,
          },
        ],
        finish_reason: 'stop',
      };
    },
    finishReason: STOP,
    usage: tokens(43, 36, 79, 13, 0),
  },
  // OpenAI encrypted reasoning via OpenRouter: one whole `reasoning.encrypted` detail, no text.
  detailsCase('openrouter/pydantic-stream-with-reasoning.cassette.json', tokens(9, 104, 113, 0, 0)),
  detailsCase('openrouter/pydantic-stream-with-native-options.cassette.json', tokens(687, 187, 874, 118, 679)),
  {
    // Snowflake Cortex: reasoning only inside `reasoning_details`; the stream ends with [DONE]
    // and never sends a finish_reason.
    file: 'snowflake/pydantic-snowflake-thinking-streaming.cassette.json',
    mustEcho: false,
    message: (chunks) => ({
      role: 'assistant',
      content: concatDeltaField(chunks, 'content') ?? '',
      reasoning: '15 * 27 = 405',
      reasoning_content: '15 * 27 = 405',
      reasoning_details: [
        {
          format: 'anthropic-claude-v1',
          id: 'reasoning-text-1',
          index: 0,
          text: '15 * 27 = 405',
          type: 'reasoning.text',
        },
      ],
    }),
    finishReason: { unified: 'stop', raw: null },
    usage: tokens(45, 73, 118, 0, 0),
  },
];

function joined(events: readonly StreamEvent[], type: 'text-delta' | 'reasoning-delta'): string {
  return events.map((event) => (event.type === type ? event.text : '')).join('');
}

describe('chat-completions decoder on recorded streams (SPEC §2.1, WIRE.md §1.1 and §1.7)', () => {
  describe.each(CASES)('$file', (testCase) => {
    const text = sseTextOf(testCase.file);
    const expected = testCase.message(parsedChunks(testCase.file));

    it.each([undefined, ...SEEDS])('stores every carrier verbatim (split seed %s)', (seed) => {
      const events = decodeSse(text, { mustEcho: testCase.mustEcho, provider: 'fixture' }, seed);
      const terminal = terminalOf(events);
      expect(events[0]).toEqual({ type: 'start' });
      if (terminal.type !== 'finish') throw terminal.error;
      expect(terminal.message).toEqual(expected);
      expect(terminal.finishReason).toEqual(testCase.finishReason);
      expect(terminal.usage).toEqual(testCase.usage);
      expect(events.filter((event) => event.type === 'usage')).toEqual([{ type: 'usage', usage: testCase.usage }]);
      // What was shown while streaming is what was stored.
      expect(joined(events, 'text-delta')).toEqual(expected.content ?? '');
      expect(joined(events, 'reasoning-delta')).toEqual(expected.reasoning ?? '');
    });
  });

  it('anchors: the DeepSeek raw reasoning starts as recorded, and the OpenRouter signature is the 304-character final fragment', () => {
    const deepseek = terminalOf(decodeSse(sseTextOf('deepseek/vercel-reasoning.chunks.txt'), { mustEcho: true }));
    if (deepseek.type !== 'finish') throw deepseek.error;
    expect(deepseek.message.reasoning_content?.startsWith('We need to count the number of the lette')).toBe(true);
    expect(deepseek.message.reasoning_content).toHaveLength(606);
    const openrouter = terminalOf(
      decodeSse(sseTextOf('openrouter/pydantic-streaming-reasoning.cassette.json'), { mustEcho: false }),
    );
    if (openrouter.type !== 'finish') throw openrouter.error;
    const detail = openrouter.message.reasoning_details?.[0];
    expect(detail?.['text']).toBe('This is a simple arithmetic question. 2+2 equals 4.');
    expect(String(detail?.['signature'])).toMatch(/^Et0BCkgIChACGAI/);
    expect(String(detail?.['signature'])).toHaveLength(304);
  });

  it.each([undefined, ...SEEDS])(
    'OpenRouter mid-stream error chunk ends with a StreamError carrying the upstream text, never a finish (split seed %s)',
    (seed) => {
      const events = decodeSse(
        sseTextOf('openrouter/pydantic-stream-error.cassette.json'),
        { mustEcho: false, provider: 'openrouter' },
        seed,
      );
      const terminal = terminalOf(events);
      expect(terminal.type).toBe('error');
      if (terminal.type !== 'error') return;
      expect(terminal.error).toBeInstanceOf(StreamError);
      expect(terminal.error.message).toBe('openrouter stream error (code 400): Token limit reached');
      expect((terminal.error as StreamError).body).toBe('{"error":{"code":400,"message":"Token limit reached"}}');
      expect(events.some((event) => event.type === 'finish')).toBe(false);
    },
  );
});
