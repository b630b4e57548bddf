import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { markdownStream, rowsOf } from '../../src/cli/chat-markdown.js';

/** A terminal stand-in that records what was written (80 × 24, colour off). */
function terminal(columns = 80, rows = 24): NodeJS.WriteStream & { text: string } {
  const sink = {
    text: '',
    isTTY: true,
    columns,
    rows,
    write(chunk: string) {
      sink.text += chunk;
      return true;
    },
  };
  return sink as unknown as NodeJS.WriteStream & { text: string };
}

describe('streamed markdown on a terminal: tokens as they arrive, settled per block', () => {
  it('shows each token at once, then replaces the finished block by its rendering', () => {
    const out = terminal();
    const stream = markdownStream(out, 80);
    stream.write('Hello **wor');
    // Before the paragraph ends the reader already sees it being written.
    expect(out.text).toBe('Hello **wor');
    stream.write('ld**');
    expect(out.text).toBe('Hello **world**');
    stream.write('\n\nNext');
    // The live line is erased (carriage return, clear to the end of the screen) and the block
    // written rendered; the start of the next block shows raw below it.
    const settled = out.text.slice('Hello **world**'.length);
    expect(settled.startsWith('\r\x1b[J')).toBe(true);
    expect(stripVTControlCharacters(settled)).toMatch(/^\rHello world\n\nNext$/);
    stream.end();
    expect(stripVTControlCharacters(out.text).endsWith('Next\rNext\n\n')).toBe(true);
  });

  it('erases every row a wrapped or multi-line live block took', () => {
    const out = terminal(10);
    const stream = markdownStream(out, 10);
    stream.write('- one\n- two words here');
    stream.write('\n\n');
    // "- one" is one row, "- two words here" (16 cells) two: the cursor goes up 2 rows.
    expect(out.text).toContain('\r\x1b[2A\x1b[J');
  });

  it('leaves a live block taller than the screen as written (its top scrolled away)', () => {
    const out = terminal(80, 5);
    const stream = markdownStream(out, 80);
    const tall = Array.from({ length: 8 }, (_, index) => `line ${index}`).join('\n');
    stream.write(tall);
    stream.write('\n\n');
    expect(out.text).not.toContain('\x1b[J');
    expect(out.text).toBe(`${tall}\n\n`);
  });

  it.each([
    ['', 1],
    ['abc', 1],
    ['0123456789', 1],
    ['0123456789a', 2],
    ['a\nb\n', 3],
    ['界界界界界', 1],
    ['界界界界界界', 2],
    ['\tx', 1],
  ])('rowsOf(%j) on 10 columns is %i', (text, rows) => {
    expect(rowsOf(text, 10)).toBe(rows);
  });
});

describe('streamed markdown: block boundaries', () => {
  it('a blank line inside a code fence does not end the block, however the deltas split it', () => {
    const out = terminal();
    const stream = markdownStream(out, 80);
    for (const delta of ['```t', 's\nconst a = 1;\n', '\n', 'const b = 2;\n``', '`\n', '\n']) stream.write(delta);
    // One erase: the whole fenced block settled once, when the blank line after the fence arrived.
    expect(out.text.split('\x1b[J')).toHaveLength(2);
    expect(stripVTControlCharacters(out.text.slice(out.text.indexOf('\x1b[J')))).toContain('const b = 2;');
  });
});
