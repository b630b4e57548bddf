/**
 * SPEC §9.4 rejected-signature memory: error detection, fingerprints (SHA-256 of
 * `type\0signature-or-data`), persisted sorted list, older dict format.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/replay/anthropic-sha256.js';
import {
  ANTHROPIC_REJECTED_THINKING_KEY,
  fingerprintOf,
  fingerprintSignedBlocks,
  isThinkingSignatureError,
  mergeRejectedThinking,
  readRejectedThinking,
  withRejectedThinking,
} from '../../src/replay/anthropic-signature-memory.js';

describe('pure SHA-256 (used because replay/ may not import node:crypto)', () => {
  const vectors: [string, string][] = [
    ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    [
      'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq',
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    ],
  ];
  it.each(vectors)('FIPS 180-4 vector %#', (input, expected) => {
    expect(sha256Hex(input)).toBe(expected);
  });

  it('matches node:crypto on lengths around block boundaries and on non-ASCII text', () => {
    for (let length = 0; length < 200; length += 1) {
      const text = 'é漢'.repeat(length % 7) + 'x'.repeat(length);
      expect(sha256Hex(text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
    }
  });
});

describe('isThinkingSignatureError (WIRE.md §2.6b)', () => {
  const table: [string, boolean][] = [
    [
      '{"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content.0: Invalid `signature` in `thinking` block"}}',
      true,
    ],
    [
      'messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block".',
      true,
    ],
    ['The block is bound to a different conversation.', true],
    ['Invalid signature in thinking block', true],
    ['{"message":"messages.1.content.0: Invalid \\`signature\\` in \\`thinking\\` block"}', true],
    ['messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`.', false],
    ['context_management: Extra inputs are not permitted', false],
  ];
  it.each(table)('%s → %s', (body, expected) => {
    expect(isThinkingSignatureError(body)).toBe(expected);
  });
});

describe('fingerprints and the persisted list (SPEC §9.4)', () => {
  it('fingerprints every signed block of a rejected body, sorted and unique', () => {
    const body = {
      model: 'claude-opus-4-8',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'a', signature: 'SIG-A' },
            { type: 'redacted_thinking', data: 'DATA-B' },
            { type: 'thinking', thinking: 'unsigned' },
            { type: 'text', text: 'x' },
          ],
        },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'again', signature: 'SIG-A' }] },
      ],
    };
    const expected = [
      createHash('sha256').update('thinking\0SIG-A').digest('hex'),
      createHash('sha256').update('redacted_thinking\0DATA-B').digest('hex'),
    ].sort();
    expect(fingerprintSignedBlocks(body)).toEqual(expected);
    expect(fingerprintOf('thinking', 'SIG-A')).toBe(createHash('sha256').update('thinking\0SIG-A').digest('hex'));
  });

  it('nothing fingerprintable gives an empty list', () => {
    expect(
      fingerprintSignedBlocks({ messages: [{ role: 'assistant', content: [{ type: 'text', text: 'x' }] }] }),
    ).toEqual([]);
  });

  it('reads the sorted list and the older {fingerprints, strip_all} dict; merges sorted unique', () => {
    expect(readRejectedThinking({ [ANTHROPIC_REJECTED_THINKING_KEY]: ['b', 'a', 'b'] })).toEqual(['a', 'b']);
    expect(
      readRejectedThinking({ [ANTHROPIC_REJECTED_THINKING_KEY]: { fingerprints: ['c'], strip_all: true } }),
    ).toEqual(['c']);
    expect(readRejectedThinking(undefined)).toEqual([]);
    expect(mergeRejectedThinking(['c', 'a'], ['b', 'a'])).toEqual(['a', 'b', 'c']);
    const config = { model: 'x', [ANTHROPIC_REJECTED_THINKING_KEY]: { fingerprints: ['z'], strip_all: false } };
    expect(withRejectedThinking(config, ['y'])).toEqual({ model: 'x', [ANTHROPIC_REJECTED_THINKING_KEY]: ['y', 'z'] });
    expect(config[ANTHROPIC_REJECTED_THINKING_KEY]).toEqual({ fingerprints: ['z'], strip_all: false });
  });
});
