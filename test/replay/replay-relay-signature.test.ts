/**
 * SPEC §24.8: rejected thinking signatures on chat-completions relays — fingerprints of the
 * `reasoning_details` entries sent, and every later rebuild leaving exactly those out (with a
 * decision per entry).
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { sha256Hex } from '../../src/replay/anthropic-sha256.js';
import { buildChatReplay } from '../../src/replay/replay-chat-messages.js';
import {
  relayEntryFingerprint,
  relaySignatureFingerprints,
  withoutRejectedEntries,
} from '../../src/replay/replay-relay-signature.js';
import { resolveRouteProfile } from '../../src/replay/replay-route-profile.js';
import { decision, originStamp } from '../support/messages.js';

const signed = { type: 'reasoning.text', text: 'plan', signature: 'SIG', format: 'anthropic-claude-v1', index: 0 };
const encrypted = { type: 'reasoning.encrypted', data: 'BLOB', id: 'rs_1', format: 'openai-responses-v1', index: 1 };
const unsigned = { type: 'reasoning.text', text: 'plan', format: 'anthropic-claude-v1', index: 0 };

describe('SPEC §24.8 relay fingerprints', () => {
  it('fingerprint = SHA-256 of type\\0signature, else data, else text', () => {
    expect(relayEntryFingerprint(signed)).toBe(sha256Hex('reasoning.text\0SIG'));
    expect(relayEntryFingerprint(encrypted)).toBe(sha256Hex('reasoning.encrypted\0BLOB'));
    expect(relayEntryFingerprint(unsigned)).toBe(sha256Hex('reasoning.text\0plan'));
    expect(relayEntryFingerprint({ type: 'reasoning.summary' })).toBeNull();
  });

  it('collects the entries of assistant messages only, sorted and unique', () => {
    const body = {
      messages: [
        { role: 'user', content: 'q', reasoning_details: [signed] },
        { role: 'assistant', content: 'a', reasoning_details: [signed, encrypted] },
        { role: 'assistant', content: 'b', reasoning_details: [signed] },
      ],
    };
    expect(relaySignatureFingerprints(body)).toEqual(
      [sha256Hex('reasoning.text\0SIG'), sha256Hex('reasoning.encrypted\0BLOB')].sort(),
    );
  });

  it('leaves out exactly the remembered entries; nothing left removes the key', () => {
    const rejected = new Set([sha256Hex('reasoning.text\0SIG')]);
    expect(withoutRejectedEntries([signed, encrypted], rejected).details).toEqual([encrypted]);
    expect(withoutRejectedEntries([signed], rejected).details).toBeUndefined();
    const untouched = [encrypted];
    expect(withoutRejectedEntries(untouched, rejected).details).toBe(untouched);
  });

  it('a rebuild on the OpenRouter route drops the remembered entries and explains each drop', () => {
    const origin = originStamp('chat_completions', 'openrouter', 'openrouter.ai', 'anthropic/claude-sonnet-4.5');
    const history: Message[] = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'a', reasoning: 'plan', reasoning_details: [signed, encrypted], origin },
      { role: 'user', content: 'next' },
    ];
    const profile = resolveRouteProfile({
      api: 'chat_completions',
      provider: 'openrouter',
      model: 'anthropic/claude-sonnet-4.5',
      baseUrl: 'https://openrouter.ai/api/v1',
    });
    const fresh = buildChatReplay(history, profile, { rejectedCarriers: [] });
    expect(fresh.messages[1]?.['reasoning_details']).toEqual([signed, encrypted]);
    const fingerprints = relaySignatureFingerprints({ messages: fresh.messages });
    const rebuilt = buildChatReplay(history, profile, {
      rejectedCarriers: [],
      rejectedThinkingFingerprints: fingerprints,
    });
    expect(rebuilt.messages[1]?.['reasoning_details']).toBeUndefined();
    // The readable reasoning still travels.
    expect(rebuilt.messages[1]?.['reasoning']).toBe('plan');
    expect(rebuilt.decisions).toContainEqual(
      decision(1, 'reasoning_details[0] (reasoning.text)', 'dropped', 'fingerprint rejected', 40),
    );
    expect(rebuilt.decisions).toContainEqual(
      expect.objectContaining({ field: 'reasoning_details[1] (reasoning.encrypted)', reason: 'fingerprint rejected' }),
    );
  });
});
