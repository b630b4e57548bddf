import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { describeChange } from './tool-diff.js';
import { contentBasis, readEditableText } from './tool-edit.js';
import { MAX_TOOL_OUTPUT } from './tool-limits.js';
import { integerArgument, stringArgument, throwIfAborted, ToolError, type Tool } from './tool-types.js';
import { displayPath, resolveInWorkspace, writeWorkspaceFile } from './tool-workspace.js';

/** Lines `read_file` returns by default. */
const READ_LINES = 2000;
/** Entries `list_directory` returns at most. */
const MAX_DIRECTORY_ENTRIES = 1000;

/** What one bounded read produced. */
interface LineWindow {
  text: string;
  /** Last line number included (0 when none). */
  lastLine: number;
  /** True when the file goes on past what was returned. */
  more: boolean;
  /** True when the last included line was cut at the output cap. */
  cutLine: boolean;
}

/**
 * Reads lines `from`..`from + count - 1` (1-based), keeping their exact line endings, without
 * reading past what is returned: a multi-gigabyte log costs what is shown, and the read stops
 * when `signal` fires.
 */
async function readLineWindow(
  path: string,
  shown: string,
  window: { from: number; count: number },
  signal: AbortSignal | undefined,
): Promise<LineWindow> {
  const stream = createReadStream(path, { encoding: 'utf8', ...(signal ? { signal } : {}) });
  let line = 1;
  let text = '';
  let first = true;
  const last = window.from + window.count - 1;
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      if (first && chunk.includes('\0')) throw new ToolError(`${shown} looks binary (it contains NUL bytes)`);
      first = false;
      let start = 0;
      while (start < chunk.length) {
        if (line > last) return { text, lastLine: last, more: true, cutLine: false };
        const newline = chunk.indexOf('\n', start);
        const end = newline === -1 ? chunk.length : newline + 1;
        if (line >= window.from) {
          text += chunk.slice(start, end);
          if (text.length > MAX_TOOL_OUTPUT) {
            return { text: text.slice(0, MAX_TOOL_OUTPUT), lastLine: line, more: true, cutLine: true };
          }
        }
        if (newline === -1) break;
        line += 1;
        start = end;
      }
    }
  } finally {
    stream.destroy();
  }
  const complete = text === '' || text.endsWith('\n') ? line - 1 : line;
  return { text, lastLine: Math.min(complete, last), more: false, cutLine: false };
}

/** `read_file {path, offset?, limit?}`. */
export const readFileTool: Tool = {
  definition: {
    name: 'read_file',
    description:
      `Read a UTF-8 text file inside the workspace: up to ${READ_LINES} lines from offset (a 1-based line ` +
      `number), at most ${MAX_TOOL_OUTPUT / 1024} KiB; the result says how to read on when the file is longer.`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path, relative to the workspace.' },
        offset: { type: 'integer', description: 'First line to read (1-based, default 1).' },
        limit: { type: 'integer', description: `Lines to read (default ${READ_LINES}).` },
      },
      required: ['path'],
      additionalProperties: false,
    },
  },
  needsApproval: false,
  deadlineMs: 30_000,
  async run(args, context) {
    const path = resolveInWorkspace(context.workspace, stringArgument(args, 'path'));
    const shown = displayPath(context.workspace, path);
    const from = integerArgument(args, 'offset', { fallback: 1, minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
    const count = integerArgument(args, 'limit', { fallback: READ_LINES, minimum: 1, maximum: 100_000 });
    const info = await stat(path).catch(() => null);
    if (!info) throw new ToolError(`no such file: ${shown}`);
    if (info.isDirectory()) throw new ToolError(`${shown} is a directory`);
    // A FIFO or device would block the read forever (a hung turn), so only regular files are read.
    if (!info.isFile()) throw new ToolError(`${shown} is not a regular file`);
    const window = await readLineWindow(path, shown, { from, count }, context.signal);
    if (window.text === '' && from > 1) throw new ToolError(`offset ${from} is past the end of ${shown}`);
    if (window.cutLine) {
      return `${window.text}\n[line ${window.lastLine} cut at ${MAX_TOOL_OUTPUT / 1024} KiB; read_file with offset ${window.lastLine + 1} goes on after it]`;
    }
    if (window.more) {
      const separator = window.text.endsWith('\n') ? '' : '\n';
      return `${window.text}${separator}[lines ${from}-${window.lastLine} shown; the file goes on: read_file with offset ${window.lastLine + 1}]`;
    }
    return window.text;
  },
};

/** `write_file {path, content}` (needs approval). */
export const writeFileTool: Tool = {
  definition: {
    name: 'write_file',
    description:
      'Write a whole UTF-8 text file inside the workspace, creating parent directories; replaces an existing ' +
      'file. Prefer edit_file to change part of a file.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      required: ['path', 'content'],
      additionalProperties: false,
    },
  },
  needsApproval: true,
  deadlineMs: 30_000,
  async preview(args, context) {
    const path = resolveInWorkspace(context.workspace, stringArgument(args, 'path'));
    const shown = displayPath(context.workspace, path);
    const content = stringArgument(args, 'content');
    const before = await readEditableText(path, shown, context.signal);
    const change = await describeChange(shown, before, content);
    const summary =
      before === null
        ? `write ${shown} (new file, ${change.added} line${change.added === 1 ? '' : 's'})`
        : `write ${shown} (+${change.added} -${change.removed})`;
    return { summary, diff: change.diff, basis: contentBasis(before) };
  },
  async run(args, context) {
    const path = resolveInWorkspace(context.workspace, stringArgument(args, 'path'));
    const shown = displayPath(context.workspace, path);
    const content = stringArgument(args, 'content');
    if (context.approved?.basis) {
      const current = await readEditableText(path, shown, context.signal);
      if (contentBasis(current) !== context.approved.basis) {
        throw new ToolError(
          `${shown} changed after the write was shown for approval; read it again and redo the write`,
        );
      }
    }
    throwIfAborted(context.signal);
    await writeWorkspaceFile(path, content, shown);
    return `wrote ${Buffer.byteLength(content)} bytes to ${shown}`;
  },
};

/** `list_directory {path}`. */
export const listDirectoryTool: Tool = {
  definition: {
    name: 'list_directory',
    description: `List the entries of a directory inside the workspace (directories end with /; at most ${MAX_DIRECTORY_ENTRIES}).`,
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'Directory, relative to the workspace (default ".").' } },
      additionalProperties: false,
    },
  },
  needsApproval: false,
  deadlineMs: 30_000,
  async run(args, context) {
    const path = resolveInWorkspace(context.workspace, stringArgument(args, 'path', '.'));
    const entries = await readdir(path, { withFileTypes: true }).catch(() => {
      throw new ToolError(`not a directory: ${displayPath(context.workspace, path)}`);
    });
    const names = entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort();
    if (!names.length) return '(empty directory)';
    if (names.length <= MAX_DIRECTORY_ENTRIES) return names.join('\n');
    return `${names.slice(0, MAX_DIRECTORY_ENTRIES).join('\n')}\n[${names.length - MAX_DIRECTORY_ENTRIES} more entries not shown; list a subdirectory or use search_files]`;
  },
};
