import type { JsonObject, JsonValue } from '../../core/json.js';
import type { PreparedRequest } from './transport.js';

/**
 * The request body as the exact text sent: what `JSON.stringify(prepared.body)` gives, byte for
 * byte, with the JSON text of every stable wire value computed once and spliced in.
 *
 * Encoders hand back the same wire object for the same stored message while nothing that shapes
 * it changed (chat-completions-encode.ts keys it by the stored message, the route profile and the
 * learned state). Such an object is declared stable with {@link markStableWireValue}: its JSON
 * text is computed on first use and reused by every later body that holds it, so a long session
 * pays serialization for new messages only. Every transport's `open` and `replay preview --json`
 * call {@link serializeRequestBody}, so the preview prints exactly the bytes sent.
 *
 * Rule: a stable wire value (and everything it holds, including the stored values it shares) is
 * never written to after it is marked; the stored history is immutable (TransportRequest.history).
 */

/** JSON text of stable wire values; '' marks a stable value not yet serialized. */
const fragments = new WeakMap<object, string>();

/**
 * Declares `value` immutable from now on, so its JSON text may be computed once and spliced into
 * every request body that holds it as an element of a top-level array.
 */
export function markStableWireValue(value: JsonObject): void {
  if (!fragments.has(value)) fragments.set(value, '');
}

/** The exact body text of `prepared`: equal to `JSON.stringify(prepared.body)`. */
export function serializeRequestBody(prepared: Pick<PreparedRequest, 'body'>): string {
  return serializeJsonBody(prepared.body);
}

/** `JSON.stringify(body)`, splicing in the cached text of stable elements of its top-level arrays. */
export function serializeJsonBody(body: JsonObject): string {
  let text = '{';
  let first = true;
  for (const key of Object.keys(body)) {
    const value = body[key];
    const part = Array.isArray(value) ? serializeArray(value) : JSON.stringify(value);
    // As JSON.stringify: a key whose value has no JSON form (undefined) is left out.
    if (part === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(key)}:${part}`;
    first = false;
  }
  return `${text}}`;
}

function serializeArray(items: readonly JsonValue[]): string {
  let text = '[';
  for (let index = 0; index < items.length; index++) {
    if (index > 0) text += ',';
    const item = items[index];
    let fragment = typeof item === 'object' && item !== null ? fragments.get(item) : undefined;
    if (fragment === undefined) {
      // As JSON.stringify: an element with no JSON form (undefined) is written as null.
      fragment = (JSON.stringify(item) as string | undefined) ?? 'null';
    } else if (fragment === '') {
      fragment = JSON.stringify(item);
      fragments.set(item as object, fragment);
    }
    text += fragment;
  }
  return `${text}]`;
}
