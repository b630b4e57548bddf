import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';

/** Longest diff shown for approval, in lines; the rest is summarised. */
const MAX_DIFF_LINES = 400;
/** Longest the diff may take to compute (the `diff` library gives up and we say so). */
const DIFF_TIMEOUT_MS = 2_000;

/** A change's unified diff and its line counts. */
export interface FileChange {
  /** `--- a/PATH` / `+++ b/PATH` headers and hunks; cut past {@link MAX_DIFF_LINES} lines. */
  diff: string;
  added: number;
  removed: number;
}

/**
 * The unified diff (3 lines of context) between two versions of a workspace file, computed
 * without blocking the event loop (the `diff` library's callback mode) and within a time limit.
 */
export function describeChange(shownPath: string, before: string | null, after: string): Promise<FileChange> {
  return new Promise((resolve) => {
    createTwoFilesPatch(
      before === null ? '/dev/null' : `a/${shownPath}`,
      `b/${shownPath}`,
      before ?? '',
      after,
      undefined,
      undefined,
      {
        context: 3,
        headerOptions: FILE_HEADERS_ONLY,
        timeout: DIFF_TIMEOUT_MS,
        callback: (patch: string | undefined) => {
          if (patch === undefined) {
            const lines = (text: string) => (text === '' ? 0 : text.split('\n').length);
            resolve({
              diff: `(the change is too large to diff in ${DIFF_TIMEOUT_MS / 1000} s: ${lines(before ?? '')} lines become ${lines(after)} lines)\n`,
              added: lines(after),
              removed: lines(before ?? ''),
            });
            return;
          }
          resolve(summarise(patch));
        },
      },
    );
  });
}

function summarise(patch: string): FileChange {
  const lines = patch.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let added = 0;
  let removed = 0;
  for (const line of lines.slice(2)) {
    if (line.startsWith('+')) added += 1;
    else if (line.startsWith('-')) removed += 1;
  }
  const shown =
    lines.length > MAX_DIFF_LINES
      ? [...lines.slice(0, MAX_DIFF_LINES), `… ${lines.length - MAX_DIFF_LINES} more diff lines not shown`]
      : lines;
  return { diff: `${shown.join('\n')}\n`, added, removed };
}
