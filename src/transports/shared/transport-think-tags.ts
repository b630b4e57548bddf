/**
 * Splits model text into visible text and `<think>…</think>` reasoning, incrementally.
 * Reasoning models served raw (Groq `reasoning_format: "raw"`, the Hugging Face router,
 * llama.cpp without a reasoning parser) put their thinking inline in `content`; SPEC §2.1 keeps
 * it out of the visible text and uses it as reasoning when no reasoning field exists. Tags can
 * be split across stream chunks (`<thi` + `nk>`), so a possible tag prefix at the end of a
 * piece is held back until the next piece decides it.
 */

/** One piece of split output. */
export interface ThinkTagPiece {
  kind: 'text' | 'think';
  text: string;
}

const OPEN_TAGS = ['<think>', '<thinking>'];
const CLOSE_TAGS = ['</think>', '</thinking>'];

function earliestTag(buffer: string, tags: readonly string[]): { at: number; tag: string } | undefined {
  let best: { at: number; tag: string } | undefined;
  for (const tag of tags) {
    const at = buffer.indexOf(tag);
    if (at >= 0 && (best === undefined || at < best.at)) best = { at, tag };
  }
  return best;
}

/** Length of the longest suffix of `buffer` that is a proper prefix of one of `tags`. */
function heldSuffixLength(buffer: string, tags: readonly string[]): number {
  const from = buffer.lastIndexOf('<');
  if (from < 0) return 0;
  const suffix = buffer.slice(from);
  return tags.some((tag) => tag.length > suffix.length && tag.startsWith(suffix)) ? suffix.length : 0;
}

/** Incremental think-tag splitter. Feed text pieces in order, then call `end()`. */
export class ThinkTagSplitter {
  private buffer = '';
  private inThink = false;
  /** After a closing tag the blank lines separating thinking from the answer are not visible text. */
  private trimNextText = false;

  /** Splits one piece; returns the pieces it could decide. */
  push(text: string): ThinkTagPiece[] {
    // Fast path: nothing pending and no tag can start in this piece.
    if (this.buffer === '' && !this.inThink && !text.includes('<')) return this.emit([], 'text', text);
    this.buffer += text;
    const pieces: ThinkTagPiece[] = [];
    for (;;) {
      const tags = this.inThink ? CLOSE_TAGS : OPEN_TAGS;
      const found = earliestTag(this.buffer, tags);
      if (found === undefined) {
        const held = heldSuffixLength(this.buffer, tags);
        const decided = this.buffer.slice(0, this.buffer.length - held);
        this.buffer = this.buffer.slice(this.buffer.length - held);
        this.emit(pieces, this.inThink ? 'think' : 'text', decided);
        return pieces;
      }
      this.emit(pieces, this.inThink ? 'think' : 'text', this.buffer.slice(0, found.at));
      this.buffer = this.buffer.slice(found.at + found.tag.length);
      if (this.inThink) this.trimNextText = true;
      this.inThink = !this.inThink;
    }
  }

  /** Flushes held text at the end of the stream (an unclosed `<think>` stays reasoning). */
  end(): ThinkTagPiece[] {
    const pieces: ThinkTagPiece[] = [];
    this.emit(pieces, this.inThink ? 'think' : 'text', this.buffer);
    this.buffer = '';
    return pieces;
  }

  private emit(pieces: ThinkTagPiece[], kind: ThinkTagPiece['kind'], text: string): ThinkTagPiece[] {
    let value = text;
    if (kind === 'text' && this.trimNextText) {
      value = value.trimStart();
      if (value !== '') this.trimNextText = false;
    }
    if (value === '') return pieces;
    const last = pieces[pieces.length - 1];
    if (last !== undefined && last.kind === kind) last.text += value;
    else pieces.push({ kind, text: value });
    return pieces;
  }
}
