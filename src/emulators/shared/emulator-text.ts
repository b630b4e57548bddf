/**
 * Text helpers shared by emulators: realistic stream fragments and a rough token count.
 */

/**
 * Splits `text` into fragments of about `size` characters, cutting after whitespace when one is
 * near, the way providers stream a few tokens per chunk. Concatenating the fragments gives back
 * `text` exactly. An empty text gives no fragments. Linear in the text: the space is looked for
 * only in the second half of each fragment (a search back to the start of a 2,400,000-character
 * word, once per fragment, would be quadratic).
 */
export function splitIntoFragments(text: string, size = 12): string[] {
  const fragments: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + size);
    if (end < text.length) {
      const space = lastSpaceAfter(text, start + size / 2, end);
      if (space !== -1) end = space + 1;
    }
    // Never cut a surrogate pair: a fragment must be valid UTF-16 on its own.
    const previous = text.charCodeAt(end - 1);
    if (end < text.length && previous >= 0xd800 && previous <= 0xdbff) end += 1;
    fragments.push(text.slice(start, end));
    start = end;
  }
  return fragments;
}

/** Index of the last space in `text` at or before `end` and after `after`, or -1. */
function lastSpaceAfter(text: string, after: number, end: number): number {
  for (let index = end; index > after; index -= 1) if (text.charCodeAt(index) === 0x20) return index;
  return -1;
}

/** Rough token count (four characters per token), the scale providers report for English. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
