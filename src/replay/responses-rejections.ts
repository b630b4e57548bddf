import { isJsonObject } from '../core/json.js';

/**
 * What a Responses API rejection says about the replayed reasoning (WIRE.md §5.5). Pure: error
 * bodies in, verdicts out. The envelope is `{"error":{"message","type","param","code"}}`.
 */

// ---------------------------------------------------------------------------------------------
// Body parsing
// ---------------------------------------------------------------------------------------------

/** The provider's `error.message` and `error.code`, when the body is the standard envelope. */
export function responsesErrorFields(body: string): { message: string | undefined; code: string | undefined } {
  try {
    const parsed: unknown = JSON.parse(body);
    const error = isJsonObject(parsed) ? parsed['error'] : undefined;
    if (isJsonObject(error)) {
      return {
        message: typeof error['message'] === 'string' ? error['message'] : undefined,
        code: typeof error['code'] === 'string' ? error['code'] : undefined,
      };
    }
  } catch {
    // Not JSON (a proxy's HTML page): fall through.
  }
  return { message: undefined, code: undefined };
}

// ---------------------------------------------------------------------------------------------
// Verdicts
// ---------------------------------------------------------------------------------------------

/**
 * True when the body is the "encrypted content could not be verified" rejection (WIRE.md §5.5):
 * `{"error":{"message":"The encrypted content gAAA...DQ== could not be verified.", …,
 * "code":"invalid_encrypted_content"}}`, or the 2026 wording "The encrypted content for item
 * rs_… could not be verified. Reason: Encrypted content could not be decrypted or parsed."
 * The runtime answers it with the kill switch `replayEncryptedReasoning: false` for the
 * (route, session) and says so in the log.
 */
export function isInvalidEncryptedContentError(body: string): boolean {
  const { message, code } = responsesErrorFields(body);
  if (code === 'invalid_encrypted_content') return true;
  // WIRE §8: a relay's "… was not issued to this caller", xAI's "Could not decrypt the provided encrypted_content".
  const text = message ?? body;
  return (
    /encrypted content.*could not be verified/i.test(text) ||
    /encrypted content.*was not issued to this caller/i.test(text) ||
    /could not decrypt the provided encrypted_content/i.test(text)
  );
}

/**
 * True when the body is the stateless-replay 404 (WIRE.md §5.5): "Item with id 'rs_…' not found.
 * Items are not persisted when `store` is set to false." — a reasoning id went out without its
 * encrypted content.
 */
export function isItemNotFoundError(body: string): boolean {
  const { message } = responsesErrorFields(body);
  return message !== undefined && /^Item with id '[^']*' not found\./.test(message);
}
