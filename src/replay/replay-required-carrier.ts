import { isJsonObject, type JsonObject } from '../core/json.js';
import { unwrapOpenRouterRaw } from './replay-field-rejection.js';
import { GEMINI_PLACEHOLDER_SIGNATURE, GEMINI_PLACEHOLDER_SIGNATURE_ALTERNATE } from './replay-stand-ins.js';

/**
 * Rejections that name a carrier the route requires and did not get (SPEC §26.2, WIRE §8), and
 * the refusal of a placeholder sent in its stead. Pure: the runtime's `required-carrier` recovery
 * row decides from these what to learn.
 */

/** What a required-carrier rejection says was missing or refused. */
export type RequiredCarrierRejection =
  /** A function call without its thought signature (Gemini API, Vertex, Gemini behind Copilot). */
  | 'thought-signature'
  /** The in-flight tool loop without signed thinking (Anthropic, also behind a relay). */
  | 'signed-thinking'
  /** A placeholder signature the request carried was refused as corrupted or invalid. */
  | 'placeholder-refused';

const MISSING_SIGNATURE = /missing a `?thought_signature`?/i;
const MISSING_THINKING =
  /Expected `thinking` or `redacted_thinking`, but found `(?:tool_use|text)`|must start with a thinking block|content\[\]\.thinking in the thinking mode must be passed back/i;
const REFUSED_SIGNATURE = /Corrupted thought signature|Thought signature is not valid/i;

/**
 * Classifies a 4xx body of a request whose wire body was `sent`; null when it is not a
 * required-carrier rejection. OpenRouter's envelope (`metadata.raw`) is read through.
 */
export function classifyRequiredCarrierRejection(body: string, sent: JsonObject): RequiredCarrierRejection | null {
  const text = `${body}\n${unwrapOpenRouterRaw(body)}`;
  if (REFUSED_SIGNATURE.test(text) && sentPlaceholder(sent)) return 'placeholder-refused';
  if (MISSING_SIGNATURE.test(text)) return 'thought-signature';
  if (MISSING_THINKING.test(text)) return 'signed-thinking';
  return null;
}

/**
 * True when a provider error (also inside OpenRouter's `metadata.raw`) refuses a thought signature
 * Google cannot verify (WIRE §8: "Corrupted thought signature.", "Thought signature is not valid").
 */
export function isThoughtSignatureRefusal(body: string): boolean {
  return REFUSED_SIGNATURE.test(`${body}\n${unwrapOpenRouterRaw(body)}`);
}

/** True when a chat-completions body put Google's placeholder on some tool call. */
export function sentPlaceholder(sent: JsonObject): boolean {
  const messages = sent['messages'];
  if (!Array.isArray(messages)) return false;
  for (const message of messages) {
    const calls = isJsonObject(message) ? message['tool_calls'] : undefined;
    if (!Array.isArray(calls)) continue;
    for (const call of calls) {
      const extra = isJsonObject(call) ? call['extra_content'] : undefined;
      const google = isJsonObject(extra) ? extra['google'] : undefined;
      const signature = isJsonObject(google) ? google['thought_signature'] : undefined;
      if (signature === GEMINI_PLACEHOLDER_SIGNATURE || signature === GEMINI_PLACEHOLDER_SIGNATURE_ALTERNATE) {
        return true;
      }
    }
  }
  return false;
}
