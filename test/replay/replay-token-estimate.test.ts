import { describe, expect, test } from 'vitest';
import type { Message } from '../../src/core/message.js';
import {
  MESSAGE_FRAMING_TOKENS,
  estimateMessageTokens,
  estimateRequestTokens,
  estimateTextTokens,
  staleThinkingReachesWire,
} from '../../src/replay/replay-token-estimate.js';
import { toolCall } from '../support/messages.js';

const stale = { chargeStaleThinking: false, newestAssistant: false };
const charged = { chargeStaleThinking: true, newestAssistant: false };

describe('SPEC §15 rough token estimate', () => {
  test.each([
    ['', 0],
    ['abcd', 1],
    ['abcde', 2],
    ['é', 1],
    ['你好世界', 4],
    ['こんにちは', 5],
    ['안녕', 2],
    ['ab你好', 3],
    ['😀', 1],
  ])('%j → %i tokens', (text, tokens) => {
    expect(estimateTextTokens(text)).toBe(tokens);
  });

  test('content plus framing; api_content replaces content for pricing', () => {
    expect(estimateMessageTokens({ role: 'user', content: 'a'.repeat(40) }, stale)).toBe(MESSAGE_FRAMING_TOKENS + 10);
    expect(
      estimateMessageTokens({ role: 'assistant', content: 'a'.repeat(400), api_content: 'a'.repeat(8) }, stale),
    ).toBe(MESSAGE_FRAMING_TOKENS + 2);
  });

  test('tool-call names and arguments are priced', () => {
    const message: Message = {
      role: 'assistant',
      content: null,
      tool_calls: [toolCall('x', 'abcd', '{"p":"abcdefgh"}')],
    };
    expect(estimateMessageTokens(message, stale)).toBe(MESSAGE_FRAMING_TOKENS + 1 + 4);
  });

  test('opaque bytes cost zero: signatures, encrypted data, encrypted_content, record blobs', () => {
    const base: Message = { role: 'assistant', content: 'abcd' };
    const withOpaque: Message = {
      ...base,
      reasoning_details: [
        { type: 'reasoning.encrypted', data: 'x'.repeat(4000) },
        { type: 'reasoning.text', text: '', signature: 's'.repeat(4000) },
        { type: 'hermes.native_assistant', reasoning_opaque: 'o'.repeat(4000) },
      ],
      codex_reasoning_items: [{ type: 'reasoning', encrypted_content: 'e'.repeat(4000) }],
    };
    const baseline = estimateMessageTokens(base, charged);
    // Only the codex item's non-encrypted strings ("reasoning" type) are priced.
    expect(estimateMessageTokens(withOpaque, charged)).toBe(baseline + estimateTextTokens('reasoning'));
  });

  test('codex_reasoning_items are always priced (they are always replayed), even when stale', () => {
    const message: Message = {
      role: 'assistant',
      content: null,
      codex_reasoning_items: [{ type: 'reasoning', summary: [{ type: 'summary_text', text: 'x'.repeat(40) }] }],
    };
    expect(estimateMessageTokens(message, stale)).toBeGreaterThan(MESSAGE_FRAMING_TOKENS + 10);
  });

  test('reasoning: RC when non-blank, else reasoning, else readable reasoning_details; stale only when charged', () => {
    const both: Message = {
      role: 'assistant',
      content: null,
      reasoning_content: 'a'.repeat(40),
      reasoning: 'a'.repeat(40),
    };
    expect(estimateMessageTokens(both, charged)).toBe(MESSAGE_FRAMING_TOKENS + 10);
    expect(estimateMessageTokens(both, stale)).toBe(MESSAGE_FRAMING_TOKENS);
    expect(estimateMessageTokens(both, { chargeStaleThinking: false, newestAssistant: true })).toBe(
      MESSAGE_FRAMING_TOKENS + 10,
    );
    const padOnly: Message = { role: 'assistant', content: null, reasoning_content: ' ', reasoning: 'a'.repeat(8) };
    expect(estimateMessageTokens(padOnly, charged)).toBe(MESSAGE_FRAMING_TOKENS + 2);
    const detailsOnly: Message = {
      role: 'assistant',
      content: null,
      reasoning_details: [
        { type: 'reasoning.summary', summary: 'a'.repeat(8) },
        { type: 'thinking', thinking: 'a'.repeat(8), signature: 'zzzz' },
      ],
    };
    expect(estimateMessageTokens(detailsOnly, charged)).toBe(MESSAGE_FRAMING_TOKENS + 4);
    const detailsIgnored: Message = { ...detailsOnly, reasoning: 'abcd' };
    expect(estimateMessageTokens(detailsIgnored, charged)).toBe(MESSAGE_FRAMING_TOKENS + 1);
  });

  test('preflight equals the sum of per-message (tail-walk) estimates, with the newest assistant always charged', () => {
    const history: Message[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: '问题' },
      {
        role: 'assistant',
        content: 'a',
        reasoning_content: 'x'.repeat(100),
        reasoning_details: [{ type: 'reasoning.encrypted', data: 'E'.repeat(999) }],
      },
      { role: 'tool', tool_call_id: 't', content: 'out' },
      { role: 'assistant', content: 'b', reasoning: 'y'.repeat(60) },
      { role: 'user', content: 'next' },
    ];
    for (const chargeStaleThinking of [true, false]) {
      const sum = history.reduce(
        (total, message, index) =>
          total + estimateMessageTokens(message, { chargeStaleThinking, newestAssistant: index === 4 }),
        0,
      );
      expect(estimateRequestTokens(history, { chargeStaleThinking })).toBe(sum);
    }
    expect(
      estimateRequestTokens(history, { chargeStaleThinking: true }) -
        estimateRequestTokens(history, { chargeStaleThinking: false }),
    ).toBe(25);
  });
});

describe('SPEC §14 stale thinking reaches the wire', () => {
  test.each([
    [{ api: 'anthropic_messages', pad: false, carriers: null, anthropicReplaysPriorThinking: true }, true],
    [{ api: 'anthropic_messages', pad: false, carriers: null }, false],
    [{ api: 'anthropic_messages', pad: true, carriers: null }, true],
    [{ api: 'codex_responses', pad: true, carriers: null }, false],
    [{ api: undefined, pad: true, carriers: null }, true],
    [{ api: undefined, pad: false, carriers: null }, false],
    [{ api: 'chat_completions', pad: false, carriers: ['reasoning_details'] }, false],
    [{ api: 'chat_completions', pad: false, carriers: ['reasoning'] }, true],
    [{ api: 'chat_completions', pad: false, carriers: ['reasoning_content'] }, true],
    [{ api: 'chat_completions', pad: true, carriers: [] }, false],
  ] as const)('%j → %s', (input, expected) => {
    expect(staleThinkingReachesWire({ ...input, carriers: input.carriers === null ? null : [...input.carriers] })).toBe(
      expected,
    );
  });
});
