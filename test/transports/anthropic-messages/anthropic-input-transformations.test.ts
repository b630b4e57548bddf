/**
 * SPEC §26.4, WIRE §8: an answer's `input_transformations` — in a JSON body, in `message_start`,
 * or again (or only) on the final `message_delta` — are kept on the decoded message, once each.
 */
import { describe, expect, it } from 'vitest';
import type { OriginStamp } from '../../../src/core/origin.js';
import type { StreamEvent } from '../../../src/core/stream-event.js';
import {
  AnthropicStreamDecoder,
  decodeAnthropicResponse,
} from '../../../src/transports/anthropic-messages/anthropic-messages-decode.js';
import {
  describeProviderDrops,
  locateTransformations,
  storedInputTransformations,
} from '../../../src/replay/anthropic-input-transformations.js';

const ORIGIN: OriginStamp = { api: 'anthropic_messages', provider: 'anthropic', host: '', model: 'claude-fable-5-1' };
const PREFIX = { type: 'thinking_dropped', path: 'messages.1.content.0', reason: 'prefix_binding_mismatch' };
const MODEL = { type: 'thinking_dropped', path: 'messages.3.content.0', reason: 'model_binding_mismatch' };

function streamed(events: Record<string, unknown>[]) {
  const decoder = new AnthropicStreamDecoder(ORIGIN);
  const out: StreamEvent[] = [];
  for (const event of events) out.push(...decoder.push(JSON.stringify(event)));
  const finish = out.find((event) => event.type === 'finish');
  if (finish?.type !== 'finish') throw new Error('no finish');
  return finish.message;
}

const text = [
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } },
  { type: 'content_block_stop', index: 0 },
];

describe('input_transformations (SPEC §26.4)', () => {
  it('a JSON answer keeps them on the message', () => {
    const decoded = decodeAnthropicResponse(
      { content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', input_transformations: [PREFIX] },
      ORIGIN,
    );
    expect(decoded.message['_input_transformations']).toEqual([PREFIX]);
  });

  it('an empty list (the beta answers one on every response) keeps nothing', () => {
    const decoded = decodeAnthropicResponse({ content: [], input_transformations: [] }, ORIGIN);
    expect(decoded.message['_input_transformations']).toBeUndefined();
  });

  it('a stream gathers message_start and message_delta lists, each entry once', () => {
    const message = streamed([
      { type: 'message_start', message: { id: 'm', content: [], usage: {}, input_transformations: [PREFIX] } },
      ...text,
      {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn' },
        usage: { output_tokens: 1 },
        input_transformations: [PREFIX, MODEL],
      },
      { type: 'message_stop' },
    ]);
    expect(message['_input_transformations']).toEqual([PREFIX, MODEL]);
  });

  it('names the stored messages the paths point at, and says so in one line', () => {
    const located = locateTransformations([PREFIX, MODEL], [[0], [2, 2], [3], [4, 4]]);
    expect(located.map((entry) => entry.message)).toEqual([2, 4]);
    expect(storedInputTransformations({ _input_transformations: [{ ...PREFIX, message: 7 }] })).toEqual([
      { ...PREFIX, message: 7 },
    ]);
    expect(describeProviderDrops(located)).toBe(
      'the provider dropped 2 thinking blocks from the request (prefix_binding_mismatch: message 2; model_binding_mismatch: message 4)',
    );
    expect(
      describeProviderDrops([
        { type: 'thinking_mismatch_allowed', path: 'messages.1.content.0', reason: 'prefix_binding_mismatch' },
      ]),
    ).toBeNull();
  });
});
