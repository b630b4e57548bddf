import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../src/core/stream-event.js';
import { decodeServerSentEvents } from '../../../src/transports/shared/transport-sse-reader.js';
import {
  applyPartialArgument,
  GeminiDecoder,
  type GeminiDecodeContext,
  type GeminiDecodedResponse,
} from '../../../src/transports/gemini/gemini-decode.js';
import type { GeminiPart, GeminiResponse } from '../../../src/transports/gemini/gemini-wire.js';
import {
  INTERACTIONS_API_FILES,
  randomSplit,
  recordedResponses,
  studioContext,
  type RecordedResponse,
} from './gemini-fixtures.js';
import { seededRandom } from '../../support/random.js';

const context = (): GeminiDecodeContext => studioContext((index) => `call_${index}`);

/** Splits a decoder's whole output into the live events (no `start`) and the assembled result of its `finish`. */
function resultOf(all: StreamEvent[]): { events: StreamEvent[]; result: GeminiDecodedResponse } {
  expect(all[0]?.type).toBe('start');
  const terminal = all.at(-1);
  if (terminal?.type === 'error') throw terminal.error;
  if (terminal?.type !== 'finish') throw new Error('the decoder gave no terminal event');
  const { message, finishReason, usage } = terminal;
  return { events: all.slice(1, -1), result: { message, finishReason, usage } };
}

function decodeChunks(chunks: GeminiResponse[]): { events: StreamEvent[]; result: GeminiDecodedResponse } {
  const decoder = new GeminiDecoder(context());
  return resultOf([...chunks.flatMap((chunk) => decoder.push(JSON.stringify(chunk))), ...decoder.end()]);
}

/** Decodes SSE bytes delivered in arbitrary pieces, the way the transport does. */
function decodeSplit(
  recorded: RecordedResponse,
  seed: number,
): { events: StreamEvent[]; result: GeminiDecodedResponse } {
  const bytes = new TextEncoder().encode(recorded.wireText);
  return resultOf(decodeServerSentEvents(new GeminiDecoder(context()), randomSplit(bytes, seededRandom(seed), 40)));
}

/** Facts read straight off the raw chunks, independently of the decoder. */
function rawFacts(chunks: GeminiResponse[]) {
  const parts = chunks.flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? []);
  const isText = (part: GeminiPart) => typeof part.text === 'string' && !part.functionCall;
  const textSignatures = parts.filter((part) => isText(part) && !part.thought && part.thoughtSignature);
  return {
    text: parts
      .filter((part) => isText(part) && !part.thought)
      .map((part) => part.text)
      .join(''),
    thoughts: parts
      .filter((part) => isText(part) && part.thought)
      .map((part) => part.text)
      .join(''),
    signatures: parts.map((part) => part.thoughtSignature).filter((signature) => signature !== undefined),
    callSignatures: parts.filter((part) => part.functionCall?.name).map((part) => part.thoughtSignature),
    callNames: parts.filter((part) => part.functionCall?.name).map((part) => part.functionCall?.name),
    lastTextSignature: textSignatures[textSignatures.length - 1]?.thoughtSignature,
  };
}

const recorded = recordedResponses();

describe('Gemini decoder over every recorded fixture (WIRE.md §4.2, §4.3; SPEC §11)', () => {
  it('finds the fixtures', () => {
    expect(recorded.length).toBeGreaterThanOrEqual(15);
  });

  it.each(recorded.map((response) => [response.name, response] as const))(
    '%s: captures every carrier verbatim',
    (_name, response) => {
      const { result, events } = decodeChunks(response.chunks);
      const facts = rawFacts(response.chunks);
      const message = result.message;
      const calls = message.tool_calls ?? [];
      expect(message.content).toBe(facts.text === '' && calls.length > 0 ? null : facts.text);
      expect(message.reasoning).toBe(facts.thoughts === '' ? undefined : facts.thoughts);
      expect(message.reasoning_content).toBe(facts.thoughts === '' ? undefined : facts.thoughts);
      expect(calls.map((call) => call.function.name)).toEqual(facts.callNames);
      // Each function-call signature stays on its own tool call.
      expect(
        calls.map(
          (call) => (call.extra_content?.['google'] as { thought_signature?: string } | undefined)?.thought_signature,
        ),
      ).toEqual(facts.callSignatures);
      // Every signature survives, byte for byte and in order, in the stored parts (never dropped, even on empty text).
      const storedParts = (message.gemini_content_parts ?? []) as GeminiPart[];
      expect(storedParts.map((part) => part.thoughtSignature).filter((signature) => signature !== undefined)).toEqual(
        facts.signatures,
      );
      // A text-part signature is the private record's message-level signature (SPEC §7.1).
      const record = message.reasoning_details?.[0];
      if (facts.lastTextSignature) {
        expect(record).toEqual({
          type: 'hermes.native_assistant',
          extra_content: { google: { thought_signature: facts.lastTextSignature } },
        });
      }
      expect(message.origin).toEqual(context().origin);
      expect(message.gemini_issuer).toBe('ai-studio');
      expect(
        events
          .filter((event) => event.type === 'text-delta')
          .map((event) => (event as { text: string }).text)
          .join(''),
      ).toBe(facts.text);
    },
  );

  it.each(recorded.filter((response) => response.streaming).map((response) => [response.name, response] as const))(
    '%s: random byte splits decode identically',
    (_name, response) => {
      const whole = decodeChunks(response.chunks);
      for (const seed of [1, 7, 42, 1234, 99991]) expect(decodeSplit(response, seed)).toEqual(whole);
    },
  );

  it('skips the Interactions API recordings: a different wire API than generateContent', () => {
    expect(INTERACTIONS_API_FILES).toHaveLength(2);
  });
});

describe('Gemini decoder part boundaries (WIRE.md §4.3)', () => {
  const signature = 'EpcCCpQCARFNMg9GpVP+YGO3zJobwN8a+4XBKHGs8ZZ75yF6E7qlkth0vQN';

  it('moves the trailing empty-text signature onto the last text part (vercel-empty-text-thought-signature)', () => {
    const response = recorded.find((each) => each.name === 'vercel-empty-text-thought-signature.chunks.txt')!;
    const { result } = decodeChunks(response.chunks);
    expect(result.message.gemini_content_parts).toEqual([
      { text: '4', thoughtSignature: expect.stringMatching(/^EpcCCpQC.*rKM$/) },
    ]);
    expect(result.finishReason).toEqual({ unified: 'stop', raw: 'STOP' });
    expect(result.usage).toEqual({ inputTokens: 15, outputTokens: 53, reasoningTokens: 52, totalTokens: 68 });
  });

  it('keeps thought parts, answer parts and their signatures apart (SPEC §11 example)', () => {
    const { result } = decodeChunks([
      { candidates: [{ content: { parts: [{ text: 'Adding ', thought: true }] } }] },
      { candidates: [{ content: { parts: [{ text: '17 and 374.', thought: true }] } }] },
      { candidates: [{ content: { parts: [{ text: '39' }] } }] },
      { candidates: [{ content: { parts: [{ text: '1' }] } }] },
      { candidates: [{ content: { parts: [{ text: '', thoughtSignature: signature }] }, finishReason: 'STOP' }] },
    ]);
    expect(result.message.gemini_content_parts).toEqual([
      { text: 'Adding 17 and 374.', thought: true },
      { text: '391', thoughtSignature: signature },
    ]);
    expect(result.message.content).toBe('391');
    expect(result.message.reasoning).toBe('Adding 17 and 374.');
  });

  it('keeps a signed empty text part after a function call as its own part', () => {
    const { result } = decodeChunks([
      {
        candidates: [
          {
            content: {
              parts: [{ functionCall: { name: 'read_file', args: { path: 'a' } }, thoughtSignature: 'SIG_CALL' }],
            },
          },
        ],
      },
      { candidates: [{ content: { parts: [{ text: '', thoughtSignature: 'SIG_TEXT' }] }, finishReason: 'STOP' }] },
    ]);
    expect(result.message.gemini_content_parts).toEqual([
      { functionCall: { name: 'read_file', args: { path: 'a' } }, thoughtSignature: 'SIG_CALL' },
      { text: '', thoughtSignature: 'SIG_TEXT' },
    ]);
    expect(result.message.tool_calls).toEqual([
      {
        id: 'call_0',
        type: 'function',
        function: { name: 'read_file', arguments: '{"path":"a"}' },
        extra_content: { google: { thought_signature: 'SIG_CALL' } },
      },
    ]);
    expect(result.finishReason).toEqual({ unified: 'tool-calls', raw: 'STOP' });
  });

  it('keeps a Gemini 3 functionCall.id as the tool call id', () => {
    const { result } = decodeChunks([
      {
        candidates: [
          {
            content: { parts: [{ functionCall: { name: 'f', args: {}, id: 'fc_1' }, thoughtSignature: 'S' }] },
            finishReason: 'STOP',
          },
        ],
      },
    ]);
    expect(result.message.tool_calls?.[0]?.id).toBe('fc_1');
    expect(result.message.gemini_content_parts).toEqual([
      { functionCall: { name: 'f', args: {}, id: 'fc_1' }, thoughtSignature: 'S' },
    ]);
  });

  it('assembles Vertex streamed function-call arguments (vercel-vertex-stream-tool-call-arguments-nested)', () => {
    const response = recorded.find((each) => each.name.startsWith('vercel-vertex-stream'))!;
    const { result, events } = decodeChunks(response.chunks);
    const args = JSON.parse(result.message.tool_calls?.[0]?.function.arguments ?? '{}') as {
      recipe: { name: string; ingredients: { amount: string; name: string }[]; steps: string[] };
    };
    expect(args.recipe.name).toBe('Lasagna');
    expect(args.recipe.ingredients).toHaveLength(10);
    expect(args.recipe.ingredients[0]).toEqual({ amount: '16 oz', name: 'Lasagna noodles' });
    expect(args.recipe.steps[1]).toBe('Cook lasagna noodles according to package directions, drain and set aside.');
    expect(args.recipe.steps[4]).toBe('In a 9x13 baking dish, spread a thin layer of meat sauce.');
    expect(events.filter((event) => event.type === 'tool-call-start')).toHaveLength(1);
    const deltas = events.filter((event) => event.type === 'tool-call-delta');
    expect(deltas).toEqual([{ type: 'tool-call-delta', index: 0, argumentsDelta: JSON.stringify(args) }]);
    expect(result.message.gemini_content_parts).toEqual([
      { functionCall: { name: 'cookRecipe', args }, thoughtSignature: expect.stringMatching(/^CmIBjz1r/) },
    ]);
  });

  it('applies typed argument fragments at nested paths', () => {
    const args = {};
    applyPartialArgument(args, { jsonPath: '$.a[1].b', numberValue: 3 });
    applyPartialArgument(args, { jsonPath: '$.c', boolValue: true });
    applyPartialArgument(args, { jsonPath: '$.d', stringValue: 'x' });
    applyPartialArgument(args, { jsonPath: '$.d', stringValue: 'y' });
    applyPartialArgument(args, { jsonPath: '$.e', nullValue: null });
    expect(args).toEqual({ a: [undefined, { b: 3 }], c: true, d: 'xy', e: null });
  });

  it('fails a stream that ends before a finishReason', () => {
    const decoder = new GeminiDecoder(context());
    decoder.push(JSON.stringify({ candidates: [{ content: { parts: [{ text: 'half' }] } }] }));
    const tail = decoder.end();
    expect(tail.map((event) => event.type)).toEqual(['error']);
    expect(tail[0]).toMatchObject({ error: { message: expect.stringMatching(/ended before a finishReason/) } });
    expect(decoder.done).toBe(true);
  });

  it('turns an in-stream error envelope into a StreamError', () => {
    const decoder = new GeminiDecoder(context());
    const events = decoder.push('{"error":{"code":503,"message":"overloaded","status":"UNAVAILABLE"}}');
    expect(events.map((event) => event.type)).toEqual(['start', 'error']);
    expect(events[1]).toMatchObject({ error: { message: 'Gemini stream error UNAVAILABLE: overloaded' } });
    expect(decoder.done).toBe(true);
    expect(decoder.end()).toEqual([]);
  });

  it('maps a blocked prompt to content-filter', () => {
    const { result } = decodeChunks([{ promptFeedback: { blockReason: 'SAFETY' } }]);
    expect(result.finishReason).toEqual({ unified: 'content-filter', raw: 'SAFETY' });
    expect(result.message.content).toBe('');
  });
});
