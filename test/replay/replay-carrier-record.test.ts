import { describe, expect, it } from 'vitest';
import {
  appendCarrierRecord,
  carrierRecordFromMessage,
  findCarrierRecord,
  isNativeRecordEntry,
  messageThoughtSignature,
  NATIVE_RECORD_TYPE,
  StreamCarriers,
} from '../../src/replay/replay-carrier-record.js';

/** The private carrier record (SPEC §7.1–§7.3). */

describe('carrierRecordFromMessage (SPEC §7.2)', () => {
  it.each([
    {
      name: 'nested Gemini signature',
      message: { extra_content: { google: { thought_signature: 'S1' } } },
      expected: { type: NATIVE_RECORD_TYPE, extra_content: { google: { thought_signature: 'S1' } } },
    },
    {
      name: 'flat extra_content signature',
      message: { extra_content: { thought_signature: 'S2' } },
      expected: { type: NATIVE_RECORD_TYPE, extra_content: { google: { thought_signature: 'S2' } } },
    },
    {
      name: 'top-level thought_signature (gemini-openai-compat fixture)',
      message: { thought_signature: 'S3' },
      expected: { type: NATIVE_RECORD_TYPE, extra_content: { google: { thought_signature: 'S3' } } },
    },
    {
      name: 'Copilot opaque + text',
      message: { reasoning_opaque: 'O', reasoning_text: 'T' },
      expected: { type: NATIVE_RECORD_TYPE, reasoning_opaque: 'O', reasoning_text: 'T' },
    },
    {
      name: 'blank signature is not a signature',
      message: { extra_content: { google: { thought_signature: '   ' } } },
      expected: undefined,
    },
    { name: 'nothing to capture', message: { content: 'hi', reasoning: 'r' }, expected: undefined },
    { name: 'not an object', message: 'text', expected: undefined },
  ])('$name', ({ message, expected }) => {
    expect(carrierRecordFromMessage(message)).toEqual(expected);
  });

  it('prefers the nested signature over the flat and top-level forms', () => {
    expect(
      messageThoughtSignature({
        extra_content: { google: { thought_signature: 'A' }, thought_signature: 'B' },
        thought_signature: 'C',
      }),
    ).toBe('A');
  });
});

describe('StreamCarriers (SPEC §7.3)', () => {
  it('last non-blank signature, last non-empty opaque, concatenated text; returns the display fragment', () => {
    const carriers = new StreamCarriers();
    expect(
      carriers.feed({
        reasoning_text: 'a',
        reasoning_opaque: 'O1',
        extra_content: { google: { thought_signature: 'S1' } },
      }),
    ).toBe('a');
    expect(carriers.feed({ reasoning_text: 'b', reasoning_opaque: '' }, 'shown')).toBe('shown');
    expect(carriers.feed({ reasoning_opaque: 'O2', thought_signature: ' ' })).toBeUndefined();
    expect(carriers.record()).toEqual({
      type: NATIVE_RECORD_TYPE,
      extra_content: { google: { thought_signature: 'S1' } },
      reasoning_opaque: 'O2',
      reasoning_text: 'ab',
    });
  });

  it('records nothing when nothing was carried', () => {
    const carriers = new StreamCarriers();
    carriers.feed({ content: 'x' });
    expect(carriers.record()).toBeUndefined();
  });
});

describe('record helpers', () => {
  it('findCarrierRecord / isNativeRecordEntry / appendCarrierRecord', () => {
    const record = { type: NATIVE_RECORD_TYPE, reasoning_opaque: 'O' } as const;
    const details = [{ type: 'reasoning.text', text: 't' }];
    const appended = appendCarrierRecord(details, record);
    expect(appended).toEqual([{ type: 'reasoning.text', text: 't' }, record]);
    expect(details).toHaveLength(1);
    expect(findCarrierRecord(appended)).toBe(record);
    expect(findCarrierRecord(details)).toBeUndefined();
    expect(isNativeRecordEntry({ type: 'other.native_assistant' })).toBe(true);
    expect(isNativeRecordEntry({ type: 'reasoning.text' })).toBe(false);
    expect(appendCarrierRecord([], undefined)).toBeNull();
    expect(appendCarrierRecord(null, record)).toEqual([record]);
  });
});
