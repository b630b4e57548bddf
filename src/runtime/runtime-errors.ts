import { ApiError, StreamError, type HermesError } from '../core/errors.js';

/** The provider text of an error: the body, else the message (SPEC §13.3). */
export function errorBodyOf(error: HermesError): string {
  if (error instanceof ApiError && error.body) return error.body;
  if (error instanceof StreamError && error.body) return error.body;
  return error.message;
}
