import { existsSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { ToolError } from './tool-types.js';

/**
 * Resolves `path` against the workspace and refuses anything outside it, including through
 * symlinks (the nearest existing ancestor is resolved with realpath).
 */
export function resolveInWorkspace(workspace: string, path: string): string {
  if (path.includes('\0')) throw new ToolError('invalid path');
  const absolute = resolve(workspace, path);
  let existing = absolute;
  while (!existsSync(existing)) {
    const parent = dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  const real = resolve(realpathSync(existing), relative(existing, absolute));
  const inside = relative(workspace, real);
  if (inside === '' || (!inside.startsWith(`..${sep}`) && inside !== '..' && !isAbsolute(inside))) return real;
  throw new ToolError(`path "${path}" is outside the workspace (${workspace}); tools only touch files inside it`);
}

/** The path relative to the workspace, for display. */
export function displayPath(workspace: string, absolute: string): string {
  return relative(workspace, absolute) || '.';
}
