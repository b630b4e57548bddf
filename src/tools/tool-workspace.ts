import { lstatSync, realpathSync } from 'node:fs';
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
