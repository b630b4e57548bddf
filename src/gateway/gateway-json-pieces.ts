import { badRequest } from './gateway-errors.js';

/**
 * A large JSON request body parsed in pieces, from its bytes. Clients resend their whole
 * conversation as one top-level array (`messages`, `input`, `contents`), so a body is hundreds of
 * kilobytes late in a session. Decoding it into one string allocates that string outside V8's
 * young generation, on fresh pages each time, which costs several times what parsing does. Here
 * the bytes are scanned once (the same depth and value bounds as `checkJsonBounds`, at the same
 * positions), and each top-level member's key and value are parsed from their own bytes, each
 * element of a top-level array on its own: small strings, no copy of the whole.
 *
 * With the same client's previous body (a {@link PiecesMemory}), an element whose bytes are the
 * bytes of the element at the same position there is that element's value, not parsed again: a
 * client resends its whole conversation, and only its tail is new. Values kept for that are
 * frozen (deeply), so no reader of one request can change what the next one gets.
 *
 * The result is the value `JSON.parse` gives the whole text (members in order, a repeated key
 * keeping its first position and its last value). Anything this does not read as a plain
 * object of members (a body that is not an object, a `__proto__` key, text between the pieces
 * that is not a separator, a piece that does not parse) gives undefined: the caller parses the
 * whole text, which answers such bodies exactly as before.
 */

/** The character codes JSON's structure is made of (one byte each in UTF-8, never inside a character). */
export const JSON_CODES = {
  quote: 0x22,
  backslash: 0x5c,
  openBrace: 0x7b,
  openBracket: 0x5b,
  closeBrace: 0x7d,
  closeBracket: 0x5d,
  comma: 0x2c,
  colon: 0x3a,
} as const;

const {
  quote: QUOTE,
  backslash: BACKSLASH,
  openBrace: OPEN_BRACE,
  openBracket: OPEN_BRACKET,
  closeBrace: CLOSE_BRACE,
  closeBracket: CLOSE_BRACKET,
  comma: COMMA,
  colon: COLON,
} = JSON_CODES;

/** The 400 for a body nested past `maxDepth`. */
export function tooDeep(maxDepth: number): Error {
  return badRequest(
    `the request body nests deeper than ${maxDepth} levels of arrays and objects`,
    null,
    'json_too_deep',
  );
}

/** The 400 for a body of more than `maxValues` values. */
export function tooMany(maxValues: number): Error {
  return badRequest(`the request body holds more than ${maxValues} JSON values`, null, 'json_too_large');
}

/** One top-level member: where its key string and value lie, and its elements when the value is an array. */
interface Member {
  start: number;
  keyStart: number;
  keyEnd: number;
  arrayOpen: number;
  arrayClose: number;
  /** Commas between the array's elements. */
  commas: number[];
}

/** Where a body's top-level object and its members lie (null: not a plain object of members). */
interface Layout {
  open: number;
  close: number;
  members: Member[];
}

/**
 * Scans `bytes` for its depth and value count (throwing the 400 `checkJsonBounds` throws, at the
 * same point) and, on the way, for the top-level layout.
 */
export function scanJsonBytes(bytes: Buffer, bounds: { maxDepth: number; maxValues: number }): Layout | null {
  let depth = 0;
  let values = 1;
  let plain = true;
  let open = -1;
  let close = -1;
  const members: Member[] = [];
  let member: Member | null = null;
  const length = bytes.length;
  for (let index = 0; index < length; index += 1) {
    const code = bytes[index] as number;
    if (code === QUOTE) {
      const end = stringEnd(bytes, index);
      if (depth === 1 && member !== null && member.keyStart < 0) {
        member.keyStart = index;
        member.keyEnd = end + 1;
      } else if (depth === 0) plain = false;
      index = end;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth += 1;
      if (depth > bounds.maxDepth) throw tooDeep(bounds.maxDepth);
      if (depth === 1) {
        if (code !== OPEN_BRACE || open >= 0) plain = false;
        open = index;
        member = newMember(index + 1);
        members.push(member);
      } else if (depth === 2 && code === OPEN_BRACKET && member !== null) {
        if (member.arrayOpen < 0) member.arrayOpen = index;
        else plain = false;
      }
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      if (depth === 1) {
        if (code !== CLOSE_BRACE) plain = false;
        close = index;
        member = null;
      } else if (depth === 2 && member !== null) {
        if (code === CLOSE_BRACKET && member.arrayOpen >= 0 && member.arrayClose < 0) member.arrayClose = index;
        else if (member.arrayOpen >= 0) plain = false;
      }
      depth -= 1;
    } else if (code === COMMA) {
      values += 1;
      if (values > bounds.maxValues) throw tooMany(bounds.maxValues);
      if (depth === 1 && member !== null) {
        member = newMember(index + 1);
        members.push(member);
      } else if (depth === 2 && member !== null && member.arrayOpen >= 0 && member.arrayClose < 0) {
        member.commas.push(index);
      }
    }
  }
  if (!plain || depth !== 0 || open < 0 || close < open) return null;
  return { open, close, members };
}

function newMember(start: number): Member {
  return { start, keyStart: -1, keyEnd: -1, arrayOpen: -1, arrayClose: -1, commas: [] };
}

/** The position of the quote closing the string opened at `open` (`bytes.length` when none). */
function stringEnd(bytes: Buffer, open: number): number {
  for (let quote = bytes.indexOf(QUOTE, open + 1); quote !== -1; quote = bytes.indexOf(QUOTE, quote + 1)) {
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
  }
  return bytes.length;
}

/** A parsed body's top-level arrays, element by element, for the same client's next body. */
export interface PiecesMemory {
  bytes: Buffer;
  arrays: Map<string, ParsedElements>;
}

interface ParsedElements {
  /** Each element's bytes: [start, end) in `bytes`. */
  ranges: number[];
  values: unknown[];
}

/**
 * The value of a body laid out by {@link scanJsonBytes}, parsed piece by piece (elements equal to
 * `previous`'s reused), and the memory of it when `remember`; undefined when a piece does not read.
 */
export function parseJsonPieces(
  bytes: Buffer,
  layout: Layout,
  previous?: PiecesMemory,
  remember?: (memory: PiecesMemory) => void,
): unknown {
  const arrays = new Map<string, ParsedElements>();
  if (!blank(bytes, 0, layout.open) || !blank(bytes, layout.close + 1, bytes.length)) return undefined;
  const result: Record<string, unknown> = {};
  const { members } = layout;
  // `{}`: one member, empty.
  if (members.length === 1 && blank(bytes, (members[0] as Member).start, layout.close)) return result;
  try {
    for (let index = 0; index < members.length; index += 1) {
      const member = members[index] as Member;
      const end = index + 1 < members.length ? (members[index + 1] as Member).start - 1 : layout.close;
      if (member.keyStart < 0 || !blank(bytes, member.start, member.keyStart)) return undefined;
      const colon = nextNonBlank(bytes, member.keyEnd, end);
      if (bytes[colon] !== COLON) return undefined;
      const key = JSON.parse(bytes.toString('utf8', member.keyStart, member.keyEnd)) as string;
      if (key === '__proto__') return undefined;
      const valueStart = nextNonBlank(bytes, colon + 1, end);
      if (valueStart >= end) return undefined;
      if (member.arrayOpen === valueStart) {
        const elements = remember ? previous?.arrays.get(key) : undefined;
        const before = previous && elements ? { memory: previous, elements } : undefined;
        const parsed = arrayValue(bytes, member, end, before, remember !== undefined);
        result[key] = parsed.values;
        arrays.set(key, parsed);
      } else {
        result[key] = JSON.parse(bytes.toString('utf8', valueStart, end));
      }
    }
  } catch {
    return undefined;
  }
  remember?.({ bytes, arrays });
  return result;
}

/**
 * A top-level array, each element parsed from its own bytes or taken from `previous` when its
 * bytes are the same there (throws when one does not parse). `keep`: the values are frozen.
 */
function arrayValue(
  bytes: Buffer,
  member: Member,
  end: number,
  previous: { memory: PiecesMemory; elements: ParsedElements } | undefined,
  keep: boolean,
): ParsedElements {
  if (member.arrayClose < 0 || !blank(bytes, member.arrayClose + 1, end)) throw new SyntaxError('not an array');
  const parsed: ParsedElements = { ranges: [], values: [] };
  if (member.commas.length === 0 && blank(bytes, member.arrayOpen + 1, member.arrayClose)) return parsed;
  let start = member.arrayOpen + 1;
  for (const comma of [...member.commas, member.arrayClose]) {
    const index = parsed.values.length;
    const same = previous !== undefined && sameBytes(bytes, start, comma, previous, index);
    const value = same
      ? (previous as { elements: ParsedElements }).elements.values[index]
      : JSON.parse(bytes.toString('utf8', start, comma));
    parsed.values.push(keep && !same ? deepFreeze(value) : value);
    parsed.ranges.push(start, comma);
    start = comma + 1;
  }
  return parsed;
}

/** Whether bytes [start, end) are those of element `index` of the previous body. */
function sameBytes(
  bytes: Buffer,
  start: number,
  end: number,
  previous: { memory: PiecesMemory; elements: ParsedElements },
  index: number,
): boolean {
  const { ranges } = previous.elements;
  if (2 * index + 1 >= ranges.length) return false;
  const from = ranges[2 * index] as number;
  const to = ranges[2 * index + 1] as number;
  return to - from === end - start && bytes.compare(previous.memory.bytes, from, to, start, end) === 0;
}

/** `value`, every object and array in it frozen. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}

/** JSON whitespace: space, tab, line feed, carriage return. */
function isBlank(code: number | undefined): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

function blank(bytes: Buffer, from: number, to: number): boolean {
  for (let index = from; index < to; index += 1) if (!isBlank(bytes[index])) return false;
  return true;
}

function nextNonBlank(bytes: Buffer, from: number, to: number): number {
  let index = from;
  while (index < to && isBlank(bytes[index])) index += 1;
  return index;
}
