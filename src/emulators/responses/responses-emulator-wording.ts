import type { ResponsesEmulatorError } from './responses-emulator-input.js';

/**
 * How a Responses-wire server words its refusal of `encrypted_content` it did not issue (WIRE §8):
 * OpenAI's "The encrypted content gAAA...DQ== could not be verified." (`invalid_encrypted_content`,
 * the default); a relay that routes one caller's blob to an account that did not mint it, "… was
 * not issued to this caller" (same code); xAI, "Could not decrypt the provided encrypted_content"
 * (no code). All three mean the same to a client: stop replaying encrypted reasoning (SPEC §12).
 */
export type EncryptedRejectionWording = 'openai' | 'relay' | 'xai';

/** `error` reworded for `wording`; anything but an encrypted-content refusal is returned as it is. */
export function rewordEncryptedRejection(
  error: ResponsesEmulatorError,
  wording: EncryptedRejectionWording,
): ResponsesEmulatorError {
  if (wording === 'openai' || error.body.error.code !== 'invalid_encrypted_content') return error;
  const blob = /encrypted content (\S+) could not be verified/.exec(error.body.error.message)?.[1] ?? 'item';
  const message =
    wording === 'relay'
      ? `The encrypted content ${blob} was not issued to this caller.`
      : 'Could not decrypt the provided encrypted_content';
  const code = wording === 'relay' ? 'invalid_encrypted_content' : null;
  return { status: error.status, body: { error: { ...error.body.error, message, code } } };
}
