import { constants, existsSync, realpathSync } from 'node:fs';
import { mkdir, open, readlink, realpath, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, isAbsolute, relative, sep } from 'node:path';
import { ToolError } from './tool-types.js';

/**
 * Opening workspace paths without a check-then-use gap. A path is checked by name first
 * (`resolveInWorkspace`, for a clear error), but a check by name proves nothing about what a
 * later open by name reaches: another process can swap a directory for a symlink to the outside
 * in between. So every tool opens the path ONCE and checks the handle it got:
 *
 * - Linux: `/proc/self/fd/N` names the opened file itself, so its target is the real path of
 *   what was opened, and a path below `/proc/self/fd/N/` resolves inside that open directory
 *   (like `openat`): new files and directories are created, and directory entries opened, in a
 *   directory whose handle was checked, one component at a time with `O_NOFOLLOW`.
 * - Elsewhere: the handle's device and inode must equal those of the checked real path, so the
 *   handle is that inside file (a swap makes them differ and the call is refused). Creating a
 *   new file there still goes by name (there is no `openat` in Node): docs/architecture.md
 *   "Security" states that remaining gap.
 */

/** Where this process's open descriptors are named, when the system has it. */
const FD_DIRECTORY = '/proc/self/fd';

let descriptorPaths: boolean | undefined;

/** True when `/proc/self/fd/N` names open descriptors (Linux). */
function hasDescriptorPaths(): boolean {
  descriptorPaths ??= process.platform === 'linux' && existsSync(FD_DIRECTORY);
  return descriptorPaths;
}

/** True when `candidate` is `root` itself or below it. */
export function isInside(root: string, candidate: string): boolean {
  const inside = relative(root, candidate);
  return inside === '' || (!inside.startsWith(`..${sep}`) && inside !== '..' && !isAbsolute(inside));
}

/** The workspace and its real path (it may sit below a symlink: macOS `/tmp` → `/private/tmp`). */
function workspaceRoots(workspace: string): string[] {
  try {
    const real = realpathSync(workspace);
    return real === workspace ? [workspace] : [real, workspace];
  } catch {
    return [workspace];
  }
}

/** The path of an open handle's own file, below which paths resolve inside it (Linux). */
export function handlePath(handle: FileHandle): string {
  return `${FD_DIRECTORY}/${handle.fd}`;
}

/**
 * Throws unless `handle` (opened from `path`) is a file or directory inside the workspace: the
 * check is on what was opened, never on the name again.
 */
async function verifyHandle(workspace: string, handle: FileHandle, path: string, shown: string): Promise<void> {
  const roots = workspaceRoots(workspace);
  let inside: boolean;
  if (hasDescriptorPaths()) {
    const opened = await readlink(handlePath(handle));
    inside = roots.some((root) => isInside(root, opened));
  } else {
    const [opened, real] = await Promise.all([handle.stat(), realpath(path).catch(() => null)]);
    const named = real === null ? null : await stat(real).catch(() => null);
    inside =
      real !== null &&
      named !== null &&
      named.dev === opened.dev &&
      named.ino === opened.ino &&
      roots.some((root) => isInside(root, real));
  }
  if (!inside) {
    throw new ToolError(
      `path "${shown}" led outside the workspace (${workspace}) when it was opened (a symlink changed under it); ` +
        'tools only touch files inside it',
    );
  }
}

/** Runs `use` on `handle` and closes it, whatever happens. */
async function closing<T>(handle: FileHandle, use: () => Promise<T>): Promise<T> {
  try {
    return await use();
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

/** How an entry is opened. */
export type OpenPurpose = 'read' | 'write' | 'directory';

const FLAGS: Record<OpenPurpose, number> = {
  // O_NONBLOCK: opening a FIFO must not hang the turn (the caller refuses what is not a regular file).
  read: constants.O_RDONLY | constants.O_NONBLOCK,
  // A final symlink is never written through; a file with more hard links is refused by the caller.
  write: constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
  directory: constants.O_RDONLY | constants.O_DIRECTORY,
};

/**
 * Opens the existing entry at `path` (already resolved inside the workspace) once and checks
 * the handle is inside; null when nothing is there. Errors other than a missing entry and
 * the outside check come back as Node raised them (callers word them).
 */
export async function openInWorkspace(
  workspace: string,
  path: string,
  shown: string,
  purpose: OpenPurpose,
): Promise<FileHandle | null> {
  let handle: FileHandle;
  try {
    handle = await open(path, FLAGS[purpose]);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return closing(handle, async () => {
    await verifyHandle(workspace, handle, path, shown);
    return handle;
  });
}

/**
 * Opens the entry `name` of the open, checked directory `directory` without following a
 * symlink: what it opens is inside `directory`, so no further check is needed. Null when the
 * entry is a symlink, gone, or (for a directory) not one. Linux only; elsewhere `fallbackPath`
 * is opened and checked like {@link openInWorkspace}.
 */
export async function openEntry(
  workspace: string,
  directory: FileHandle,
  name: string,
  fallbackPath: string,
  purpose: 'read' | 'directory',
): Promise<FileHandle | null> {
  if (!hasDescriptorPaths()) {
    return openInWorkspace(workspace, fallbackPath, fallbackPath, purpose).catch(() => null);
  }
  try {
    return await open(`${handlePath(directory)}/${name}`, FLAGS[purpose] | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
}

/** The path a directory handle's entries are listed from: the handle itself on Linux. */
export function directoryListingPath(directory: FileHandle, fallbackPath: string): string {
  return hasDescriptorPaths() ? handlePath(directory) : fallbackPath;
}

/**
 * Creates the file at `path` (resolved inside the workspace, not existing yet) and its missing
 * parent directories, each inside the directory handle checked before it, and returns the new
 * file's handle, open for writing. `O_EXCL | O_NOFOLLOW`: an entry that appeared meanwhile is
 * never opened through.
 */
export async function createInWorkspace(workspace: string, path: string, shown: string): Promise<FileHandle> {
  const create = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  if (!hasDescriptorPaths()) {
    await mkdir(dirname(path), { recursive: true });
    const handle = await open(path, create, 0o666);
    return closing(handle, async () => {
      await verifyHandle(workspace, handle, path, shown);
      return handle;
    });
  }
  // The nearest existing ancestor, opened and checked; then one component at a time below it.
  const missing: string[] = [];
  let ancestor = dirname(path);
  let directory = await openInWorkspace(workspace, ancestor, shown, 'directory');
  while (directory === null) {
    if (dirname(ancestor) === ancestor) throw new ToolError(`cannot create ${shown}: no existing parent directory`);
    missing.unshift(basename(ancestor));
    ancestor = dirname(ancestor);
    directory = await openInWorkspace(workspace, ancestor, shown, 'directory');
  }
  for (const name of missing) {
    const parent: FileHandle = directory;
    const child = `${handlePath(parent)}/${name}`;
    directory = await closing(parent, async () => {
      await mkdir(child).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      const opened = await open(child, FLAGS.directory | constants.O_NOFOLLOW);
      await parent.close();
      return opened;
    });
  }
  const parent = directory;
  return closing(parent, async () => {
    const handle = await open(`${handlePath(parent)}/${basename(path)}`, create, 0o666);
    await parent.close();
    return handle;
  });
}
