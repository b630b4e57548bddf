import { stripVTControlCharacters } from 'node:util';
import chalk from 'chalk';
import { Marked, type MarkedExtension } from 'marked';
import { markedTerminal } from 'marked-terminal';
import { useColor } from './cli-output.js';

/** A streaming markdown writer: `write` text deltas, `end` when the message is complete. */
export interface MarkdownStream {
  write(text: string): void;
  end(): void;
}

let terminalMarked: Marked | null = null;

/**
 * A tight list item's text is a block-level `text` token whose inline tokens (`**bold**`,
 * `*emphasis*`, code spans) marked >= 13 hands to the renderer unparsed; marked-terminal prints
 * its raw text, asterisks and all. Rendering its inline tokens, as marked's own renderer does,
 * styles them; any other text falls back to marked-terminal (`false`).
 */
const LIST_ITEM_FIXES: MarkedExtension = {
  renderer: {
    text(token) {
      return 'tokens' in token && token.tokens?.length ? this.parser.parseInline(token.tokens) : false;
    },
    // marked >= 13 also gives a task item a `checkbox` token; marked-terminal already writes the
    // box itself, so the token renders as nothing rather than a second `[ ]`.
    checkbox: () => '',
  },
};

/**
 * Renders markdown for a terminal with marked + marked-terminal (headings, emphasis, lists, code),
 * styled when `colour` is true. Whether to style is the caller's decision (`useColor`: a TTY,
 * no NO_COLOR, TERM not dumb); chalk's own detection would also turn it off whenever a CI variable
 * is set, so its level follows that decision instead.
 */
export function renderMarkdown(text: string, width: number, colour = true): string {
  chalk.level = colour ? (Math.max(chalk.level, 1) as typeof chalk.level) : 0;
  terminalMarked ??= new Marked(markedTerminal({ width, reflowText: false, tab: 2 }), LIST_ITEM_FIXES);
  return terminalMarked.parse(text, { async: false });
}

/**
 * Streams answer text as markdown on a terminal. Text shows as it arrives, raw, in a live region
 * below what is already settled; when a block completes (a blank line outside a code fence) the
 * live region is erased and the block written rendered, so markdown settles per block and the
 * reader never waits for a paragraph to end to see it being written. A live block taller than the
 * screen cannot be erased (its top scrolled away): it stays as it was written, unrendered.
 * `end` settles whatever is left; nothing is held back after it.
 */
export function markdownStream(out: NodeJS.WriteStream, width: number): MarkdownStream {
  const colour = useColor(out);
  const columns = () => Math.max(1, out.columns || width);
  let pending = '';
  const boundaries = new BlockBoundaries();
  /** The raw text of `pending` currently on screen (the live region, from column 0). */
  let shown = '';
  const render = (text: string) => {
    if (!text.trim()) return;
    out.write(renderMarkdown(labelFences(text), width, colour).replace(/\n+$/, '\n\n'));
  };
  /** Replaces the live region by the rendered `text`; false when the region cannot be erased. */
  const settle = (text: string): boolean => {
    const rows = rowsOf(shown, columns());
    if (shown !== '' && rows > Math.max(1, (out.rows || 24) - 1)) return false;
    // Back to the region's first column (carriage return, cursor up), then clear to the end of the screen.
    if (shown !== '') out.write(`\r${rows > 1 ? `\x1b[${rows - 1}A` : ''}\x1b[J`);
    shown = '';
    render(text);
    return true;
  };
  return {
    write(text) {
      pending += text;
      const boundary = boundaries.find(pending);
      if (boundary === 0) {
        out.write(text);
        shown += text;
        return;
      }
      const block = pending.slice(0, boundary);
      pending = pending.slice(boundary);
      boundaries.consume();
      if (!settle(block)) {
        // Left as written: finish the block raw and start the next live region below it.
        const rest = block.slice(shown.length);
        out.write(rest.endsWith('\n') ? rest : `${rest}\n`);
        shown = '';
      }
      if (pending !== '') {
        out.write(pending);
        shown = pending;
      }
    },
    end() {
      if (!settle(pending) && !shown.endsWith('\n')) out.write('\n\n');
      pending = '';
      shown = '';
      boundaries.reset();
    },
  };
}

/** East Asian wide and emoji code points take two terminal columns; combining marks none. */
function columnsOf(codePoint: number): number {
  if ((codePoint >= 0x300 && codePoint <= 0x36f) || (codePoint >= 0x200b && codePoint <= 0x200f)) return 0;
  if (codePoint >= 0xfe00 && codePoint <= 0xfe0f) return 0;
  const wide =
    (codePoint >= 0x1100 && codePoint <= 0x115f) ||
    (codePoint >= 0x2e80 && codePoint <= 0xa4cf) ||
    (codePoint >= 0xac00 && codePoint <= 0xd7a3) ||
    (codePoint >= 0xf900 && codePoint <= 0xfaff) ||
    (codePoint >= 0xfe30 && codePoint <= 0xfe4f) ||
    (codePoint >= 0xff00 && codePoint <= 0xff60) ||
    (codePoint >= 0xffe0 && codePoint <= 0xffe6) ||
    (codePoint >= 0x1f300 && codePoint <= 0x1faff) ||
    (codePoint >= 0x20000 && codePoint <= 0x3fffd);
  return wide ? 2 : 1;
}

/**
 * The terminal rows `text`, written from column 0 on a `columns`-wide screen, spans (the cursor
 * ends on the last one): each line wraps every `columns` cells, tabs advance to the next stop of 8.
 */
export function rowsOf(text: string, columns: number): number {
  let rows = 1;
  let column = 0;
  for (const character of stripVTControlCharacters(text)) {
    if (character === '\n') {
      rows += 1;
      column = 0;
      continue;
    }
    const cells = character === '\t' ? 8 - (column % 8) : columnsOf(character.codePointAt(0) ?? 0);
    // A character that does not fit wraps first; filling the last column leaves the cursor there.
    if (column + cells > columns) {
      rows += 1;
      column = 0;
    }
    column += cells;
  }
  return rows;
}

/**
 * Finds where complete markdown blocks end in streamed text: the end of the last blank line
 * outside a fenced code block. Incremental: each complete line is read once, however many
 * deltas a long block arrives in (a 300 KB answer streamed word by word stays linear).
 */
class BlockBoundaries {
  /** Offset of the first line not read yet. */
  private scanned = 0;
  private inFence = false;
  private boundary = 0;

  /** The last boundary in `text` (the text so far, from the start of the unsettled part), or 0. */
  find(text: string): number {
    let lineStart = this.scanned;
    for (let newline = text.indexOf('\n', lineStart); newline !== -1; newline = text.indexOf('\n', lineStart)) {
      const line = text.slice(lineStart, newline);
      if (/^\s*(```|~~~)/.test(line)) this.inFence = !this.inFence;
      else if (!this.inFence && lineStart > 0 && line.trim() === '') this.boundary = newline + 1;
      lineStart = newline + 1;
    }
    this.scanned = lineStart;
    return this.boundary;
  }

  /** The text before the boundary was settled: offsets now count from the boundary. */
  consume(): void {
    this.scanned -= this.boundary;
    this.boundary = 0;
  }

  /** A new message starts. */
  reset(): void {
    this.scanned = 0;
    this.inFence = false;
    this.boundary = 0;
  }
}

/** Puts the language of each fenced block on a line above it (`── ts ──`). */
function labelFences(text: string): string {
  return text.replace(
    /^([ \t]*)(```|~~~)([\w+#.-]+)[^\n]*\n/gm,
    (fence, indent: string, mark: string, lang: string) => {
      return `${indent}*${lang}*\n\n${fence}`;
    },
  );
}
