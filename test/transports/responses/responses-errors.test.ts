import { describe, expect, it } from 'vitest';
import { BadRequestError, InternalServerError, NotFoundError, RateLimitError } from '../../../src/core/errors.js';
import { isInvalidEncryptedContentError, isItemNotFoundError } from '../../../src/replay/responses-rejections.js';
import { responsesApiError } from '../../../src/transports/responses/responses-errors.js';

/** WIRE.md §5.5 error texts → the kill-switch verdict and typed errors. */

const envelope = (message: string, code: string | null, param: string | null = null) =>
  JSON.stringify({ error: { message, type: 'invalid_request_error', param, code } });

const INVALID_2025 = envelope('The encrypted content gAAA...DQ== could not be verified.', 'invalid_encrypted_content');
const INVALID_2026 = envelope(
  'The encrypted content for item rs_0a18 could not be verified. Reason: Encrypted content could not be decrypted or parsed.',
  null,
);
const NOT_FOUND = envelope(
  "Item with id 'rs_0de7' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.",
  null,
  'input',
);
const FOLLOWER = envelope(
  "Item 'rs_1' of type 'reasoning' was provided without its required following item.",
  null,
  'input',
);

describe('isInvalidEncryptedContentError (SPEC §12 kill switch)', () => {
  const table: [string, string, boolean][] = [
    ['code invalid_encrypted_content', INVALID_2025, true],
    ['2026 wording without code', INVALID_2026, true],
    ['item not found', NOT_FOUND, false],
    ['missing following item', FOLLOWER, false],
    ['not JSON', '<html>bad gateway</html>', false],
  ];
  for (const [name, body, expected] of table) {
    it(name, () => expect(isInvalidEncryptedContentError(body)).toBe(expected));
  }
});

describe('isItemNotFoundError', () => {
  it('matches only the store:false 404 text', () => {
    expect(isItemNotFoundError(NOT_FOUND)).toBe(true);
    expect(isItemNotFoundError(INVALID_2025)).toBe(false);
  });
});

describe('responsesApiError', () => {
  const table: [number, string, unknown, string][] = [
    [
      400,
      INVALID_2025,
      BadRequestError,
      'Responses API answered 400: The encrypted content gAAA...DQ== could not be verified. Encrypted reasoning from this history is not accepted here; resend with encrypted replay off.',
    ],
    [
      404,
      NOT_FOUND,
      NotFoundError,
      "Responses API answered 404: Item with id 'rs_0de7' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input. A reasoning item id was sent without its encrypted content; drop the item or its id.",
    ],
    [
      429,
      envelope('Rate limit reached', 'rate_limit_exceeded'),
      RateLimitError,
      'Responses API answered 429: Rate limit reached',
    ],
    [502, '<html>bad gateway</html>', InternalServerError, 'Responses API answered 502: <html>bad gateway</html>'],
  ];
  for (const [status, body, type, message] of table) {
    it(`${status} → ${(type as { name: string }).name}`, () => {
      const error = responsesApiError(status, body, { requestId: 'req_1', provider: 'openai' });
      expect(error).toBeInstanceOf(type as typeof BadRequestError);
      expect(error.message).toBe(message);
      expect(error.body).toBe(body);
      expect(error.requestId).toBe('req_1');
      expect(error.status).toBe(status);
    });
  }
});
