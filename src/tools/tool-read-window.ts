import type { FileHandle } from 'node:fs/promises';
import { encodingName, utf16ByteOrder, type FileEncoding } from './tool-file-text.js';
import { MAX_TOOL_OUTPUT } from './tool-limits.js';
import { throwIfAborted, ToolError } from './tool-types.js';

/** What one bounded read produced. */
export interface LineWindow {
  text: string;
  /** Last line number included (0 when none). */
  lastLine: number;
  /** True when the file goes on past what was returned. */
  more: boolean;
  /** True when the last included line was cut at the output cap. */
  cutLine: boolean;
  /** How the bytes read were decoded (`invalid-utf-8`: some were not UTF-8). */
  encoding: FileEncoding;
  /** For `invalid-utf-8`: the line where the first byte that is not UTF-8 was met. */
  invalidLine?: number;
}

/** Decodes a file's chunks in order: UTF-16 after its byte order mark, else UTF-8, noting bytes that are not. */
class ChunkDecoder {
  encoding: FileEncoding = 'utf-8';
  private decoder: InstanceType<typeof TextDecoder> | null = null;
  private readonly strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

  /** The text of `chunk`; `invalid` is called once, with the text before the first bad byte, if it holds one. */
  decode(chunk: Uint8Array, invalid: (textBefore: string) => void): string {
    if (this.decoder === null) {
      const utf16 = utf16ByteOrder(chunk);
      if (utf16) this.encoding = utf16;
      this.decoder = new TextDecoder(utf16 ?? 'utf-8', { ignoreBOM: true });
    }
    const text = this.decoder.decode(chunk, { stream: true });
    if (this.encoding === 'utf-8') {
      try {
        this.strict.decode(chunk, { stream: true });
      } catch {
        this.encoding = 'invalid-utf-8';
        const replaced = text.indexOf('\uFFFD');
        invalid(replaced === -1 ? text : text.slice(0, replaced));
      }
    }
    return text;
  }
}

/**
 * Reads lines `from`..`from + count - 1` (1-based) of an open file, keeping their exact line
 * endings, without reading past what is returned: a multi-gigabyte log costs what is shown, and
 * the read stops when `signal` fires. Every chunk read is checked for NUL (a binary file is
 * refused wherever its first NUL is, not only in its first chunk).
 */
export async function readLineWindow(
  handle: FileHandle,
  shown: string,
  window: { from: number; count: number },
  signal: AbortSignal | undefined,
): Promise<LineWindow> {
  // The signal is checked per chunk rather than given to the stream: a stream of a handle it does
  // not close keeps its abort listener, and an abort after the read would be an uncaught error.
  const stream = handle.createReadStream({ autoClose: false });
  const decoder = new ChunkDecoder();
  let line = 1;
  let text = '';
  let invalidLine: number | undefined;
  const last = window.from + window.count - 1;
  const result = (fields: Pick<LineWindow, 'text' | 'lastLine' | 'more' | 'cutLine'>): LineWindow => ({
    ...fields,
    encoding: decoder.encoding,
    ...(invalidLine === undefined ? {} : { invalidLine }),
  });
  try {
    for await (const bytes of stream as AsyncIterable<Buffer>) {
      throwIfAborted(signal);
      const chunk = decoder.decode(bytes, (before) => {
        invalidLine = line + (before.match(/\n/g)?.length ?? 0);
      });
      if (chunk.includes('\0')) throw new ToolError(`${shown} looks binary (it contains NUL bytes)`);
      let start = 0;
      while (start < chunk.length) {
        if (line > last) return result({ text, lastLine: last, more: true, cutLine: false });
        const newline = chunk.indexOf('\n', start);
        const end = newline === -1 ? chunk.length : newline + 1;
        if (line >= window.from) {
          text += chunk.slice(start, end);
          if (text.length > MAX_TOOL_OUTPUT) {
            return result({ text: text.slice(0, MAX_TOOL_OUTPUT), lastLine: line, more: true, cutLine: true });
          }
        }
        if (newline === -1) break;
        line += 1;
        start = end;
      }
    }
  } finally {
    stream.destroy();
  }
  const complete = text === '' || text.endsWith('\n') ? line - 1 : line;
  return result({ text, lastLine: Math.min(complete, last), more: false, cutLine: false });
}

/** The line `read_file` adds about a file that is not UTF-8, or '' for UTF-8. */
export function encodingNote(shown: string, window: LineWindow): string {
  if (window.encoding === 'invalid-utf-8') {
    return (
      `[${shown} is not valid UTF-8 (from line ${window.invalidLine ?? 1}: Latin-1 or another 8-bit encoding?); ` +
      'bytes that are not UTF-8 are shown as \uFFFD, and edit_file will not change this file]'
    );
  }
  if (window.encoding === 'utf-8') return '';
  return `[${shown} is ${encodingName(window.encoding)} (it starts with a byte order mark), not UTF-8: shown decoded; edit_file keeps that encoding]`;
}
