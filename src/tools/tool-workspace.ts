import { lstatSync, realpathSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { ToolError } from './tool-types.js';
import { createInWorkspace, isInside, openInWorkspace } from './tool-workspace-open.js';

/** True when something (a file, a directory or a symlink, even a dangling one) exists at `path`. */
function entryExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Resolves `path` against the workspace and refuses anything outside it, including through
 * symlinks: the nearest existing ancestor is resolved with realpath. Existence is tested with
 * lstat, so a dangling symlink counts as existing; realpath then fails on it and the path is
 * refused — otherwise `write_file` would follow the link and create its target outside the
 * workspace. This check is by name, for a clear error: the tools then open the path once and
 * check the handle they got (`tool-workspace-open.ts`), so a symlink swapped in between is
 * refused too.
 */
export function resolveInWorkspace(workspace: string, path: string): string {
  if (path.includes('\0')) throw new ToolError('invalid path');
  const absolute = resolve(workspace, path);
  let existing = absolute;
  while (!entryExists(existing)) {
    const parent = dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  let realExisting: string;
  try {
    realExisting = realpathSync(existing);
  } catch {
    throw new ToolError(
      `path "${path}" goes through a dangling symlink; tools only follow links that stay in the workspace`,
    );
  }
  const real = resolve(realExisting, relative(existing, absolute));
  // The workspace itself may sit below a symlink (macOS /tmp → /private/tmp); compare real paths.
  const realWorkspace = entryExists(workspace) ? realpathSync(workspace) : workspace;
  if (isInside(realWorkspace, real) || isInside(workspace, real)) return real;
  throw new ToolError(`path "${path}" is outside the workspace (${workspace}); tools only touch files inside it`);
}

/** The path relative to the workspace, for display. */
export function displayPath(workspace: string, absolute: string): string {
  const shown = relative(workspace, absolute);
  if (shown.startsWith('..') && entryExists(workspace)) return relative(realpathSync(workspace), absolute) || '.';
  return shown || '.';
}

/**
 * The bytes of a workspace file (already resolved by {@link resolveInWorkspace}), read through
 * one handle checked inside the workspace; null when it does not exist. Refuses directories,
 * FIFOs and devices (reading them could block) and files past `maxBytes`.
 */
export async function readWorkspaceFile(
  workspace: string,
  path: string,
  shown: string,
  options: { maxBytes: number; signal?: AbortSignal | undefined; what: string },
): Promise<Buffer | null> {
  const handle = await openInWorkspace(workspace, path, shown, 'read').catch((error: unknown) => {
    if (error instanceof ToolError) throw error;
    throw new ToolError(`cannot read ${shown}: ${(error as Error).message}`);
  });
  if (!handle) return null;
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw new ToolError(`${shown} is a directory`);
    if (!info.isFile()) throw new ToolError(`${shown} is not a regular file`);
    if (info.size > options.maxBytes) {
      throw new ToolError(
        `${shown} is ${info.size} bytes; files over ${options.maxBytes} bytes are not ${options.what}`,
      );
    }
    return await handle.readFile(options.signal ? { signal: options.signal } : {});
  } finally {
    await handle.close();
  }
}

/**
 * Opens an existing workspace file for writing (checked inside, see `openInWorkspace`) without
 * following a final symlink and without blocking on a FIFO, and refuses a file with more than
 * one hard link: its other names may be outside the workspace (a pnpm store, a file linked in
 * from elsewhere), and writing through this one would change them too.
 */
async function openExistingForWrite(workspace: string, path: string, shown: string): Promise<FileHandle | null> {
  let handle: FileHandle | null;
  try {
    handle = await openInWorkspace(workspace, path, shown, 'write');
  } catch (error) {
    if (error instanceof ToolError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new ToolError(`${shown} is a symlink; tools write only regular files`);
    if (code === 'EISDIR') throw new ToolError(`${shown} is a directory`);
    if (code === 'ENXIO') throw new ToolError(`${shown} is not a regular file`);
    throw new ToolError(`cannot write ${shown}: ${(error as Error).message}`);
  }
  if (!handle) return null;
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new ToolError(`${shown} is not a regular file`);
    if (info.nlink > 1) {
      throw new ToolError(
        `refusing to write ${shown}: it has ${info.nlink} hard links, so the write would also change the same file ` +
          'under its other names, which may be outside the workspace',
      );
    }
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Writes `content` (text as UTF-8, or exact bytes) to a workspace file (already resolved by
 * {@link resolveInWorkspace}), creating it and its parent directories when missing. An existing
 * file keeps its inode and mode; see {@link openExistingForWrite} for what is refused. Every
 * byte goes through a handle checked inside the workspace.
 */
export async function writeWorkspaceFile(
  workspace: string,
  path: string,
  content: string | Uint8Array,
  shown: string,
): Promise<void> {
  let handle = await openExistingForWrite(workspace, path, shown);
  if (!handle) {
    try {
      handle = await createInWorkspace(workspace, path, shown);
    } catch (error) {
      if (error instanceof ToolError) throw error;
      throw new ToolError(`cannot create ${shown}: ${(error as Error).message}`);
    }
  }
  try {
    await handle.truncate(0);
    await handle.writeFile(content, typeof content === 'string' ? 'utf8' : undefined);
  } finally {
    await handle.close();
  }
}
