import type { JsonObject, JsonValue } from '../../core/json.js';
import type { PreparedRequest } from './transport.js';
import { ByteWriter, type BodyWriter, type CachedText } from './request-body-chunks.js';

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
interface GroupText extends CachedText {
  readonly items: readonly JsonValue[];
}

/** Stable values, with their own JSON text once a body past its full groups needed it (null before). */
const stableTexts = new WeakMap<object, CachedText | null>();
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

/**
 * A request body as byte chunks to write in order. The chunks of cached texts are the bytes kept
 * from the request that first sent them: shared, never copied, never written to.
 */
export type RequestBodyChunks = readonly Uint8Array[];

/**
 * The exact body bytes of `prepared` as chunks: the UTF-8 of {@link serializeRequestBody}, cached
 * texts encoded once and passed on as their kept bytes, so a warm request neither builds the body
 * as a string nor copies what an earlier request already sent (one flat buffer of a long
 * history's body costs more than the rest of a warm build; bench/replay-build). The HTTP client
 * writes the chunks to the socket one after the other.
 */
export function serializeRequestBodyChunks(prepared: Pick<PreparedRequest, 'body'>): RequestBodyChunks {
  const { body } = prepared;
  if (!hasReusableText(body)) return [Buffer.from(JSON.stringify(body))];
  const writer = new ByteWriter();
  writeBody(body, writer);
  return writer.finish();
}

/** The exact body bytes of `prepared` in one buffer: {@link serializeRequestBodyChunks} joined. */
export function serializeRequestBodyBytes(prepared: Pick<PreparedRequest, 'body'>): Uint8Array {
  return joinBodyChunks(serializeRequestBodyChunks(prepared));
}

/** Whether an exchange's body is byte chunks (else a string or one buffer). */
export function isBodyChunks(body: string | Uint8Array | RequestBodyChunks | undefined): body is RequestBodyChunks {
  return Array.isArray(body);
}

/** The chunks in one buffer (the one chunk itself when there is one). */
export function joinBodyChunks(chunks: RequestBodyChunks): Uint8Array {
  return chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks);
}

/** `JSON.stringify(body)`, splicing in the cached text of stable groups of its top-level arrays. */
export function serializeJsonBody(body: JsonObject): string {
  // A body with nothing cached to splice is one call: it writes one flat string, where joining
  // the parts would leave a string the socket write has to flatten again.
  if (!hasReusableText(body)) return JSON.stringify(body);
  const writer = new TextWriter();
  writeBody(body, writer);
  return writer.finish();
}

/** Pieces joined once, into one flat string (no concatenation tree to flatten). */
class TextWriter implements BodyWriter {
  private readonly pieces: string[] = [];
  text(piece: string): void {
    this.pieces.push(piece);
  }
  cached(piece: CachedText, comma: boolean): void {
    if (comma) this.pieces.push(',');
    this.pieces.push(piece.text);
  }
  finish(): string {
    return this.pieces.join('');
  }
}

function writeBody(body: JsonObject, writer: BodyWriter): void {
  writer.text('{');
  let first = true;
  for (const key of Object.keys(body)) {
    const value = body[key];
    const separator = first ? '' : ',';
    if (Array.isArray(value)) {
      writer.text(`${separator}${JSON.stringify(key)}:`);
      writeArray(value, writer);
    } else {
      const part = JSON.stringify(value);
      // As JSON.stringify: a key whose value has no JSON form (undefined) is left out.
      if (part === undefined) continue;
      writer.text(`${separator}${JSON.stringify(key)}:${part}`);
    }
    first = false;
  }
  writer.text('}');
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

/** Writes the JSON of `items`: cached group texts, then the tail. */
function writeArray(items: readonly JsonValue[], writer: BodyWriter): void {
  const grouped = items.length - (items.length % SERIALIZED_GROUP_SIZE);
  writer.text('[');
  for (let start = 0; start < grouped; start += SERIALIZED_GROUP_SIZE) writeGroup(items, start, writer);
  if (grouped < items.length) writeTail(items, grouped, writer);
  writer.text(']');
}

/**
 * The elements from `start` on (fewer than a group): each stable element's own text, kept from the
 * last body that held it, so a short history pays serialization for its new messages only. One
 * call writes them all when none is stable.
 */
function writeTail(items: readonly JsonValue[], start: number, writer: BodyWriter): void {
  let anyStable = false;
  for (let index = start; index < items.length && !anyStable; index++) anyStable = isStable(items[index] as JsonValue);
  const comma = start > 0;
  if (!anyStable) {
    writer.text(`${comma ? ',' : ''}${elementsText(start === 0 ? items : items.slice(start))}`);
    return;
  }
  for (let index = start; index < items.length; index++) writeElement(items[index] as JsonValue, writer, index > 0);
}

/**
 * One element's JSON as `JSON.stringify` writes it inside an array (no JSON form → `null`),
 * after a comma when `comma`.
 */
function writeElement(item: JsonValue, writer: BodyWriter, comma: boolean): void {
  const cached = typeof item === 'object' && item !== null ? stableTexts.get(item) : undefined;
  if (cached === undefined) {
    writer.text(`${comma ? ',' : ''}${JSON.stringify(item) ?? 'null'}`);
    return;
  }
  if (cached !== null) {
    writer.cached(cached, comma);
    return;
  }
  const entry: CachedText = { text: JSON.stringify(item) ?? 'null', bytes: undefined, commaBytes: undefined };
  stableTexts.set(item as JsonObject, entry);
  writer.cached(entry, comma);
}

/** The elements' JSON joined by commas: `JSON.stringify(items)` without its brackets (undefined → null, as there). */
function elementsText(items: readonly JsonValue[]): string {
  const text = JSON.stringify(items);
  return text.slice(1, -1);
}

/** The group of elements from `start` on, after a comma unless it is the first. */
function writeGroup(items: readonly JsonValue[], start: number, writer: BodyWriter): void {
  const comma = start > 0;
  const first = items[start];
  const key = typeof first === 'object' && first !== null ? first : undefined;
  const cached = key === undefined ? undefined : groupTexts.get(key);
  if (cached !== undefined && sameElements(cached.items, items, start)) {
    writer.cached(cached, comma);
    return;
  }
  const group = items.slice(start, start + SERIALIZED_GROUP_SIZE);
  const text = elementsText(group);
  if (key !== undefined && group.every(isStable)) {
    const entry: GroupText = { items: group, text, bytes: undefined, commaBytes: undefined };
    groupTexts.set(key, entry);
    writer.cached(entry, comma);
    return;
  }
  writer.text(comma ? `,${text}` : text);
}

function sameElements(group: readonly JsonValue[], items: readonly JsonValue[], start: number): boolean {
  for (let offset = 0; offset < group.length; offset++) if (group[offset] !== items[start + offset]) return false;
  return true;
}

function isStable(value: JsonValue): boolean {
  return typeof value === 'object' && value !== null && stableTexts.has(value);
}
