import type { JsonObject, JsonValue } from '../../core/json.js';
import type { PreparedRequest } from './transport.js';

/**
 * The request body as the exact text sent: what `JSON.stringify(prepared.body)` gives, byte for
 * byte, with the JSON text of runs of stable wire values computed once and spliced in.
 *
 * Encoders hand back the same wire object for the same stored message while nothing that shapes
 * it changed (chat-completions-encode.ts keys it by the stored message, the route profile and the
 * learned state). Such an object is declared stable with {@link markStableWireValue}. A top-level
 * array of the body (the messages, the input items) is written in groups of
 * {@link SERIALIZED_GROUP_SIZE} elements: a group whose elements are all stable keeps its text,
 * and a later body holding the same objects at a group's positions reuses it. The elements after
 * the last full group (all of a short history's) each keep their own text instead. So a session
 * pays serialization for its new messages only. Groups rather than single elements where they
 * fill: one `JSON.stringify` of many elements writes one large string, where one call per
 * element costs about twice as much on a cold build (bench/replay-build).
 *
 * Every transport's `open` and `replay preview --json` call {@link serializeRequestBody}, so the
 * preview prints exactly the bytes sent.
 *
 * Rule: a stable wire value (and everything it holds, including the stored values it shares) is
 * never written to after it is marked; the stored history is immutable (TransportRequest.history).
 */

/** Elements per cached group of a top-level array. */
export const SERIALIZED_GROUP_SIZE = 64;

/** The text of one group: its elements' JSON joined by commas, and the elements it was written from. */
interface GroupText {
  readonly items: readonly JsonValue[];
  readonly text: string;
}

/** Stable values, with their own JSON text once a body past its full groups needed it (null before). */
const stableTexts = new WeakMap<object, string | null>();
/** Group texts, keyed by the group's first element. */
const groupTexts = new WeakMap<object, GroupText>();

/** Declares `value` immutable from now on, so its text and that of a group holding it may be reused. */
export function markStableWireValue(value: JsonObject): void {
  if (!stableTexts.has(value)) stableTexts.set(value, null);
}

/** The exact body text of `prepared`: equal to `JSON.stringify(prepared.body)`. */
export function serializeRequestBody(prepared: Pick<PreparedRequest, 'body'>): string {
  return serializeJsonBody(prepared.body);
}

/** `JSON.stringify(body)`, splicing in the cached text of stable groups of its top-level arrays. */
export function serializeJsonBody(body: JsonObject): string {
  // A body with nothing cached to splice is one call: it writes one flat string, where joining
  // the parts would leave a string the socket write has to flatten again.
  if (!hasReusableText(body)) return JSON.stringify(body);
  // The pieces are joined once, into one flat string (no concatenation tree to flatten).
  const pieces: string[] = ['{'];
  let first = true;
  for (const key of Object.keys(body)) {
    const value = body[key];
    const separator = first ? '' : ',';
    if (Array.isArray(value)) {
      pieces.push(`${separator}${JSON.stringify(key)}:`);
      writeArray(value, pieces);
    } else {
      const part = JSON.stringify(value);
      // As JSON.stringify: a key whose value has no JSON form (undefined) is left out.
      if (part === undefined) continue;
      pieces.push(`${separator}${JSON.stringify(key)}:${part}`);
    }
    first = false;
  }
  pieces.push('}');
  return pieces.join('');
}

/** Whether a top-level array of `body` has a full group or a stable element (else nothing is cached). */
function hasReusableText(body: JsonObject): boolean {
  for (const key in body) {
    const value = body[key];
    if (!Array.isArray(value)) continue;
    if (value.length >= SERIALIZED_GROUP_SIZE) return true;
    for (const item of value) if (isStable(item)) return true;
  }
  return false;
}

/** Appends the JSON of `items` to `pieces`: cached group texts, then the tail. */
function writeArray(items: readonly JsonValue[], pieces: string[]): void {
  const grouped = items.length - (items.length % SERIALIZED_GROUP_SIZE);
  pieces.push('[');
  for (let start = 0; start < grouped; start += SERIALIZED_GROUP_SIZE) {
    if (start > 0) pieces.push(',');
    pieces.push(groupText(items, start));
  }
  if (grouped < items.length) {
    if (grouped > 0) pieces.push(',');
    writeTail(items, grouped, pieces);
  }
  pieces.push(']');
}

/**
 * The elements from `start` on (fewer than a group): each stable element's own text, kept from the
 * last body that held it, so a short history pays serialization for its new messages only. One
 * call writes them all when none is stable.
 */
function writeTail(items: readonly JsonValue[], start: number, pieces: string[]): void {
  let anyStable = false;
  for (let index = start; index < items.length && !anyStable; index++) anyStable = isStable(items[index] as JsonValue);
  if (!anyStable) {
    pieces.push(elementsText(start === 0 ? items : items.slice(start)));
    return;
  }
  for (let index = start; index < items.length; index++) {
    if (index > start) pieces.push(',');
    pieces.push(elementText(items[index] as JsonValue));
  }
}

/** One element's JSON as `JSON.stringify` writes it inside an array (no JSON form → `null`). */
function elementText(item: JsonValue): string {
  if (typeof item !== 'object' || item === null) return JSON.stringify(item) ?? 'null';
  const cached = stableTexts.get(item);
  if (typeof cached === 'string') return cached;
  const text = JSON.stringify(item) ?? 'null';
  if (cached === null) stableTexts.set(item, text);
  return text;
}

/** The elements' JSON joined by commas: `JSON.stringify(items)` without its brackets (undefined → null, as there). */
function elementsText(items: readonly JsonValue[]): string {
  const text = JSON.stringify(items);
  return text.slice(1, -1);
}

function groupText(items: readonly JsonValue[], start: number): string {
  const first = items[start];
  const key = typeof first === 'object' && first !== null ? first : undefined;
  const cached = key === undefined ? undefined : groupTexts.get(key);
  if (cached !== undefined && sameElements(cached.items, items, start)) return cached.text;
  const group = items.slice(start, start + SERIALIZED_GROUP_SIZE);
  const text = elementsText(group);
  if (key !== undefined && group.every(isStable)) groupTexts.set(key, { items: group, text });
  return text;
}

function sameElements(group: readonly JsonValue[], items: readonly JsonValue[], start: number): boolean {
  for (let offset = 0; offset < group.length; offset++) if (group[offset] !== items[start + offset]) return false;
  return true;
}

function isStable(value: JsonValue): boolean {
  return typeof value === 'object' && value !== null && stableTexts.has(value);
}
