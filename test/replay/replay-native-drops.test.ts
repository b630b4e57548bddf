/**
 * SPEC §24.10: the Anthropic, Gemini and Responses encoders record a decision for every carrier
 * they leave out, including foreign-origin blobs, with one byte count per carrier that is the same
 * in "kept" and "dropped"; the request names the native carriers it sent.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { nativeCarriersSent, unreadCarrierDecisions } from '../../src/replay/replay-native-drops.js';
import { prepareAnthropicMessages } from '../../src/transports/anthropic-messages/anthropic-messages-encode.js';
import { prepareGemini } from '../../src/transports/gemini/gemini-encode.js';
import { prepareResponses } from '../../src/transports/responses/responses-encode.js';
import type { TransportRequest } from '../../src/transports/shared/transport.js';
import { decision, signedAnswer } from '../support/messages.js';

const ENCRYPTED = 'gAAAA'.repeat(20);
const responsesTurn: Message = {
  role: 'assistant',
  content: 'a1',
  reasoning_content: 'summary text',
  codex_reasoning_items: [
    {
      type: 'reasoning',
      id: 'rs_1',
      encrypted_content: ENCRYPTED,
      summary: [],
      _issuer_kind: 'other:https://api.openai.com/v1',
    },
  ],
  origin: { api: 'codex_responses', provider: 'openai-responses', host: 'api.openai.com', model: 'gpt-5.4' },
};
const anthropicTurn: Message = {
  ...signedAnswer('a2', 'think', 'SIGNATURE', {
    api: 'anthropic_messages',
    provider: 'anthropic',
    host: '',
    model: 'claude-opus-4-8',
  }),
  reasoning_content: 'think',
};
const history: Message[] = [
  { role: 'user', content: 'q1' },
  responsesTurn,
  { role: 'user', content: 'q2' },
  anthropicTurn,
  { role: 'user', content: 'q3' },
];

function request(route: TransportRequest['route']): TransportRequest {
  return { route, history, tools: [], reasoning: { enabled: true } };
}

const gemini = prepareGemini(
  request({ api: 'gemini', provider: 'google', model: 'gemini-3-pro-preview', baseUrl: undefined }),
);
const anthropic = prepareAnthropicMessages(
  request({ api: 'anthropic_messages', provider: 'anthropic', model: 'claude-opus-4-8' }),
);
const responses = prepareResponses(
  request({
    api: 'codex_responses',
    provider: 'openai-responses',
    model: 'gpt-5.4',
    baseUrl: 'https://api.openai.com/v1',
  }),
);

describe('SPEC §24.10 every drop explained', () => {
  it('Gemini records the foreign encrypted item and signed thinking it leaves out', () => {
    expect(gemini.decisions).toContainEqual(
      decision(1, 'codex_reasoning_items[0]', 'dropped', 'foreign origin', ENCRYPTED.length),
    );
    expect(gemini.decisions).toContainEqual(
      decision(
        3,
        'anthropic_content_blocks[0] (thinking)',
        'dropped',
        'foreign origin',
        // SPEC §25.5: the signature, once (its text is not the opaque carrier).
        'SIGNATURE'.length,
      ),
    );
    expect(gemini.decisions).toContainEqual(
      expect.objectContaining({ messageIndex: 1, field: 'reasoning_content', action: 'dropped' }),
    );
  });

  it('Anthropic records the foreign encrypted item; Responses records the foreign signed thinking', () => {
    expect(anthropic.decisions).toContainEqual(
      expect.objectContaining({ messageIndex: 1, field: 'codex_reasoning_items[0]', reason: 'foreign origin' }),
    );
    expect(responses.decisions).toContainEqual(
      expect.objectContaining({
        messageIndex: 3,
        field: 'anthropic_content_blocks[0] (thinking)',
        reason: 'foreign origin',
      }),
    );
  });

  it('one byte count per carrier: the same kept on its own route and dropped elsewhere', () => {
    const keptItem = responses.decisions.find((d) => d.messageIndex === 1 && d.field === 'codex_reasoning_items[0]');
    const droppedItem = gemini.decisions.find((d) => d.messageIndex === 1 && d.field === 'codex_reasoning_items[0]');
    expect(keptItem?.action).toBe('kept');
    expect(keptItem?.bytes).toBe(droppedItem?.bytes);
    const keptThinking = anthropic.decisions.find((d) => d.messageIndex === 3 && d.field === 'thinking');
    const droppedThinking = responses.decisions.find(
      (d) => d.messageIndex === 3 && d.field === 'anthropic_content_blocks[0] (thinking)',
    );
    expect(keptThinking?.action).toBe('kept');
    expect(keptThinking?.bytes).toBe(droppedThinking?.bytes);
  });

  it('the request names the native carriers it sent (never none when a blob travels)', () => {
    expect(anthropic.nativeCarriersSent).toContain('thinking');
    expect(responses.nativeCarriersSent).toEqual(['codex_reasoning_items']);
    expect(gemini.nativeCarriersSent).toEqual([]);
    expect(
      nativeCarriersSent([
        { messageIndex: 1, field: 'reasoning_details[2] (reasoning.text)', action: 'kept', reason: 'x' },
      ]),
    ).toEqual(['reasoning_details']);
  });

  it('a message of the route’s own API reports no mirror of its native carrier', () => {
    expect(unreadCarrierDecisions(responsesTurn as never, 1, 'codex_responses')).toEqual([]);
    expect(unreadCarrierDecisions(anthropicTurn as never, 3, 'anthropic_messages')).toEqual([]);
  });
});
