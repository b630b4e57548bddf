import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { stringArgument, ToolError, type Tool } from './tool-types.js';
import { displayPath, resolveInWorkspace } from './tool-workspace.js';

/** Largest tool output returned to the model; longer output is cut with a note. */
export const MAX_TOOL_OUTPUT = 64 * 1024;

/** Cuts long output so one tool result cannot flood the context. */
export function limitOutput(text: string): string {
  if (text.length <= MAX_TOOL_OUTPUT) return text;
  return `${text.slice(0, MAX_TOOL_OUTPUT)}\n[output cut at ${MAX_TOOL_OUTPUT} characters of ${text.length}]`;
}

/** `read_file {path}`. */
export const readFileTool: Tool = {
  definition: {
    name: 'read_file',
    description: 'Read a UTF-8 text file inside the workspace.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'File path, relative to the workspace.' } },
      required: ['path'],
      additionalProperties: false,
    },
  },
  needsApproval: false,
  async run(args, context) {
    const path = resolveInWorkspace(context.workspace, stringArgument(args, 'path'));
    const info = await stat(path).catch(() => null);
    if (!info) throw new ToolError(`no such file: ${displayPath(context.workspace, path)}`);
    if (info.isDirectory()) throw new ToolError(`${displayPath(context.workspace, path)} is a directory`);
    // A FIFO or device would block readFile forever (a hung turn), so only regular files are read.
    if (!info.isFile()) throw new ToolError(`${displayPath(context.workspace, path)} is not a regular file`);
    return limitOutput(await readFile(path, 'utf8'));
  },
};

/** `write_file {path, content}` (needs approval). */
export const writeFileTool: Tool = {
  definition: {
    name: 'write_file',
    description: 'Write a UTF-8 text file inside the workspace, creating parent directories.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      required: ['path', 'content'],
      additionalProperties: false,
    },
  },
  needsApproval: true,
  async run(args, context) {
    const path = resolveInWorkspace(context.workspace, stringArgument(args, 'path'));
    const content = stringArgument(args, 'content');
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content, 'utf8');
    return `wrote ${Buffer.byteLength(content)} bytes to ${displayPath(context.workspace, path)}`;
  },
};

/** `list_directory {path}`. */
export const listDirectoryTool: Tool = {
  definition: {
    name: 'list_directory',
    description: 'List the entries of a directory inside the workspace (directories end with /).',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'Directory, relative to the workspace (default ".").' } },
      additionalProperties: false,
    },
  },
  needsApproval: false,
  async run(args, context) {
    const path = resolveInWorkspace(context.workspace, stringArgument(args, 'path', '.'));
    const entries = await readdir(path, { withFileTypes: true }).catch(() => {
      throw new ToolError(`not a directory: ${displayPath(context.workspace, path)}`);
    });
    const names = entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort();
    return names.length ? names.join('\n') : '(empty directory)';
  },
};

const SKIPPED_DIRECTORIES = new Set(['.git', 'node_modules']);
const MAX_PATTERN_LENGTH = 500;
/** A quantified group that is itself quantified — `(a+)+`, `(x*)*`, `(a|b+){2,}` — can backtrack for ever. */
const NESTED_QUANTIFIER = /\([^()]*[+*}][^()]*\)\s*[+*{]/;

/**
 * The model's pattern as a regular expression. JavaScript regexes cannot be interrupted, so a
 * catastrophic pattern would hang the whole process: patterns with nested quantifiers, invalid
 * ones, and overlong ones are searched as plain text instead.
 */
export function searchExpression(pattern: string): RegExp {
  const literal = () => new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  if (pattern.length > MAX_PATTERN_LENGTH) throw new ToolError(`pattern longer than ${MAX_PATTERN_LENGTH} characters`);
  if (NESTED_QUANTIFIER.test(pattern)) return literal();
  try {
    return new RegExp(pattern);
  } catch {
    return literal();
  }
}
const MAX_MATCHES = 200;

/** `search_files {pattern, path}`: lines matching a regular expression (or plain text), grep-style. */
export const searchFilesTool: Tool = {
  definition: {
    name: 'search_files',
    description: 'Search text files under a directory for a regular expression; prints path:line: text.',
    parameters: {
      type: 'object',
      properties: { pattern: { type: 'string' }, path: { type: 'string' } },
      required: ['pattern'],
      additionalProperties: false,
    },
  },
  needsApproval: false,
  async run(args, context) {
    const pattern = stringArgument(args, 'pattern');
    const root = resolveInWorkspace(context.workspace, stringArgument(args, 'path', '.'));
    const expression = searchExpression(pattern);
    const matches: string[] = [];
    const walk = async (directory: string): Promise<void> => {
      if (matches.length >= MAX_MATCHES || context.signal?.aborted) return;
      const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        const full = join(directory, entry.name);
        if (entry.isDirectory()) {
          if (!SKIPPED_DIRECTORIES.has(entry.name)) await walk(full);
        } else if (entry.isFile()) {
          const info = await stat(full);
          if (info.size > 2 * 1024 * 1024) continue;
          const text = await readFile(full, 'utf8');
          if (text.includes('\0')) continue;
          text.split('\n').forEach((line, index) => {
            if (matches.length < MAX_MATCHES && expression.test(line)) {
              matches.push(`${displayPath(context.workspace, full)}:${index + 1}: ${line}`);
            }
          });
        }
        if (matches.length >= MAX_MATCHES) return;
      }
    };
    const info = await stat(root).catch(() => null);
    if (!info) throw new ToolError(`no such path: ${displayPath(context.workspace, root)}`);
    await walk(root);
    if (!matches.length) return 'no matches';
    return limitOutput(
      matches.join('\n') + (matches.length >= MAX_MATCHES ? `\n[stopped at ${MAX_MATCHES} matches]` : ''),
    );
  },
};
