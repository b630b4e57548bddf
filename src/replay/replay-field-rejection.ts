import { isJsonObject } from '../core/json.js';
import type { Carrier } from './replay-types.js';
import { CARRIERS } from './replay-types.js';

/**
 * The unknown-field classifier (SPEC §13.1–§13.3) as a pure function: an error body plus the
 * carriers that were on the rejected request give the carrier fields to learn. A generic
 * "Provider returned error" and value complaints ("reasoning_content is not allowed to be
 * empty", "The `reasoning_content` in the thinking mode must be passed back to the API.",
 * "Missing `reasoning_content` field") never qualify: no phrase below occurs in them.
 */

/**
 * Phrases that mark a schema rejection (lower-case). SPEC §13.1's list plus every phrasing
 * WIRE.md §6 records:
 * - Mistral 422 `extra_forbidden` / "Extra inputs are not permitted"; Fireworks' older
 *   "extra fields not permitted";
 * - Groq and Cerebras (`wrong_api_format`) "property '…reasoning_content' is unsupported";
 * - OpenAI "Unrecognized request argument supplied", "Unknown parameter: 'messages[2].reasoning'",
 *   "Additional properties are not allowed ('reasoning' was unexpected)";
 * - Rust/serde servers "unknown field `extra_content`"; huma gateways "unexpected property".
 */
export const FIELD_REJECTION_PHRASES: readonly string[] = [
  'extra inputs are not permitted',
  'extra fields not permitted',
  'extra_forbidden',
  'is unsupported',
  'no such field',
  'unknown field',
  'unrecognized request argument',
  'unrecognized field',
  'unknown parameter',
  'unexpected field',
  'unexpected property',
  'additional propert',
  'unknown key',
];

// Whole word = no word character on either side (SPEC §13.1).
const NAMES_REASONING_CONTENT = /(?<![\p{L}\p{N}_])reasoning_content(?![\p{L}\p{N}_])/u;
const NAMES_REASONING_DETAILS = /(?<![\p{L}\p{N}_])reasoning_details(?![\p{L}\p{N}_])/u;
// SPEC §13.1: `messages` followed within 80 non-newline characters by the whole word `reasoning`.
const NAMES_MESSAGE_REASONING = /messages[^\n]{0,80}?(?<![\p{L}\p{N}_])reasoning(?![\p{L}\p{N}_])/u;
// Hermes TS addition: OpenAI's older wording names the field before the path,
// "Additional properties are not allowed ('reasoning' was unexpected) - 'messages.2'" (WIRE.md §6),
// which the forward rule above cannot see.
const NAMES_MESSAGE_REASONING_BEFORE_PATH =
  /(?<![\p{L}\p{N}_])reasoning(?![\p{L}\p{N}_])'? was unexpected\)?[^\n]{0,20}messages/u;

/** Options for {@link classifyFieldRejection}. */
export interface FieldRejectionOptions {
  /** The route is must-echo (SPEC §13.3): an RC complaint there is a value problem, never learned. */
  mustEcho?: boolean;
}

/**
 * SPEC §13.1–§13.3: the carriers to learn from a rejection body, in SPEC order; empty when the
 * body is not a schema rejection naming a carrier that was sent. When RC is named the whole sent
 * set is returned (a provider rejecting RC is assumed to reject the family); otherwise the sent
 * members of {R, RD}. OpenRouter's envelope is unwrapped here too when the caller passes it
 * whole: `error.metadata.raw` holds the upstream text.
 */
export function classifyFieldRejection(
  body: string,
  sent: readonly Carrier[],
  options: FieldRejectionOptions = {},
): Carrier[] {
  const text = unwrapOpenRouterRaw(body).toLowerCase();
  if (!FIELD_REJECTION_PHRASES.some((phrase) => text.includes(phrase))) return [];
  const named = new Set<Carrier>();
  if (NAMES_REASONING_CONTENT.test(text)) named.add('reasoning_content');
  if (NAMES_REASONING_DETAILS.test(text)) named.add('reasoning_details');
  if (NAMES_MESSAGE_REASONING.test(text) || NAMES_MESSAGE_REASONING_BEFORE_PATH.test(text)) named.add('reasoning');
  const sentSet = new Set(sent);
  const namedAndSent = [...named].filter((carrier) => sentSet.has(carrier));
  if (namedAndSent.length === 0) return [];
  let result: Carrier[] = namedAndSent.includes('reasoning_content')
    ? CARRIERS.filter((carrier) => sentSet.has(carrier))
    : CARRIERS.filter((carrier) => carrier !== 'reasoning_content' && sentSet.has(carrier));
  if (options.mustEcho) result = result.filter((carrier) => carrier !== 'reasoning_content');
  return result;
}

/**
 * OpenRouter wraps upstream errors as
 * `{"error":{"message":"Provider returned error","metadata":{"raw":"<upstream body>"}}}`
 * (WIRE.md §1.7). Returns the raw upstream text when present, else the body unchanged.
 */
export function unwrapOpenRouterRaw(body: string): string {
  const trimmed = body.trim();
  if (!trimmed.startsWith('{') || !trimmed.includes('"raw"')) return body;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    if (!isJsonObject(parsed) || !isJsonObject(parsed['error'])) return body;
    const metadata = parsed['error']['metadata'];
    if (isJsonObject(metadata) && typeof metadata['raw'] === 'string' && metadata['raw'] !== '') return metadata['raw'];
  } catch {
    // Not JSON after all: classify the text as it is.
  }
  return body;
}
