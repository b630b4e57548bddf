import { badRequest, GatewayHttpError } from './gateway-errors.js';
import {
  JSON_CODES,
  parseJsonPieces,
  scanJsonBytes,
  tooDeep,
  tooMany,
  type PiecesMemory,
} from './gateway-json-pieces.js';
import type { ChatRequestSource } from './gateway-request-source.js';

/**
 * Reading a JSON request body within bounds, for every route that takes one. The size is
 * bounded while the body is read (reading stops at the cap: 413), and the nesting depth and the
 * number of values are bounded by a scan of the text BEFORE `JSON.parse` builds anything: a
 * 16 MiB body of `[[[[…]]]]` parses into eight million nested arrays (over a gigabyte), and one
 * of `[{},{},…]` into five million objects, while a real request nests a dozen levels and holds
 * thousands of values. A body past a bound is a 400 naming it, never a parse that takes the
 * process's memory.
 */

/** The bounds of one JSON body. */
export interface JsonBodyBounds {
  /** Largest body read, in bytes (413 past it). */
  maxBytes: number;
  /** Deepest nesting of arrays and objects. */
  maxDepth: number;
  /** Most values (array elements and object members, nested ones included). */
  maxValues: number;
}

/** Bounds for request bodies: clients resend whole conversations, so the size is generous. */
export const DEFAULT_JSON_BODY_BOUNDS: JsonBodyBounds = {
  maxBytes: 16 * 1024 * 1024,
  maxDepth: 64,
  maxValues: 1_000_000,
};

/**
 * Scans JSON text for its nesting depth and value count without building anything, and throws
 * a 400 when either is past `bounds`. Malformed text is left to `JSON.parse` (it only has to be
 * bounded here): strings are skipped with their escapes, so brackets inside them do not count.
 */
export function checkJsonBounds(text: string, bounds: Pick<JsonBodyBounds, 'maxDepth' | 'maxValues'>): void {
  let depth = 0;
  let values = 1;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === JSON_CODES.quote) {
      index = stringEnd(text, index);
    } else if (code === JSON_CODES.openBrace || code === JSON_CODES.openBracket) {
      depth += 1;
      if (depth > bounds.maxDepth) throw tooDeep(bounds.maxDepth);
    } else if (code === JSON_CODES.closeBrace || code === JSON_CODES.closeBracket) {
      depth -= 1;
    } else if (code === JSON_CODES.comma) {
      values += 1;
      if (values > bounds.maxValues) throw tooMany(bounds.maxValues);
    }
  }
}

/**
 * The position of the quote closing the string opened at `open` (`text.length` when none): the
 * next quote preceded by an even run of backslashes. Found with `indexOf`, so the bytes of a long
 * string (text, signatures) are skipped natively rather than one by one.
 */
function stringEnd(text: string, open: number): number {
  for (let quote = text.indexOf('"', open + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === JSON_CODES.backslash) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
  }
  return text.length;
}

/** `text` parsed after {@link checkJsonBounds}; a 400 `invalid_json` when it does not parse. */
export function parseBoundedJson(text: string, bounds: JsonBodyBounds = DEFAULT_JSON_BODY_BOUNDS): unknown {
  checkJsonBounds(text, bounds);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw badRequest('the request body is not valid JSON', null, 'invalid_json');
  }
}

/** Bodies from this size on are parsed in pieces (gateway-json-pieces.ts). */
export const PIECES_FROM_BYTES = 64 * 1024;

/**
 * {@link parseBoundedJson} from the body's bytes: the same value and the same errors. A large
 * body is parsed in pieces, without decoding it into one string (gateway-json-pieces.ts).
 */
export function parseBoundedJsonBytes(
  bytes: Buffer,
  bounds: JsonBodyBounds = DEFAULT_JSON_BODY_BOUNDS,
  memory?: { previous: PiecesMemory | undefined; remember: (memory: PiecesMemory) => void },
): unknown {
  if (bytes.byteLength < PIECES_FROM_BYTES) return parseBoundedJson(bytes.toString('utf8'), bounds);
  const layout = scanJsonBytes(bytes, bounds);
  const value = layout ? parseJsonPieces(bytes, layout, memory?.previous, memory?.remember) : undefined;
  if (value !== undefined) return value;
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    throw badRequest('the request body is not valid JSON', null, 'invalid_json');
  }
}

/**
 * Reads and parses a request's JSON body within `bounds`: 413 past `maxBytes` (reading stops
 * there), 400 past the depth or value bound (before parsing), 400 for text that is not JSON.
 * `empty` is what an empty body means (undefined: an empty body is not JSON, 400).
 */
export async function readJsonBody(
  source: Pick<ChatRequestSource, 'bytes'>,
  options: { bounds?: JsonBodyBounds; empty?: unknown } = {},
): Promise<unknown> {
  const bounds = options.bounds ?? DEFAULT_JSON_BODY_BOUNDS;
  const bytes = await source.bytes(bounds.maxBytes);
  if (bytes === null) {
    throw new GatewayHttpError(
      413,
      `the request body is larger than ${formatBytes(bounds.maxBytes)}; send only the new user message`,
      'invalid_request_error',
      'request_too_large',
    );
  }
  if (options.empty !== undefined && blankBody(bytes)) return options.empty;
  return parseBoundedJsonBytes(bytes, bounds);
}

function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MiB` : `${bytes} bytes`;
}

/** Whether the body is empty or only whitespace, as `String.prototype.trim` reads it. */
function blankBody(bytes: Buffer): boolean {
  for (const code of bytes) {
    if (code === 0x20 || (code >= 0x09 && code <= 0x0d)) continue;
    // Other whitespace `trim` removes (U+00A0, U+FEFF, …) is not ASCII: read it as text.
    return code < 0x80 ? false : bytes.toString('utf8').trim() === '';
  }
  return true;
}
