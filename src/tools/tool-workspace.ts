import { constants, lstatSync, realpathSync } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { ToolError } from './tool-types.js';

/** True when something (a file, a directory or a symlink, even a dangling one) exists at `path`. */
function entryExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** True when `candidate` is `root` itself or below it. */
function isInside(root: string, candidate: string): boolean {
  const inside = relative(root, candidate);
  return inside === '' || (!inside.startsWith(`..${sep}`) && inside !== '..' && !isAbsolute(inside));
}

/**
 * Resolves `path` against the workspace and refuses anything outside it, including through
 * symlinks: the nearest existing ancestor is resolved with realpath. Existence is tested with
 * lstat, so a dangling symlink counts as existing; realpath then fails on it and the path is
 * refused — otherwise `write_file` would follow the link and create its target outside the
 * workspace.
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
 * Opens an existing workspace file for writing without following a final symlink and without
 * blocking on a FIFO, and refuses a file with more than one hard link: its other names may be
 * outside the workspace (a pnpm store, a file linked in from elsewhere), and writing through
 * this one would change them too.
 */
async function openExistingForWrite(path: string, shown: string): Promise<FileHandle | null> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') throw new ToolError(`${shown} is a symlink; tools write only regular files`);
    if (code === 'EISDIR') throw new ToolError(`${shown} is a directory`);
    if (code === 'ENXIO') throw new ToolError(`${shown} is not a regular file`);
    throw new ToolError(`cannot write ${shown}: ${(error as Error).message}`);
  }
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
 * Writes `content` to a workspace file (already resolved by {@link resolveInWorkspace}),
 * creating it and its parent directories when missing. An existing file keeps its inode and
 * mode; see {@link openExistingForWrite} for what is refused.
 */
export async function writeWorkspaceFile(path: string, content: string, shown: string): Promise<void> {
  let handle = await openExistingForWrite(path, shown);
  if (!handle) {
    await mkdir(dirname(path), { recursive: true });
    try {
      handle = await open(
        path,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o666,
      );
    } catch (error) {
      throw new ToolError(`cannot create ${shown}: ${(error as Error).message}`);
    }
  }
  try {
    await handle.truncate(0);
    await handle.writeFile(content, 'utf8');
  } finally {
    await handle.close();
  }
}
