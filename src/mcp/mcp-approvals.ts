import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HermesError } from '../core/errors.js';
import type { McpServerSettings } from '../config/config-mcp.js';

/**
 * Which `.mcp.json` servers the user allowed to start. A project file arrives with the repository,
 * and a stdio server is a program it runs, so Hermes starts one only after `hermes mcp approve`
 * (or under `--yolo`), as Claude Code asks before using a project's servers. The approval holds for
 * one workspace directory and one exact server entry: a changed command, argument, URL or header
 * needs approving again. Kept in `$HERMES_HOME/mcp-approvals.json` (mode 0600).
 */

/** The approvals file in a Hermes home. */
export function approvalsPath(home: string): string {
  return join(home, 'mcp-approvals.json');
}

interface ApprovalsDocument {
  /** workspace directory → server name → fingerprint of the approved entry. */
  workspaces: Record<string, Record<string, string>>;
}

/** Fingerprint of a server entry as written (before `${VAR}` expansion, so a rotated token needs no re-approval). */
export function serverFingerprint(server: McpServerSettings): string {
  return createHash('sha256').update(JSON.stringify(server.connection)).digest('hex');
}

function readApprovals(home: string): ApprovalsDocument {
  try {
    const parsed = JSON.parse(readFileSync(approvalsPath(home), 'utf8')) as Partial<ApprovalsDocument>;
    return { workspaces: typeof parsed.workspaces === 'object' && parsed.workspaces ? parsed.workspaces : {} };
  } catch {
    // No file (or a damaged one) approves nothing; the next approval writes a good one.
    return { workspaces: {} };
  }
}

/** True when this server entry was approved for this workspace. */
export function isApproved(home: string, workspace: string, server: McpServerSettings): boolean {
  return readApprovals(home).workspaces[workspace]?.[server.name] === serverFingerprint(server);
}

/** Records approval of `servers` for `workspace` (or withdraws it with `approved: false`). */
export function recordApprovals(
  home: string,
  workspace: string,
  servers: readonly McpServerSettings[],
  approved: boolean,
): void {
  const document = readApprovals(home);
  const entries = { ...document.workspaces[workspace] };
  for (const server of servers) {
    if (approved) entries[server.name] = serverFingerprint(server);
    else delete entries[server.name];
  }
  if (Object.keys(entries).length > 0) document.workspaces[workspace] = entries;
  else delete document.workspaces[workspace];
  const path = approvalsPath(home);
  try {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, path);
  } catch (error) {
    throw new HermesError(`cannot write ${path}: ${(error as Error).message}`);
  }
}
