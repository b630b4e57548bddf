import { readdir, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { limitOutput, seconds } from './tool-limits.js';
import { SearchWorker, type SearchFileJob } from './tool-search-worker.js';
import { abortReason, booleanArgument, stringArgument, ToolError, type Tool } from './tool-types.js';
import { displayPath, resolveInWorkspace } from './tool-workspace.js';
import { directoryListingPath, openEntry, openInWorkspace } from './tool-workspace-open.js';

/**
 * `search_files`: grep over the workspace with a linear-time regular expression engine (RE2,
 * through `re2js`, the syntax ripgrep users know). A backtracking engine (JavaScript's RegExp)
 * can spend minutes on one line for patterns like `(a|a)*$`. Matching runs in a worker thread
 * (`tool-search-worker.ts`) that the time limit or Ctrl-C terminates mid-match, so no pattern
 * holds the CLI or the gateway's other sessions; the files are opened here, each through a
 * handle checked inside the workspace (`tool-workspace-open.ts`).
 */

/** Caps of one search. */
export interface SearchLimits {
  /** Wall-clock budget; past it the worker is terminated and the search says so. */
  timeLimitMs: number;
  /** Matching lines returned at most. */
  maxMatches: number;
  /** Files larger than this are skipped (bytes). */
  maxFileBytes: number;
  /**
   * Matching work allowed per line, in program instructions × characters: a line is matched on
   * its first `lineWork / instructions` characters (about a second at re2js's slowest rate).
   */
  lineWork: number;
}

/** The limits `search_files` runs with. */
export const SEARCH_LIMITS: SearchLimits = {
  timeLimitMs: 20_000,
  maxMatches: 200,
  maxFileBytes: 2 * 1024 * 1024,
  lineWork: 40_000_000,
};

const SKIPPED_DIRECTORIES = new Set(['.git', 'node_modules']);
const MAX_PATTERN_LENGTH = 500;
/** A batch sent to the worker: at most this many files or bytes. */
const BATCH_FILES = 64;
const BATCH_BYTES = 1024 * 1024;

/** Checks the pattern's length (compiling happens in the worker, under the time limit). */
function checkPattern(pattern: string): void {
  if (pattern === '') throw new ToolError('pattern is empty');
  if (pattern.length > MAX_PATTERN_LENGTH) throw new ToolError(`pattern longer than ${MAX_PATTERN_LENGTH} characters`);
}

/** What a walk found. */
interface SearchProgress {
  matches: string[];
  filesSearched: number;
  /** Lines matched on their first characters only (longer than the per-line work allows). */
  cutLines: number;
  matchedChars: number;
  stoppedBy: 'match-cap' | 'time-limit' | null;
}

/** A `search_files` tool with the given limits (tests use small ones). */
export function createSearchFilesTool(limits: SearchLimits = SEARCH_LIMITS): Tool {
  return {
    definition: {
      name: 'search_files',
      description:
        'Search text files under a directory (or in one file) for a regular expression, like ripgrep: RE2 ' +
        'syntax (no lookaround or backreferences), linear-time matching. Prints path:line: text, at most ' +
        `${limits.maxMatches} matches; skips .git, node_modules, binary files and files over ` +
        `${limits.maxFileBytes / (1024 * 1024)} MiB; stops after ${seconds(limits.timeLimitMs)}.`,
      parameters: {
        type: 'object',
        properties: {
          pattern: { type: 'string', description: 'Regular expression (RE2 syntax).' },
          path: { type: 'string', description: 'Directory or file, relative to the workspace (default ".").' },
          ignore_case: { type: 'boolean', description: 'Match case-insensitively (default false).' },
        },
        required: ['pattern'],
        additionalProperties: false,
      },
    },
    needsApproval: false,
    deadlineMs: limits.timeLimitMs + 10_000,
    async run(args, context) {
      const pattern = stringArgument(args, 'pattern');
      checkPattern(pattern);
      const ignoreCase = booleanArgument(args, 'ignore_case', false);
      const root = resolveInWorkspace(context.workspace, stringArgument(args, 'path', '.'));
      const progress: SearchProgress = { matches: [], filesSearched: 0, cutLines: 0, matchedChars: 0, stoppedBy: null };
      const worker = new SearchWorker(pattern, ignoreCase, limits.lineWork);
      let stopped: ToolError | null = null;
      const stop = (reason: ToolError) => {
        stopped ??= reason;
        void worker.stop(reason);
      };
      const timeLimit = new ToolError('time limit');
      const timer = setTimeout(() => stop(timeLimit), limits.timeLimitMs);
      const onAbort = () => context.signal && stop(abortReason(context.signal));
      if (context.signal?.aborted) onAbort();
      else context.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        progress.matchedChars = await worker.ready;
        await walkAndMatch(context.workspace, root, worker, progress, limits, () => stopped !== null);
      } catch (error) {
        if (stopped !== timeLimit) throw stopped ?? error;
      } finally {
        clearTimeout(timer);
        context.signal?.removeEventListener('abort', onAbort);
        await (stopped === null ? worker.release() : worker.stop());
      }
      if (stopped === timeLimit) progress.stoppedBy = 'time-limit';
      return report(progress, limits);
    },
  };
}

/** Walks `root` (a file or a directory), sending file contents to `worker` in batches. */
async function walkAndMatch(
  workspace: string,
  root: string,
  worker: SearchWorker,
  progress: SearchProgress,
  limits: SearchLimits,
  isStopped: () => boolean,
): Promise<void> {
  const rootShown = displayPath(workspace, root);
  let batch: (SearchFileJob & { shown: string })[] = [];
  let batchBytes = 0;
  const flush = async () => {
    if (!batch.length || progress.stoppedBy) return;
    const sent = batch;
    batch = [];
    batchBytes = 0;
    const results = await worker.match(sent, limits.maxMatches - progress.matches.length);
    for (const result of results) {
      if (result.binary) continue;
      progress.filesSearched += 1;
      progress.cutLines += result.cutLines;
      const shown = sent[result.index]?.shown ?? '';
      for (const [line, text] of result.matches) progress.matches.push(`${shown}:${line}: ${text}`);
    }
    if (progress.matches.length >= limits.maxMatches) progress.stoppedBy = 'match-cap';
  };
  const addFile = async (handle: FileHandle, path: string) => {
    try {
      const info = await handle.stat();
      if (!info.isFile() || info.size > limits.maxFileBytes) return;
      const bytes = await handle.readFile();
      batch.push({ index: batch.length, bytes, shown: displayPath(workspace, path) });
      batchBytes += bytes.length;
    } finally {
      await handle.close();
    }
    if (batch.length >= BATCH_FILES || batchBytes >= BATCH_BYTES) await flush();
  };
  const walk = async (directory: FileHandle, path: string): Promise<void> => {
    const entries = await readdir(directoryListingPath(directory, path), { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (progress.stoppedBy || isStopped()) return;
      const full = join(path, entry.name);
      if (entry.isDirectory()) {
        if (SKIPPED_DIRECTORIES.has(entry.name)) continue;
        const child = await openEntry(workspace, directory, entry.name, full, 'directory');
        if (child) await walk(child, full).finally(() => child.close());
      } else if (entry.isFile()) {
        const file = await openEntry(workspace, directory, entry.name, full, 'read');
        if (file) await addFile(file, full);
      }
    }
  };
  const handle = await openInWorkspace(workspace, root, rootShown, 'read').catch((error: unknown) => {
    if (error instanceof ToolError) throw error;
    return null;
  });
  if (!handle) throw new ToolError(`no such path: ${rootShown}`);
  const info = await handle.stat().catch(async (error: unknown) => {
    await handle.close();
    throw error;
  });
  if (info.isFile()) await addFile(handle, root);
  else if (info.isDirectory()) await walk(handle, root).finally(() => handle.close());
  else {
    await handle.close();
    throw new ToolError(`${rootShown} is not a regular file or directory`);
  }
  await flush();
}

function report(progress: SearchProgress, limits: SearchLimits): string {
  const { matches, stoppedBy } = progress;
  const files = `${progress.filesSearched} file${progress.filesSearched === 1 ? '' : 's'}`;
  if (stoppedBy === 'time-limit' && !matches.length) {
    throw new ToolError(
      `search stopped at its ${seconds(limits.timeLimitMs)} time limit after ${files} without a match ` +
        '(pattern too slow or tree too large): narrow the path or simplify the pattern',
    );
  }
  let note = '';
  if (progress.cutLines) {
    const lines = `${progress.cutLines} line${progress.cutLines === 1 ? ' was' : 's were'}`;
    note += `\n[${lines} longer than this pattern may match per line: matched on their first ${progress.matchedChars} characters]`;
  }
  if (!matches.length) return `no matches${note}`;
  if (stoppedBy === 'match-cap')
    note += `\n[stopped at ${limits.maxMatches} matches; narrow the path or pattern for the rest]`;
  if (stoppedBy === 'time-limit') {
    note += `\n[search stopped at its ${seconds(limits.timeLimitMs)} time limit after ${files}; results are partial]`;
  }
  return limitOutput(matches.join('\n') + note);
}

/** `search_files {pattern, path?, ignore_case?}`. */
export const searchFilesTool: Tool = createSearchFilesTool();
