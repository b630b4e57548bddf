import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import type { AssistantMessage } from '../../../src/core/message.js';
import type { StreamEvent } from '../../../src/core/stream-event.js';
import {
  BedrockConverseStreamDecoder,
  decodeBedrockConverseResponse,
} from '../../../src/transports/bedrock-converse/bedrock-converse-decode.js';
import { createBedrockConverseTransport } from '../../../src/transports/bedrock-converse/bedrock-converse-transport.js';
import type {
  BedrockConverseResponseBody,
  BedrockStreamEvent,
} from '../../../src/transports/bedrock-converse/bedrock-converse-wire.js';
import {
  TEST_CREDENTIALS,
  bedrockRoute,
  encodeFrames,
  readCassette,
  readFixture,
  readStreamEvents,
  recordedHandler,
} from './bedrock-converse-fixtures.js';
import { seededRandom, splitRandomly } from '../../support/random.js';

const route = bedrockRoute(
  'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  'https://bedrock-runtime.us-east-1.amazonaws.com',
);
const origin = {
  api: 'bedrock_converse',
  provider: 'bedrock',
  host: 'bedrock-runtime.us-east-1.amazonaws.com',
  model: route.model,
};

/** Expected stored fields for a recorded content-block list (SPEC §2.1, §10). */
function expectedFromBlocks(content: JsonObject[]) {
  const blocks = content.filter((block) => !(typeof block['text'] === 'string' && block['text'].trim() === ''));
  const readable: string[] = [];
  const details: JsonObject[] = [];
  for (const block of blocks) {
    const reasoning = block['reasoningContent'] as JsonObject | undefined;
    if (reasoning?.['redactedContent'] !== undefined)
      details.push({ type: 'redacted_thinking', data: reasoning['redactedContent'] });
    const text = reasoning?.['reasoningText'] as { text: string; signature?: string } | undefined;
    if (text) {
      readable.push(text.text);
      if (text.signature) details.push({ type: 'thinking', thinking: text.text, signature: text.signature });
    }
  }
  return { blocks, reasoning: readable.length > 0 ? readable.join('\n\n') : undefined, details };
}

describe('Bedrock Converse non-streaming decode of recorded responses (WIRE.md §3.2, SPEC §10)', () => {
  const jsonFixtures = [
    'vercel-reasoning.json',
    'vercel-redacted-content.json',
    'vercel-issue-11035-with-thinking.json',
    'vercel-issue-11227-opus-4-6.json',
    'vercel-gpt-oss-tool-name-channel.json',
  ];
  const cassetteResponses = [
    'pydantic-anthropic-tool-with-thinking.cassette.json',
    'pydantic-moonshotai-tool-call.cassette.json',
    'pydantic-thinking-high-openai-variant.cassette.json',
    'pydantic-thinking-high-qwen-variant.cassette.json',
    'pydantic-thinking-part-anthropic-adaptive.cassette.json',
    'pydantic-thinking-part-deepseek.cassette.json',
    'pydantic-thinking-part-redacted.cassette.json',
  ].flatMap((name) =>
    readCassette(name).map((interaction, index) => ({ name: `${name}#${index}`, body: interaction.response.body })),
  );
  const cases = [...jsonFixtures.map((name) => ({ name, body: readFixture(name) })), ...cassetteResponses];

  it.each(cases)('$name: blocks verbatim, reasoning joined, Anthropic-shaped details, origin', ({ body }) => {
    const response = body as BedrockConverseResponseBody;
    const content = response.output?.message?.content ?? [];
    const turn = decodeBedrockConverseResponse(response, route);
    const expected = expectedFromBlocks(content);
    expect(turn.message.bedrock_content_blocks).toEqual(expected.blocks);
    expect(turn.message.reasoning_content).toBe(expected.reasoning);
    expect(turn.message.reasoning).toBe(expected.reasoning);
    expect(turn.message.reasoning_details).toEqual(expected.details.length > 0 ? expected.details : undefined);
    expect(turn.message.finish_reason).toBe(response.stopReason);
    expect(turn.message.origin).toEqual(origin);
    expect(turn.usage?.inputTokens).toBe(response.usage?.inputTokens);
  });

  it('vercel-reasoning.json: exact signed reasoning and text', () => {
    const turn = decodeBedrockConverseResponse(
      readFixture('vercel-reasoning.json') as BedrockConverseResponseBody,
      route,
    );
    expect(turn.message.content).toBe('There are **3** r\'s in "strawberry":\n\n1. st**r**awbe**r****r**y');
    expect(turn.message.reasoning_details?.[0]?.['signature']).toMatch(/^EvYBCkgICxABGAIqQA9E9VC377/);
    expect(turn.finishReason).toEqual({ unified: 'stop', raw: 'end_turn' });
  });

  it('vercel-gpt-oss-tool-name-channel.json: the gpt-oss `json<|channel|>commentary` name is cleaned (WIRE.md §3.4)', () => {
    const turn = decodeBedrockConverseResponse(
      readFixture('vercel-gpt-oss-tool-name-channel.json') as BedrockConverseResponseBody,
      route,
    );
    expect(turn.message.tool_calls).toEqual([
      {
        id: 'tooluse_x8RLcHCNXeUTHeEWUwSSXi',
        type: 'function',
        function: { name: 'json', arguments: '{"name":"Pizza","size":"Large","price":12}' },
      },
    ]);
    expect(turn.message.content).toBeNull();
    expect(turn.finishReason.unified).toBe('tool-calls');
  });
});

function decodeWhole(events: readonly BedrockStreamEvent[]): { message: AssistantMessage; events: StreamEvent[] } {
  const decoder = new BedrockConverseStreamDecoder(route);
  const out = events.flatMap((event) => decoder.push(event));
  const tail = decoder.end();
  const terminal = tail.at(-1);
  if (terminal?.type === 'error') throw terminal.error;
  if (terminal?.type !== 'finish') throw new Error('no terminal event');
  return { message: terminal.message, events: [...out, ...tail] };
}

/** Independent reassembly oracle: per contentBlockIndex, concatenate each delta kind in order. */
function oracleBlocks(events: readonly BedrockStreamEvent[]): JsonObject[] {
  const indexes = [
    ...new Set(
      events.flatMap((event) =>
        typeof event.payload['contentBlockIndex'] === 'number' ? [event.payload['contentBlockIndex']] : [],
      ),
    ),
  ];
  return indexes.flatMap((index) => {
    const deltas = events
      .filter((event) => event.type === 'contentBlockDelta' && event.payload['contentBlockIndex'] === index)
      .map((event) => event.payload['delta'] as JsonObject);
    const reasoning = deltas.flatMap((delta) =>
      delta['reasoningContent'] ? [delta['reasoningContent'] as JsonObject] : [],
    );
    const out: JsonObject[] = [];
    const redacted = reasoning.find((part) => typeof part['redactedContent'] === 'string');
    const signature = reasoning.find((part) => typeof part['signature'] === 'string')?.['signature'];
    if (redacted) out.push({ reasoningContent: { redactedContent: redacted['redactedContent'] } });
    else if (reasoning.length > 0) {
      const text = reasoning.map((part) => (typeof part['text'] === 'string' ? part['text'] : '')).join('');
      out.push({ reasoningContent: { reasoningText: signature === undefined ? { text } : { text, signature } } });
    }
    const texts = deltas.flatMap((delta) => (typeof delta['text'] === 'string' ? [delta['text']] : []));
    if (texts.join('').trim() !== '') out.push({ text: texts.join('') });
    const start = events.find(
      (event) => event.type === 'contentBlockStart' && event.payload['contentBlockIndex'] === index,
    );
    const toolUse = (start?.payload['start'] as JsonObject | undefined)?.['toolUse'] as JsonObject | undefined;
    if (toolUse) {
      const input = deltas
        .map((delta) => ((delta['toolUse'] as JsonObject | undefined)?.['input'] as string | undefined) ?? '')
        .join('');
      out.push({
        toolUse: { toolUseId: toolUse['toolUseId'], name: toolUse['name'], input: JSON.parse(input) as JsonObject },
      });
    }
    return out;
  });
}

const streamFixtures = [
  'vercel-reasoning.chunks.txt',
  'vercel-kimi-k2-thinking-glob-search.chunks.txt',
  'pydantic-thinking-part-stream.cassette.json',
  'pydantic-thinking-part-redacted-stream.cassette.json',
];

describe('ConverseStream decode of recorded event streams (WIRE.md §3.3)', () => {
  it.each(streamFixtures)('%s: whole stream, blocks per contentBlockIndex byte for byte', (name) => {
    const events = readStreamEvents(name);
    const { message, events: emitted } = decodeWhole(events);
    expect(message.bedrock_content_blocks).toEqual(oracleBlocks(events));
    expect(emitted.filter((event) => event.type === 'finish')).toHaveLength(1);
    expect(emitted.at(-1)?.type).toBe('finish');
    const reasoningDeltas = emitted.flatMap((event) => (event.type === 'reasoning-delta' ? [event.text] : [])).join('');
    // Each fixture has at most one readable reasoning block, so the deltas equal the stored text.
    expect(reasoningDeltas).toBe(message.reasoning ?? '');
    // Reasoning never leaks into content.
    const textDeltas = emitted.flatMap((event) => (event.type === 'text-delta' ? [event.text] : [])).join('');
    expect(message.content ?? '').toBe(textDeltas);
  });

  it('vercel-reasoning.chunks.txt: exact reasoning text and its own signature delta', () => {
    const { message } = decodeWhole(readStreamEvents('vercel-reasoning.chunks.txt'));
    expect(message.reasoning_content).toBe(
      'Let me count the r\'s in "strawberry":\n\ns-t-r-a-w-b-e-r-r-y\n\nr appears at positions 3, 8, and 9.\n\nSo there are 3 r\'s.',
    );
    expect(message.reasoning_details).toEqual([
      {
        type: 'thinking',
        thinking: message.reasoning_content,
        signature: expect.stringMatching(/^Ep0CCkgICxABGAIqQOWPB6.*DaGAE=$/),
      },
    ]);
    expect(message.content).toBe('There are **3** r\'s in "strawberry":\n\n1. st**r**awbe**r****r**y');
  });

  it('vercel-kimi-k2-thinking-glob-search.chunks.txt: unsigned reasoning, blank text blocks dropped, tool call', () => {
    const { message } = decodeWhole(readStreamEvents('vercel-kimi-k2-thinking-glob-search.chunks.txt'));
    expect(message.reasoning_details).toBeUndefined();
    expect(message.tool_calls).toEqual([
      {
        id: 'functions.glob_search:0',
        type: 'function',
        function: { name: 'glob_search', arguments: '{"pattern":"**/*cursor*"}' },
      },
    ]);
    expect(message.bedrock_content_blocks?.map((block) => Object.keys(block)[0])).toEqual([
      'reasoningContent',
      'toolUse',
    ]);
  });

  it('pydantic-thinking-part-redacted-stream: two redacted blocks stay separate, in order', () => {
    const events = readStreamEvents('pydantic-thinking-part-redacted-stream.cassette.json');
    const { message } = decodeWhole(events);
    const redacted = events.flatMap((event) => {
      const delta = event.payload['delta'] as { reasoningContent?: { redactedContent?: string } } | undefined;
      return delta?.reasoningContent?.redactedContent ? [delta.reasoningContent.redactedContent] : [];
    });
    expect(redacted).toHaveLength(2);
    expect(message.reasoning_details).toEqual(redacted.map((data) => ({ type: 'redacted_thinking', data })));
    expect(message.reasoning_content).toBeUndefined();
  });

  it('a stream without messageStop ends with a retryable error, never a half message', () => {
    const events = readStreamEvents('vercel-reasoning.chunks.txt').filter((event) => event.type !== 'messageStop');
    const decoder = new BedrockConverseStreamDecoder(route);
    for (const event of events) decoder.push(event);
    const tail = decoder.end();
    expect(tail.map((event) => event.type)).toEqual(['error']);
  });
});

describe('ConverseStream through the SDK: recorded events re-encoded as event-stream frames, split at random byte boundaries', () => {
  it.each(streamFixtures.flatMap((name) => [1, 2, 3].map((seed) => ({ name, seed }))))(
    '$name seed $seed',
    async ({ name, seed }) => {
      const events = readStreamEvents(name);
      const bytes = encodeFrames(events);
      const chunks = splitRandomly(bytes, seededRandom(seed * 7919 + name.length), 64);
      const transport = createBedrockConverseTransport({
        credentials: TEST_CREDENTIALS,
        environment: {},
        requestHandler: recordedHandler(() => ({
          status: 200,
          headers: { 'content-type': 'application/vnd.amazon.eventstream' },
          chunks,
        })),
      });
      const request = {
        route,
        history: [{ role: 'user' as const, content: 'Hello' }],
        tools: [],
        reasoning: { enabled: true },
      };
      const message = await transport.send(request).result();
      expect(message).toEqual(decodeWhole(events).message);
    },
  );
});
