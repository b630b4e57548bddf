import type { JsonValue } from '../core/json.js';

/** UTF-8 byte length of a string, without allocating (decision records carry sizes, SPEC §23.3). */
export function utf8ByteLength(text: string): number {
  let bytes = text.length;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff)
      index += 1; // surrogate pair: 2 UTF-16 units = 4 bytes
    else bytes += 2;
  }
  return bytes;
}

/** UTF-8 bytes of every string inside a JSON value (keys excluded): the size of what a carrier carries. */
export function jsonStringBytes(value: JsonValue | undefined): number {
  if (typeof value === 'string') return utf8ByteLength(value);
  if (Array.isArray(value)) {
    let total = 0;
    for (const entry of value) total += jsonStringBytes(entry);
    return total;
  }
  if (value !== null && typeof value === 'object') {
    let total = 0;
    for (const key in value) total += jsonStringBytes(value[key]);
    return total;
  }
  return 0;
}
