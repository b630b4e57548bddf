/**
 * WIRE.md §2.2 / §2.3 and SPEC §2.1: every recorded Anthropic response in
 * test/fixtures/anthropic/ decodes to the blocks exactly as received (signatures and thinking
 * byte for byte), streamed whole and split at random byte boundaries (seeded PRNG).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixturePath } from '../../support/fixtures.js';
import type { JsonObject } from '../../../src/core/json.js';
import type { OriginStamp } from '../../../src/core/origin.js';
import type { StreamEvent } from '../../../src/core/stream-event.js';
import {
  AnthropicStreamDecoder,
  decodeAnthropicResponse,
} from '../../../src/transports/anthropic-messages/anthropic-messages-decode.js';
import { decodeServerSentEvents } from '../../../src/transports/shared/transport-sse-reader.js';
import { seededRandom } from '../../support/random.js';

const FIXTURES = new URL(`file://${fixturePath('anthropic')}/`);
const ORIGIN: OriginStamp = { api: 'anthropic_messages', provider: 'anthropic', host: 'api.anthropic.com', model: 'm' };

interface StreamFixture {
  name: string;
  sse: string;
}

function readFixture(name: string): string {
  return readFileSync(new URL(name, FIXTURES), 'utf8');
}

function streamFixtures(): StreamFixture[] {
  const out: StreamFixture[] = [];
  for (const name of readdirSync(FIXTURES).sort()) {
    if (name.endsWith('.chunks.txt')) {
      const lines = readFixture(name)
        .split('\n')
        .filter((line) => line.trim() !== '');
      out.push({ name, sse: lines.map((line) => `data: ${line}\n\n`).join('') });
    } else if (name.endsWith('.cassette.json')) {
      const cassette = JSON.parse(readFixture(name)) as {
        interactions: { request: { uri: string }; response: { body: unknown } }[];
      };
      for (const interaction of cassette.interactions) {
        if (interaction.request.uri.includes('anthropic.com') && typeof interaction.response.body === 'string') {
          out.push({ name, sse: interaction.response.body });
        }
      }
    }
  }
  return out;
}

function jsonFixtures(): { name: string; body: JsonObject }[] {
  const out: { name: string; body: JsonObject }[] = [];
  for (const name of readdirSync(FIXTURES).sort()) {
    if (name.endsWith('.1.json')) out.push({ name, body: JSON.parse(readFixture(name)) as JsonObject });
    if (!name.endsWith('.cassette.json')) continue;
    const cassette = JSON.parse(readFixture(name)) as {
      interactions: { request: { uri: string }; response: { body: unknown } }[];
    };
    cassette.interactions.forEach((interaction, index) => {
      const body = interaction.response.body;
      if (interaction.request.uri.includes('anthropic.com') && typeof body === 'object' && body !== null) {
        out.push({ name: `${name}#${index}`, body: body as JsonObject });
      }
    });
  }
  return out;
}

function decodeStream(bytes: Uint8Array, cuts: number[]): StreamEvent[] {
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    pieces.push(bytes.subarray(start, cut));
    start = cut;
  }
  return decodeServerSentEvents(new AnthropicStreamDecoder(ORIGIN), pieces);
}

/**
 * Independent oracle: folds the raw event lines (no decoder code) into the final blocks the way
 * WIRE.md §2.3 describes — start block, append deltas, parse tool input at stop.
 */
function oracleBlocks(sse: string): JsonObject[] {
  const blocks: JsonObject[] = [];
  const json: string[] = [];
  for (const line of sse.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const event = JSON.parse(line.slice(5)) as JsonObject & {
      index?: number;
      delta?: JsonObject;
      content_block?: JsonObject;
    };
    const index = event.index ?? -1;
    if (event['type'] === 'content_block_start') {
      blocks[index] = { ...event.content_block };
      json[index] = '';
    } else if (event['type'] === 'content_block_delta') {
      const block = blocks[index] as JsonObject;
      const delta = event.delta as JsonObject;
      if (delta['type'] === 'thinking_delta')
        block['thinking'] = `${block['thinking'] as string}${delta['thinking'] as string}`;
      if (delta['type'] === 'signature_delta')
        block['signature'] = `${block['signature'] as string}${delta['signature'] as string}`;
      if (delta['type'] === 'text_delta') block['text'] = `${block['text'] as string}${delta['text'] as string}`;
      if (delta['type'] === 'input_json_delta') json[index] = `${json[index] ?? ''}${delta['partial_json'] as string}`;
    } else if (event['type'] === 'content_block_stop' && json[index]) {
      (blocks[index] as JsonObject)['input'] = JSON.parse(json[index] ?? '{}') as JsonObject;
    }
  }
  return blocks;
}

function finishOf(events: StreamEvent[]): Extract<StreamEvent, { type: 'finish' }> {
  const last = events[events.length - 1];
  if (last?.type !== 'finish') throw new Error(`stream did not finish: ${JSON.stringify(last)}`);
  return last;
}

describe('Anthropic stream decoder on recorded fixtures (WIRE.md §2.3)', () => {
  const fixtures = streamFixtures();
  it('finds every streamed fixture', () => {
    expect(fixtures.map((fixture) => fixture.name)).toEqual([
      'pydantic-thinking-part-redacted-stream.cassette.json',
      'pydantic-thinking-part-stream.cassette.json',
      'pydantic-web-fetch-tool-stream.cassette.json',
      'vercel-claude-sonnet-5-reasoning-generic.chunks.txt',
      'vercel-clear-thinking.1.chunks.txt',
      'vercel-code-execution-issue-18193.chunks.txt',
      'vercel-combined-context-editing.1.chunks.txt',
    ]);
  });

  for (const fixture of fixtures) {
    it(`${fixture.name}: blocks byte for byte, whole and at 25 random splits`, () => {
      const bytes = new TextEncoder().encode(fixture.sse);
      const whole = finishOf(decodeStream(bytes, []));
      const expected = oracleBlocks(fixture.sse);
      expect(whole.message.anthropic_content_blocks).toEqual(expected);

      const random = seededRandom(fixture.name.length * 7919);
      for (let round = 0; round < 25; round += 1) {
        const cuts = Array.from({ length: 1 + Math.floor(random() * 40) }, () =>
          Math.floor(random() * bytes.length),
        ).sort((left, right) => left - right);
        const split = finishOf(decodeStream(bytes, cuts));
        expect(split.message).toEqual(whole.message);
      }

      // Carriers derived from the blocks (SPEC §2.1).
      const thinking = expected.filter((block) => block['type'] === 'thinking');
      const redacted = expected.filter((block) => block['type'] === 'redacted_thinking');
      expect(whole.message.reasoning_details).toEqual([
        ...expected
          .filter((block) => block['type'] === 'thinking' || block['type'] === 'redacted_thinking')
          .map((block) =>
            block['type'] === 'thinking'
              ? { type: 'thinking', thinking: block['thinking'], signature: block['signature'] }
              : { type: 'redacted_thinking', data: block['data'] },
          ),
      ]);
      expect(thinking.length + redacted.length).toBeGreaterThan(0);
      const readable = thinking.map((block) => block['thinking'] as string).filter((text) => text !== '');
      expect(whole.message.reasoning_content).toBe(readable.length > 0 ? readable.join('\n\n') : undefined);
      const text = expected.filter((block) => block['type'] === 'text').map((block) => block['text'] as string);
      expect(whole.message.content).toBe(text.join('') === '' ? null : text.join(''));
      expect(whole.message.origin).toEqual(ORIGIN);
    });
  }

  it('keeps a signature-only thinking block (display omitted) — vercel-claude-sonnet-5-reasoning-generic', () => {
    const fixture = fixtures.find((entry) => entry.name.startsWith('vercel-claude-sonnet-5'))!;
    const finish = finishOf(decodeStream(new TextEncoder().encode(fixture.sse), []));
    const first = finish.message.anthropic_content_blocks?.[0];
    expect(first?.['type']).toBe('thinking');
    expect(first?.['thinking']).toBe('');
    expect(String(first?.['signature']).startsWith('EsECCokBCBAYAipA9i3HF1aHpQITkdN8')).toBe(true);
    expect(String(first?.['signature']).endsWith('2FrUnc0exlyaGAE=')).toBe(true);
    expect(finish.message.reasoning_content).toBeUndefined();
    expect(finish.finishReason).toEqual({ unified: 'stop', raw: 'end_turn' });
    expect(finish.usage).toEqual({ inputTokens: 47, outputTokens: 496, reasoningTokens: 62, totalTokens: 543 });
  });

  it('redacted_thinking arrives whole in content_block_start — pydantic redacted stream', () => {
    const fixture = fixtures.find((entry) => entry.name === 'pydantic-thinking-part-redacted-stream.cassette.json')!;
    const finish = finishOf(decodeStream(new TextEncoder().encode(fixture.sse), [5, 900, 901]));
    const types = finish.message.anthropic_content_blocks?.map((block) => block['type']);
    expect(types).toEqual(['redacted_thinking', 'redacted_thinking', 'text']);
    expect(
      String(finish.message.anthropic_content_blocks?.[0]?.['data']).startsWith('EqkECkYIBxgCKkA8AZ4noDfV5VcOJe'),
    ).toBe(true);
  });

  it('streams events in order: start, reasoning deltas, text deltas, usage, one terminal finish', () => {
    const fixture = fixtures.find((entry) => entry.name === 'vercel-clear-thinking.1.chunks.txt')!;
    const events = decodeStream(new TextEncoder().encode(fixture.sse), []);
    expect(events[0]).toEqual({ type: 'start' });
    const reasoning = events.filter((event) => event.type === 'reasoning-delta').map((event) => event.text);
    expect(reasoning.join('')).toBe(finishOf(events).message.reasoning_content);
    expect(events.filter((event) => event.type === 'finish' || event.type === 'error')).toHaveLength(1);
  });

  it('a stream cut before message_stop ends with a retryable StreamError, never a half message', () => {
    const fixture = fixtures.find((entry) => entry.name === 'vercel-clear-thinking.1.chunks.txt')!;
    const truncated = fixture.sse.slice(0, fixture.sse.indexOf('message_delta') - 20);
    const events = decodeStream(new TextEncoder().encode(truncated), []);
    const last = events[events.length - 1];
    expect(last?.type).toBe('error');
    expect(events.some((event) => event.type === 'finish')).toBe(false);
  });

  it('an error event is the terminal error and carries the provider text', () => {
    const decoder = new AnthropicStreamDecoder(ORIGIN);
    decoder.push('{"type":"message_start","message":{"usage":{"input_tokens":1}}}');
    const events = decoder.push('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}');
    expect(events).toHaveLength(1);
    const error = events[0];
    if (error?.type !== 'error') throw new Error('expected error');
    expect(error.error.message).toContain('overloaded_error: Overloaded');
    expect(decoder.end()).toEqual([]);
  });

  it('tool_use input_json_delta becomes tool_calls with the exact argument text', () => {
    const decoder = new AnthropicStreamDecoder(ORIGIN);
    const lines = [
      '{"type":"message_start","message":{"usage":{"input_tokens":3,"output_tokens":1}}}',
      '{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"read_file","input":{}}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"path\\": "}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\\"a.txt\\"}"}}',
      '{"type":"content_block_stop","index":0}',
      '{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}',
      '{"type":"message_stop"}',
    ];
    const events = lines.flatMap((line) => decoder.push(line));
    const finish = finishOf(events);
    expect(finish.message.tool_calls).toEqual([
      { id: 'toolu_1', type: 'function', function: { name: 'read_file', arguments: '{"path": "a.txt"}' } },
    ]);
    expect(finish.message.anthropic_content_blocks).toEqual([
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.txt' } },
    ]);
    expect(events.filter((event) => event.type === 'tool-call-delta')).toHaveLength(2);
    expect(finish.finishReason).toEqual({ unified: 'tool-calls', raw: 'tool_use' });
  });
});

describe('Anthropic non-streaming decoder on recorded fixtures (WIRE.md §2.2)', () => {
  for (const fixture of jsonFixtures()) {
    it(`${fixture.name}: anthropic_content_blocks equal the response content exactly`, () => {
      const decoded = decodeAnthropicResponse(fixture.body, ORIGIN);
      expect(decoded.message.anthropic_content_blocks).toEqual(fixture.body['content']);
      const details = (fixture.body['content'] as JsonObject[])
        .filter((block) => block['type'] === 'thinking' || block['type'] === 'redacted_thinking')
        .map((block) =>
          block['type'] === 'thinking'
            ? { type: 'thinking', thinking: block['thinking'], signature: block['signature'] }
            : { type: 'redacted_thinking', data: block['data'] },
        );
      expect(decoded.message.reasoning_details).toEqual(details.length > 0 ? details : undefined);
      expect(decoded.message.finish_reason).toBe(fixture.body['stop_reason']);
    });
  }
});
