/**
 * WIRE §8: a thought signature refused in the middle of a stream (Gemini API, OpenRouter relaying
 * Gemini) counts as its `400` while no content was shown, and never after.
 */
import { describe, expect, it } from 'vitest';
import { ApiError, StreamError } from '../../src/core/errors.js';
import { recoverableFailure } from '../../src/runtime/runtime-recovery-mid-stream.js';
import { RECOVERIES, type RecoveryContext } from '../../src/runtime/runtime-recovery.js';
import { isThoughtSignatureRefusal } from '../../src/replay/replay-required-carrier.js';

const GOOGLE_CHUNK = JSON.stringify({
  error: { code: 400, message: 'Corrupted thought signature.', status: 'INVALID_ARGUMENT' },
});
const OPENROUTER_CHUNK = JSON.stringify({
  error: {
    message: 'Provider returned error',
    code: 400,
    metadata: { raw: GOOGLE_CHUNK, provider_name: 'Google AI Studio' },
  },
});

describe('recoverableFailure', () => {
  it('a refused signature mid-stream before any content is the 400 it stands for', () => {
    expect(recoverableFailure(new StreamError('Gemini stream error', { body: GOOGLE_CHUNK }), false)).toEqual({
      status: 400,
      body: GOOGLE_CHUNK,
      midStream: true,
    });
    expect(recoverableFailure(new StreamError('openrouter stream error', { body: OPENROUTER_CHUNK }), false)).toEqual({
      status: 400,
      body: OPENROUTER_CHUNK,
      midStream: true,
    });
  });

  it('after content was delivered, or for another stream error, nothing is recovered', () => {
    expect(recoverableFailure(new StreamError('Gemini stream error', { body: GOOGLE_CHUNK }), true)).toBeNull();
    const other = JSON.stringify({ error: { code: 500, message: 'Internal error', status: 'INTERNAL' } });
    expect(recoverableFailure(new StreamError('Gemini stream error', { body: other }), false)).toBeNull();
  });

  it('a 4xx response stays a 4xx; a 5xx is never a recovery', () => {
    const rejected = new ApiError('google 400', { status: 400, body: GOOGLE_CHUNK });
    expect(recoverableFailure(rejected, true)).toEqual({ status: 400, body: GOOGLE_CHUNK, midStream: false });
    expect(recoverableFailure(new ApiError('google 500', { status: 500, body: '' }), false)).toBeNull();
  });
});

describe('OpenRouter relaying Gemini', () => {
  it('Google’s refusal inside the envelope is recognised', () => {
    expect(isThoughtSignatureRefusal(OPENROUTER_CHUNK)).toBe(true);
    expect(isThoughtSignatureRefusal('{"error":{"message":"Provider returned error"}}')).toBe(false);
  });

  it('the relay-signature row takes it when reasoning_details carried the signatures', () => {
    const row = RECOVERIES.chat_completions.find((candidate) => candidate.name === 'relay-signature')!;
    const body = {
      messages: [{ role: 'assistant', reasoning_details: [{ type: 'reasoning.encrypted', data: 'sig' }] }],
    };
    const context = {
      body: OPENROUTER_CHUNK,
      status: 400,
      prepared: { body, carriersSent: ['reasoning_details'] },
    } as unknown as RecoveryContext;
    expect(row.classify(context)).toBe(true);
    const without = { ...context, prepared: { body, carriersSent: [] } } as unknown as RecoveryContext;
    expect(row.classify(without)).toBe(false);
  });
});
