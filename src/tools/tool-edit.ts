import { createHash } from 'node:crypto';
import { describeChange } from './tool-diff.js';
import { editableText, encodeFileText, encodingName, type FileEncoding } from './tool-file-text.js';
import { describeNearMatches, lineNumberAt } from './tool-edit-near-match.js';
import {
  booleanArgument,
  stringArgument,
  throwIfAborted,
  ToolError,
  type Tool,
  type ToolContext,
} from './tool-types.js';
import { displayPath, readWorkspaceFile, resolveInWorkspace, writeWorkspaceFile } from './tool-workspace.js';

/** Largest file `edit_file` and `write_file` read back for a diff (bytes). */
export const MAX_EDITED_FILE_BYTES = 10 * 1024 * 1024;

/** Line numbers listed for an ambiguous `old_string`, at most. */
const MAX_LISTED_LINES = 10;

/** Fingerprint of a file's bytes (or of its absence), checked between approval and write. */
export function contentBasis(content: Uint8Array | null): string {
  return content === null ? 'absent' : createHash('sha256').update(content).digest('hex');
}

/**
 * The current bytes of a workspace file, or null when it does not exist, read through a handle
 * checked inside the workspace. Refuses directories, FIFOs and devices (reading them could
 * block) and files past {@link MAX_EDITED_FILE_BYTES}.
 */
export function readEditableBytes(
  workspace: string,
  path: string,
  shown: string,
  signal?: AbortSignal,
): Promise<Buffer | null> {
  return readWorkspaceFile(workspace, path, shown, { maxBytes: MAX_EDITED_FILE_BYTES, signal, what: 'edited' });
}

/** The planned edit: the file before and after, and where it changed. */
interface PlannedEdit {
  path: string;
  shown: string;
  /** The file's bytes as read (the approval basis). */
  bytes: Buffer;
  before: string;
  after: string;
  /** The file's encoding, kept by the write. */
  encoding: Exclude<FileEncoding, 'invalid-utf-8'>;
  lines: number[];
}

/** Start offsets of non-overlapping occurrences of `needle`. */
function occurrencesOf(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let index = haystack.indexOf(needle); index !== -1; index = haystack.indexOf(needle, index + needle.length)) {
    found.push(index);
  }
  return found;
}

async function planEdit(args: Record<string, unknown>, context: ToolContext): Promise<PlannedEdit> {
  const path = resolveInWorkspace(context.workspace, stringArgument(args, 'path'));
  const shown = displayPath(context.workspace, path);
  let oldString = stringArgument(args, 'old_string');
  let newString = stringArgument(args, 'new_string');
  const replaceAll = booleanArgument(args, 'replace_all', false);
  if (oldString === '') throw new ToolError('old_string is empty; use write_file to create or replace a whole file');
  if (oldString === newString) throw new ToolError('old_string and new_string are the same; nothing to change');
  const bytes = await readEditableBytes(context.workspace, path, shown, context.signal);
  if (bytes === null) throw new ToolError(`no such file: ${shown} (use write_file to create it)`);
  const { text: before, encoding } = editableText(bytes, shown);
  let found = occurrencesOf(before, oldString);
  // A model writes "\n"; a Windows-style file has "\r\n". Match and replace in the file's style.
  if (!found.length && before.includes('\r\n') && !oldString.includes('\r\n')) {
    const crlf = (text: string) => text.replace(/\r?\n/g, '\r\n');
    const converted = occurrencesOf(before, crlf(oldString));
    if (converted.length) {
      oldString = crlf(oldString);
      newString = crlf(newString);
      found = converted;
    }
  }
  throwIfAborted(context.signal);
  if (!found.length) {
    const near = await describeNearMatches(before, oldString, context.signal);
    throw new ToolError(`old_string was not found in ${shown}; ${near}`);
  }
  const lines = found.map((index) => lineNumberAt(before, index));
  if (found.length > 1 && !replaceAll) {
    throw new ToolError(
      `old_string occurs ${found.length} times in ${shown} (at ${listLines(lines)}); include more surrounding lines ` +
        'so it matches exactly once, or set replace_all to true to change every occurrence',
    );
  }
  const after = replaceAll
    ? before.split(oldString).join(newString)
    : spliceOnce(before, found[0] ?? 0, oldString, newString);
  return { path, shown, bytes, before, after, encoding, lines };
}

/** `line 3` or `lines 3, 8, 12` (at most {@link MAX_LISTED_LINES}, then `…`). */
function listLines(all: readonly number[]): string {
  const lines = [...new Set(all)];
  if (lines.length === 1) return `line ${lines[0]}`;
  return `lines ${lines.slice(0, MAX_LISTED_LINES).join(', ')}${lines.length > MAX_LISTED_LINES ? ', …' : ''}`;
}

function spliceOnce(text: string, index: number, oldString: string, newString: string): string {
  return text.slice(0, index) + newString + text.slice(index + oldString.length);
}

/** `edit_file {path, old_string, new_string, replace_all?}` (needs approval): exact string replacement. */
export const editFileTool: Tool = {
  definition: {
    name: 'edit_file',
    description:
      'Replace an exact string in a workspace file. old_string must match the file exactly (whitespace and ' +
      'indentation included) and occur exactly once, unless replace_all is true; include enough surrounding ' +
      'lines to make it unique. Read the file first. Fails with the closest matching line numbers when ' +
      'old_string is not found. Use write_file to create a file.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path, relative to the workspace.' },
        old_string: { type: 'string', description: 'The exact text to replace.' },
        new_string: { type: 'string', description: 'The text to put in its place.' },
        replace_all: { type: 'boolean', description: 'Replace every occurrence (default false).' },
      },
      required: ['path', 'old_string', 'new_string'],
      additionalProperties: false,
    },
  },
  needsApproval: true,
  deadlineMs: 30_000,
  async preview(args, context) {
    const edit = await planEdit(args, context);
    const change = await describeChange(edit.shown, edit.before, edit.after);
    return {
      summary: `edit ${edit.shown} (+${change.added} -${change.removed})`,
      diff: change.diff,
      basis: contentBasis(edit.bytes),
    };
  },
  async run(args, context) {
    const edit = await planEdit(args, context);
    if (context.approved?.basis && context.approved.basis !== contentBasis(edit.bytes)) {
      throw new ToolError(
        `${edit.shown} changed after the edit was shown for approval; read it again and redo the edit`,
      );
    }
    throwIfAborted(context.signal);
    await writeWorkspaceFile(context.workspace, edit.path, encodeFileText(edit.after, edit.encoding), edit.shown);
    const count = edit.lines.length;
    const kept = edit.encoding === 'utf-8' ? '' : ` (kept as ${encodingName(edit.encoding)})`;
    return `edited ${edit.shown}: replaced ${count} occurrence${count === 1 ? '' : 's'} (at ${listLines(edit.lines)})${kept}`;
  },
};
