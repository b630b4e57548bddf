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
 * Streams answer text as markdown: complete blocks (ended by a blank line outside a code fence)
 * are rendered as soon as they arrive, the rest when the message ends. Rendered output is written
 * to `out`; nothing is held back after `end`.
 */
export function markdownStream(out: NodeJS.WriteStream, width: number): MarkdownStream {
  const colour = useColor(out);
  let pending = '';
  const flush = (text: string) => {
    if (!text.trim()) return;
    out.write(renderMarkdown(labelFences(text), width, colour).replace(/\n+$/, '\n\n'));
  };
  return {
    write(text) {
      pending += text;
      const boundary = completeBlocksEnd(pending);
      if (boundary > 0) {
        flush(pending.slice(0, boundary));
        pending = pending.slice(boundary);
      }
    },
    end() {
      flush(pending);
      pending = '';
    },
  };
}

/** The end of the last blank-line boundary that lies outside a fenced code block, or 0. */
function completeBlocksEnd(text: string): number {
  let end = 0;
  let inFence = false;
  let offset = 0;
  for (const line of text.split('\n')) {
    const lineEnd = offset + line.length + 1;
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    else if (!inFence && line.trim() === '' && lineEnd <= text.length && offset > 0) end = lineEnd;
    offset = lineEnd;
  }
  return end;
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
