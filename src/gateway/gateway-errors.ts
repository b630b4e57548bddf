/**
 * The OpenAI error envelope (`{"error":{"message","type","param","code"}}`): OpenAI-compatible
 * clients (the `openai` SDK, chat UIs) read `error.message` and the HTTP status, so every
 * gateway failure is answered in that shape.
 */

/** OpenAI error `type` values the gateway uses. */
export type GatewayErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'rate_limit_error'
  | 'provider_error'
  | 'server_error';

/** The body of an error response. */
export interface GatewayErrorBody {
  error: { message: string; type: GatewayErrorType; param: string | null; code: string | null };
}

/** A failure the gateway answers with a status and an OpenAI error envelope. */
export class GatewayHttpError extends Error {
  override readonly name = 'GatewayHttpError';

  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 422 | 429 | 500 | 502 | 529,
    message: string,
    readonly type: GatewayErrorType,
    readonly code: string | null = null,
    readonly param: string | null = null,
  ) {
    super(message);
  }

  /** The JSON body clients receive. */
  body(): GatewayErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** 400 with `invalid_request_error`. */
export function badRequest(message: string, param: string | null = null, code: string | null = null): GatewayHttpError {
  return new GatewayHttpError(400, message, 'invalid_request_error', code, param);
}

/** Longest client value (an id, a path, a title) an error message repeats. */
export const MAX_ECHOED_LENGTH = 80;

/**
 * A client's value as an error repeats it: at most {@link MAX_ECHOED_LENGTH} characters, then
 * `…` and its length. An answer never grows with what was sent (an 8 MB session id).
 */
export function echoed(value: string): string {
  if (value.length <= MAX_ECHOED_LENGTH) return value;
  return `${value.slice(0, MAX_ECHOED_LENGTH)}… (${value.length} characters)`;
}

/** 404 for a session id the store does not hold. */
export function unknownSession(id: string): GatewayHttpError {
  return new GatewayHttpError(
    404,
    `no session "${echoed(id)}": omit X-Hermes-Session-Id to start a new session, or list sessions with GET /v1/sessions`,
    'not_found_error',
    'session_not_found',
  );
}
