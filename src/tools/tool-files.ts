import { readdir } from 'node:fs/promises';
import { describeChange } from './tool-diff.js';
import { contentBasis, readEditableBytes } from './tool-edit.js';
import { decodeFileText } from './tool-file-text.js';
import { MAX_TOOL_OUTPUT } from './tool-limits.js';
import { encodingNote, readLineWindow } from './tool-read-window.js';
import { integerArgument, stringArgument, throwIfAborted, ToolError, type Tool } from './tool-types.js';
import { displayPath, resolveInWorkspace, writeWorkspaceFile } from './tool-workspace.js';
import { directoryListingPath, openInWorkspace } from './tool-workspace-open.js';

/** Lines `read_file` returns by default. */
const READ_LINES = 2000;
/** Entries `list_directory` returns at most. */
const MAX_DIRECTORY_ENTRIES = 1000;

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
    const handle = await openInWorkspace(context.workspace, path, shown, 'read').catch((error: unknown) => {
      if (error instanceof ToolError) throw error;
      throw new ToolError(`cannot read ${shown}: ${(error as Error).message}`);
    });
    if (!handle) throw new ToolError(`no such file: ${shown}`);
    try {
      const info = await handle.stat();
      if (info.isDirectory()) throw new ToolError(`${shown} is a directory`);
      // A FIFO or device would block the read forever (a hung turn), so only regular files are read.
      if (!info.isFile()) throw new ToolError(`${shown} is not a regular file`);
      const window = await readLineWindow(handle, shown, { from, count }, context.signal);
      if (window.text === '' && from > 1) throw new ToolError(`offset ${from} is past the end of ${shown}`);
      const note = encodingNote(shown, window);
      const notes = (first: string) => [first, note].filter(Boolean).join('\n');
      if (window.cutLine) {
        return `${window.text}\n${notes(`[line ${window.lastLine} cut at ${MAX_TOOL_OUTPUT / 1024} KiB; read_file with offset ${window.lastLine + 1} goes on after it]`)}`;
      }
      if (window.more) {
        const separator = window.text.endsWith('\n') ? '' : '\n';
        return `${window.text}${separator}${notes(`[lines ${from}-${window.lastLine} shown; the file goes on: read_file with offset ${window.lastLine + 1}]`)}`;
      }
      if (!note) return window.text;
      return `${window.text}${window.text.endsWith('\n') || !window.text ? '' : '\n'}${note}`;
    } finally {
      await handle.close();
    }
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
    const bytes = await readEditableBytes(context.workspace, path, shown, context.signal);
    const before = bytes === null ? null : decodeFileText(bytes).text;
    const change = await describeChange(shown, before, content);
    const summary =
      before === null
        ? `write ${shown} (new file, ${change.added} line${change.added === 1 ? '' : 's'})`
        : `write ${shown} (+${change.added} -${change.removed})`;
    return { summary, diff: change.diff, basis: contentBasis(bytes) };
  },
  async run(args, context) {
    const path = resolveInWorkspace(context.workspace, stringArgument(args, 'path'));
    const shown = displayPath(context.workspace, path);
    const content = stringArgument(args, 'content');
    if (context.approved?.basis) {
      const current = await readEditableBytes(context.workspace, path, shown, context.signal);
      if (contentBasis(current) !== context.approved.basis) {
        throw new ToolError(
          `${shown} changed after the write was shown for approval; read it again and redo the write`,
        );
      }
    }
    throwIfAborted(context.signal);
    await writeWorkspaceFile(context.workspace, path, content, shown);
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
    const shown = displayPath(context.workspace, path);
    const notDirectory = () => new ToolError(`not a directory: ${shown}`);
    const directory = await openInWorkspace(context.workspace, path, shown, 'directory').catch((error: unknown) => {
      throw error instanceof ToolError ? error : notDirectory();
    });
    if (!directory) throw notDirectory();
    const entries = await readdir(directoryListingPath(directory, path), { withFileTypes: true })
      .catch(() => {
        throw notDirectory();
      })
      .finally(() => directory.close());
    const names = entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort();
    if (!names.length) return '(empty directory)';
    if (names.length <= MAX_DIRECTORY_ENTRIES) return names.join('\n');
    return `${names.slice(0, MAX_DIRECTORY_ENTRIES).join('\n')}\n[${names.length - MAX_DIRECTORY_ENTRIES} more entries not shown; list a subdirectory or use search_files]`;
  },
};
