/**
 * Text helpers shared by emulators: realistic stream fragments and a rough token count.
 */

/**
 * Splits `text` into fragments of about `size` characters, cutting after whitespace when one is
 * near, the way providers stream a few tokens per chunk. Concatenating the fragments gives back
 * `text` exactly. An empty text gives no fragments.
 */
export function splitIntoFragments(text: string, size = 12): string[] {
  const fragments: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + size);
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      if (space > start + size / 2) end = space + 1;
    }
    // Never cut a surrogate pair: a fragment must be valid UTF-16 on its own.
    const previous = text.charCodeAt(end - 1);
    if (end < text.length && previous >= 0xd800 && previous <= 0xdbff) end += 1;
    fragments.push(text.slice(start, end));
    start = end;
  }
  return fragments;
}

/** Rough token count (four characters per token), the scale providers report for English. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
