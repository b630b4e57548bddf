import { ToolError } from './tool-types.js';

/**
 * The text encodings the file tools tell apart. A file is read as UTF-8 unless it starts with a
 * UTF-16 byte order mark; bytes that are not valid UTF-8 (a Latin-1 `é` is the single byte
 * `e9`) make it `invalid-utf-8`: shown with U+FFFD in their place and said so, never rewritten
 * by an edit (an edit re-encodes the whole file, which would turn each such byte into the three
 * bytes `ef bf bd` of U+FFFD).
 */
export type FileEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'invalid-utf-8';

/** A file's bytes read as text. */
export interface FileText {
  text: string;
  encoding: FileEncoding;
  /** For `invalid-utf-8`: the 1-based line of the first byte that is not UTF-8. */
  firstInvalidLine?: number;
}

/** The UTF-16 encoding a byte order mark at the start of `bytes` names, if any. */
export function utf16ByteOrder(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | null {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return null;
}

/** Decodes a whole file; a byte order mark is kept as U+FEFF, so {@link encodeFileText} gives it back. */
export function decodeFileText(bytes: Uint8Array): FileText {
  const utf16 = utf16ByteOrder(bytes);
  if (utf16) return { text: new TextDecoder(utf16, { ignoreBOM: true }).decode(bytes), encoding: utf16 };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes), encoding: 'utf-8' };
  } catch {
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
    return { text, encoding: 'invalid-utf-8', firstInvalidLine: firstInvalidLine(bytes) };
  }
}

/** The bytes of `text` in `encoding` (`invalid-utf-8` has no encoder: such files are never re-encoded). */
export function encodeFileText(text: string, encoding: Exclude<FileEncoding, 'invalid-utf-8'>): Buffer {
  if (encoding === 'utf-8') return Buffer.from(text, 'utf8');
  const little = Buffer.from(text, 'utf16le');
  return encoding === 'utf-16le' ? little : little.swap16();
}

/** The 1-based line of the first byte sequence that is not UTF-8 (RFC 3629 §4). */
function firstInvalidLine(bytes: Uint8Array): number {
  const offset = firstInvalidOffset(bytes);
  let line = 1;
  for (let index = 0; index < offset; index += 1) if (bytes[index] === 0x0a) line += 1;
  return line;
}

/** Offset of the first byte that does not start a well-formed UTF-8 sequence, or the length. */
function firstInvalidOffset(bytes: Uint8Array): number {
  let index = 0;
  while (index < bytes.length) {
    const lead = bytes[index] as number;
    if (lead < 0x80) {
      index += 1;
      continue;
    }
    const length =
      lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
    if (length === 0) return index;
    const second = bytes[index + 1] ?? 0;
    // Overlong forms, surrogates and code points past U+10FFFF (the RFC's table of valid second bytes).
    const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
    if (second < low || second > high) return index;
    for (let next = 2; next < length; next += 1) {
      if (((bytes[index + next] ?? 0) & 0xc0) !== 0x80) return index;
    }
    index += length;
  }
  return bytes.length;
}

/** How a file's encoding is named in messages. */
export function encodingName(encoding: FileEncoding): string {
  if (encoding === 'utf-16le') return 'UTF-16LE';
  if (encoding === 'utf-16be') return 'UTF-16BE';
  return 'UTF-8';
}

/**
 * The text of a file an edit may rewrite: UTF-8, or UTF-16 with a byte order mark whose text
 * encodes back to exactly the same bytes. Anything else is refused with the reason, so an edit
 * never reports success after changing bytes it did not touch.
 */
export function editableText(
  bytes: Uint8Array,
  shown: string,
): FileText & { encoding: Exclude<FileEncoding, 'invalid-utf-8'> } {
  const decoded = decodeFileText(bytes);
  if (decoded.encoding === 'invalid-utf-8') {
    throw new ToolError(
      `${shown} is not valid UTF-8 (line ${decoded.firstInvalidLine ?? 1} holds a byte that is not, e.g. Latin-1 "é" ` +
        'is the single byte e9); edit_file rewrites a whole file as text and would change bytes it does not touch, ' +
        'so it is not edited. Convert it to UTF-8 first (run_shell: iconv -f latin1 -t utf-8), or replace it whole ' +
        'with write_file',
    );
  }
  if (decoded.text.includes('\0')) throw new ToolError(`${shown} looks binary (it contains NUL bytes); not edited`);
  if (decoded.encoding !== 'utf-8' && !encodeFileText(decoded.text, decoded.encoding).equals(bytes)) {
    throw new ToolError(
      `${shown} is ${encodingName(decoded.encoding)} but not well-formed (an odd byte count or an unpaired ` +
        'surrogate); an edit would change bytes it does not touch, so it is not edited',
    );
  }
  return decoded as FileText & { encoding: Exclude<FileEncoding, 'invalid-utf-8'> };
}
