import { describe, expect, it } from 'vitest';
import { PasteFilter, pasteSummary } from '../../src/cli/chat-paste.js';

const START = '\x1b[200~';
const END = '\x1b[201~';

/** Feeds `input` to a filter in chunks of `size` characters; returns what readline would get. */
function feed(filter: PasteFilter, input: string, size: number): string {
  let forwarded = '';
  for (let at = 0; at < input.length; at += size) forwarded += filter.push(input.slice(at, at + size));
  return forwarded;
}

describe('large pastes at the prompt', () => {
  const large = `${'0123456789'.repeat(300)}\r${'tail'.repeat(10)}`;

  it.each([1, 2, 3, 7, 64, 100_000])('a large paste becomes one summary line (chunks of %i)', (size) => {
    const filter = new PasteFilter();
    const forwarded = feed(filter, `typed ${START}${large}${END} after`, size);
    expect(forwarded).toBe('typed [pasted text #1: 3,041 characters, 2 lines] after');
    // The message sent holds the full text (the terminal's CR inside a paste is a newline).
    expect(filter.expand(forwarded)).toBe(`typed ${large.replace('\r', '\n')} after`);
  });

  it('a small paste passes with its markers (one multi-line message), not summarised', () => {
    const filter = new PasteFilter();
    expect(feed(filter, `${START}a\rb${END}`, 2)).toBe(`${START}a\nb${END}`);
  });

  it('numbers each large paste of a message and expands each', () => {
    const filter = new PasteFilter();
    const forwarded = filter.push(`${START}${large}${END} and ${START}${large}x${END}`);
    expect(forwarded).toBe(
      '[pasted text #1: 3,041 characters, 2 lines] and [pasted text #2: 3,042 characters, 2 lines]',
    );
    const text = large.replace('\r', '\n');
    expect(filter.expand(forwarded)).toBe(`${text} and ${text}x`);
    // Once sent, the texts are gone: a summary typed by hand stays as typed.
    expect(filter.expand('[pasted text #1: 3,041 characters, 2 lines]')).toBe(
      '[pasted text #1: 3,041 characters, 2 lines]',
    );
  });

  it('summarises piped messages too (for the echo), by characters or by lines', () => {
    expect(pasteSummary('short')).toBeNull();
    expect(pasteSummary('x'.repeat(2001))).toBe('[pasted text: 2,001 characters, 1 line]');
    expect(pasteSummary('a\n'.repeat(21))).toBe('[pasted text: 42 characters, 21 lines]');
  });
});
