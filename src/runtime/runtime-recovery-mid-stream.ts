import { ApiError, StreamError, type HermesError } from '../core/errors.js';
import { isThoughtSignatureRefusal } from '../replay/replay-required-carrier.js';
import { errorBodyOf } from './runtime-errors.js';

/**
 * WIRE §8: the Gemini API (and OpenRouter relaying it) may refuse a thought signature after the
 * stream began: `200`, then an error chunk holding "Corrupted thought signature." When that
 * chunk comes before any content reached the user, nothing of the answer was shown, so the turn
 * is the same as a `400` with that text and gets the same recovery (retry once without the
 * refused signatures). After content was delivered the turn ends with the provider's text.
 */
/** A failure a recovery row may fix: its HTTP status, the provider's text, and where it came from. */
export interface RecoverableFailure {
  status: number;
  body: string;
  /** True when the refusal came in the middle of a stream (before any content). */
  midStream: boolean;
}

/**
 * The failure as a recovery row sees it: a `4xx` response, or a refused thought signature in the
 * middle of a stream before any content was `delivered`; null for anything else.
 */
export function recoverableFailure(error: HermesError, delivered: boolean): RecoverableFailure | null {
  if (error instanceof ApiError) {
    return error.status >= 400 && error.status < 500
      ? { status: error.status, body: errorBodyOf(error), midStream: false }
      : null;
  }
  if (!(error instanceof StreamError) || delivered) return null;
  const body = errorBodyOf(error);
  if (!isThoughtSignatureRefusal(body)) return null;
  return { status: 400, body, midStream: true };
}

/** The WARN line of a recovery from a refusal in the middle of a stream says so. */
export function midStreamLog(log: string): string {
  return `refused in the middle of the stream before any content was shown: ${log}`;
}
