import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { RE2JS } from 're2js';
import { limitOutput, seconds, TimeSlicer } from './tool-limits.js';
import { booleanArgument, stringArgument, throwIfAborted, ToolError, type Tool } from './tool-types.js';
import { displayPath, resolveInWorkspace } from './tool-workspace.js';

/**
 * `search_files`: grep over the workspace with a linear-time regular expression engine (RE2,
 * through `re2js`, the syntax ripgrep users know). A backtracking engine (JavaScript's RegExp)
 * can spend minutes on one line for patterns like `(a|a)*$`, and one such call cannot be
 * interrupted: it would freeze the CLI (Ctrl-C ignored) and every gateway session. RE2 matches
 * in time proportional to the line, and the walk yields to the event loop every few
 * milliseconds, so the search stops on Ctrl-C, at its time limit, or at its match cap.
 */

/** Caps of one search. */
export interface SearchLimits {
  /** Wall-clock budget; past it the search stops and says so. */
  timeLimitMs: number;
  /** Matching lines returned at most. */
  maxMatches: number;
  /** Files larger than this are skipped (bytes). */
  maxFileBytes: number;
  /** Longest stretch of matching between two yields to the event loop (milliseconds). */
  sliceMs: number;
}

/** The limits `search_files` runs with. */
export const SEARCH_LIMITS: SearchLimits = {
  timeLimitMs: 20_000,
  maxMatches: 200,
  maxFileBytes: 2 * 1024 * 1024,
  sliceMs: 8,
};

const SKIPPED_DIRECTORIES = new Set(['.git', 'node_modules']);
const MAX_PATTERN_LENGTH = 500;
/** Characters of a matching line shown. */
const MAX_SHOWN_LINE = 300;

/** Compiles the model's pattern with RE2; a syntax error or unsupported construct is a tool error naming it. */
export function compileSearchPattern(pattern: string, ignoreCase: boolean): RE2JS {
  if (pattern === '') throw new ToolError('pattern is empty');
  if (pattern.length > MAX_PATTERN_LENGTH) throw new ToolError(`pattern longer than ${MAX_PATTERN_LENGTH} characters`);
  try {
    return RE2JS.compile(pattern, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    throw new ToolError(
      `invalid pattern: ${(error as Error).message} (RE2 syntax, as in ripgrep: lookaround and backreferences are not supported)`,
    );
  }
}

/** What a walk found. */
interface SearchProgress {
  matches: string[];
  filesSearched: number;
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
      const expression = compileSearchPattern(
        stringArgument(args, 'pattern'),
        booleanArgument(args, 'ignore_case', false),
      );
      const root = resolveInWorkspace(context.workspace, stringArgument(args, 'path', '.'));
      const info = await stat(root).catch(() => null);
      if (!info) throw new ToolError(`no such path: ${displayPath(context.workspace, root)}`);
      const deadline = performance.now() + limits.timeLimitMs;
      const slicer = new TimeSlicer(context.signal, limits.sliceMs);
      const progress: SearchProgress = { matches: [], filesSearched: 0, stoppedBy: null };

      const searchFile = async (file: string) => {
        const size = (await stat(file)).size;
        if (size > limits.maxFileBytes) return;
        const text = await readFile(file, { encoding: 'utf8', ...(context.signal ? { signal: context.signal } : {}) });
        if (text.includes('\0')) return;
        progress.filesSearched += 1;
        const lines = text.split('\n');
        const shown = displayPath(context.workspace, file);
        for (let index = 0; index < lines.length; index += 1) {
          await slicer.tick();
          if (performance.now() > deadline) {
            progress.stoppedBy = 'time-limit';
            return;
          }
          const line = lines[index] ?? '';
          if (!expression.test(line)) continue;
          const cut = line.length > MAX_SHOWN_LINE ? `${line.slice(0, MAX_SHOWN_LINE)}…` : line;
          progress.matches.push(`${shown}:${index + 1}: ${cut}`);
          if (progress.matches.length >= limits.maxMatches) {
            progress.stoppedBy = 'match-cap';
            return;
          }
        }
      };
      const walk = async (directory: string): Promise<void> => {
        const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
        entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        for (const entry of entries) {
          if (progress.stoppedBy) return;
          throwIfAborted(context.signal);
          const full = join(directory, entry.name);
          if (entry.isDirectory()) {
            if (!SKIPPED_DIRECTORIES.has(entry.name)) await walk(full);
          } else if (entry.isFile()) {
            await searchFile(full);
          }
        }
      };
      if (info.isFile()) await searchFile(root);
      else if (info.isDirectory()) await walk(root);
      else throw new ToolError(`${displayPath(context.workspace, root)} is not a regular file or directory`);
      return report(progress, limits);
    },
  };
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
  if (!matches.length) return 'no matches';
  let note = '';
  if (stoppedBy === 'match-cap')
    note = `\n[stopped at ${limits.maxMatches} matches; narrow the path or pattern for the rest]`;
  if (stoppedBy === 'time-limit') {
    note = `\n[search stopped at its ${seconds(limits.timeLimitMs)} time limit after ${files}; results are partial]`;
  }
  return limitOutput(matches.join('\n') + note);
}

/** `search_files {pattern, path?, ignore_case?}`. */
export const searchFilesTool: Tool = createSearchFilesTool();
