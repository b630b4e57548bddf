import { ApiError, StreamError, type HermesError } from '../core/errors.js';

/** The provider text of an error: the body, else the message (SPEC §13.3). */
export function errorBodyOf(error: HermesError): string {
  if (error instanceof ApiError && error.body) return error.body;
  if (error instanceof StreamError && error.body) return error.body;
  return error.message;
}

/**
 * A 4xx saying the prompt exceeds the model's context window (OpenAI `context_length_exceeded`,
 * "maximum context length", Anthropic "prompt is too long", Gemini "exceeds the maximum number of tokens").
 */
export function isContextOverflow(error: ApiError): boolean {
  if (error.status < 400 || error.status >= 500) return false;
  return /context[_ ]length|maximum context|context window|prompt is too long|exceeds the maximum number of tokens/i.test(
    errorBodyOf(error),
  );
}
