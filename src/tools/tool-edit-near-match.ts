import { distance } from 'fastest-levenshtein';
import { TimeSlicer } from './tool-limits.js';

/**
 * Where an `old_string` that was not found most likely sits, so the model can re-read those
 * lines instead of the whole file. Three tries, first hit wins:
 * 1. the same lines with different whitespace (indentation, tabs, trailing spaces);
 * 2. the window of lines sharing the most whole lines with `old_string`;
 * 3. the lines most similar to `old_string`'s first line (edit distance).
 */

/** Line similarity below which a line is not worth naming. */
const MIN_SIMILARITY = 0.6;
/** Longest line prefix compared by edit distance. */
const COMPARED_PREFIX = 200;
/** Closest places named at most. */
const MAX_PLACES = 3;

/** Line number (1-based) → `text` starts there. */
export function lineNumberAt(text: string, index: number): number {
  let line = 1;
  for (
    let position = text.indexOf('\n');
    position !== -1 && position < index;
    position = text.indexOf('\n', position + 1)
  ) {
    line += 1;
  }
  return line;
}

/** `lines 3-5` or `line 3`. */
function span(start: number, count: number): string {
  return count > 1 ? `lines ${start}-${start + count - 1}` : `line ${start}`;
}

/** A sentence naming the closest places, or saying there are none. */
export async function describeNearMatches(
  content: string,
  oldString: string,
  signal: AbortSignal | undefined,
): Promise<string> {
  const fileLines = content.split('\n').map((line) => line.trim());
  const wanted = oldString.split('\n').map((line) => line.trim());
  while (wanted.length && wanted[0] === '') wanted.shift();
  while (wanted.length && wanted[wanted.length - 1] === '') wanted.pop();
  if (!wanted.length) return 'old_string is only whitespace';

  const votes = new Map<number, number>();
  const positions = new Map<string, number[]>();
  fileLines.forEach((line, index) => {
    if (line === '') return;
    const list = positions.get(line);
    if (list) list.push(index);
    else positions.set(line, [index]);
  });
  wanted.forEach((line, offset) => {
    if (line === '') return;
    for (const index of positions.get(line) ?? []) {
      const start = index - offset;
      if (start >= 0) votes.set(start, (votes.get(start) ?? 0) + 1);
    }
  });
  const nonBlank = wanted.filter((line) => line !== '').length;
  const ranked = [...votes.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, MAX_PLACES);

  const whitespaceOnly = ranked.filter(([start]) => wanted.every((line, offset) => fileLines[start + offset] === line));
  if (whitespaceOnly.length) {
    const places = whitespaceOnly.map(([start]) => span(start + 1, wanted.length)).join(', ');
    return `it matches ${places} when whitespace is ignored: copy the exact indentation, tabs and trailing spaces from the file`;
  }
  if (ranked.length) {
    const places = ranked.map(([start, count]) => {
      const differs = wanted.findIndex((line, offset) => fileLines[start + offset] !== line);
      return `${span(start + 1, wanted.length)} (${count} of ${nonBlank} lines equal; first difference at line ${start + differs + 1})`;
    });
    return `closest: ${places.join(', ')}`;
  }

  const first = (wanted[0] ?? '').slice(0, COMPARED_PREFIX);
  const slicer = new TimeSlicer(signal);
  const similar: { line: number; score: number }[] = [];
  for (let index = 0; index < fileLines.length; index += 1) {
    await slicer.tick();
    const candidate = (fileLines[index] ?? '').slice(0, COMPARED_PREFIX);
    const longest = Math.max(first.length, candidate.length);
    if (!candidate || Math.abs(first.length - candidate.length) > longest * (1 - MIN_SIMILARITY)) continue;
    const score = 1 - distance(first, candidate) / longest;
    if (score >= MIN_SIMILARITY) similar.push({ line: index + 1, score });
  }
  if (!similar.length) return 'no similar lines either: read the file again before editing';
  const best = similar.sort((a, b) => b.score - a.score || a.line - b.line).slice(0, MAX_PLACES);
  const places = best.map((entry) => `line ${entry.line} (${Math.round(entry.score * 100)}% similar)`);
  return `closest to its first line: ${places.join(', ')}`;
}
