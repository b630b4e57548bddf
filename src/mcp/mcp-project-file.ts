import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEFAULT_MCP_STARTUP_TIMEOUT_MS,
  DEFAULT_MCP_TOOL_TIMEOUT_MS,
  type McpConnectionSettings,
  type McpServerSettings,
} from '../config/config-mcp.js';

/**
 * The workspace's `.mcp.json`, in Claude Code's project format, read unchanged:
 * `{"mcpServers": {"<name>": {"type"?: "stdio", "command", "args"?, "env"?} | {"type": "http", "url", "headers"?}}}`.
 * Keys Hermes does not use are ignored (the file belongs to every tool that reads it); a server
 * whose entry Hermes cannot use is listed with the reason, so it fails alone, in one line.
 */

/** The file name, at the workspace root. */
export const PROJECT_MCP_FILE = '.mcp.json';

/** A `.mcp.json` server that cannot be started as written, and why. */
export interface UnusableProjectServer {
  name: string;
  reason: string;
}

/** What `.mcp.json` holds: servers, entries that cannot be used, or one line saying the file is unreadable. */
export interface ProjectMcpFile {
  path: string;
  servers: McpServerSettings[];
  unusable: UnusableProjectServer[];
  /** Set when the file exists but is not a valid `.mcp.json` (then there are no servers). */
  error?: string;
}

/** Reads `<workspace>/.mcp.json`; no file gives no servers. */
export function readProjectMcpFile(workspace: string): ProjectMcpFile {
  const path = join(workspace, PROJECT_MCP_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { path, servers: [], unusable: [] };
    return { path, servers: [], unusable: [], error: `cannot read ${path}: ${(error as Error).message}` };
  }
  return parseProjectMcpFile(text, path);
}

/** Parses `.mcp.json` text (exported for tests). */
export function parseProjectMcpFile(text: string, path = PROJECT_MCP_FILE): ProjectMcpFile {
  const empty = { path, servers: [], unusable: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { ...empty, error: `${path}: not valid JSON: ${(error as Error).message}` };
  }
  const entries = isRecord(parsed) ? parsed['mcpServers'] : undefined;
  if (entries === undefined && isRecord(parsed)) return empty;
  if (!isRecord(entries)) return { ...empty, error: `${path}: "mcpServers" must be an object of servers by name` };
  const servers: McpServerSettings[] = [];
  const unusable: UnusableProjectServer[] = [];
  for (const [name, entry] of Object.entries(entries)) {
    const connection = connectionOf(entry);
    if (typeof connection === 'string') {
      unusable.push({ name, reason: connection });
      continue;
    }
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(name)) {
      unusable.push({ name, reason: 'an MCP server name is 1-32 letters, digits, "_" or "-"' });
      continue;
    }
    servers.push({
      name,
      source: '.mcp.json',
      enabled: true,
      // Project servers come with the repository: their tools always ask (docs/mcp.md).
      trust: false,
      startupTimeoutMs: DEFAULT_MCP_STARTUP_TIMEOUT_MS,
      toolTimeoutMs: DEFAULT_MCP_TOOL_TIMEOUT_MS,
      connection,
    });
  }
  return { path, servers, unusable };
}

/** The connection an entry describes, or why it cannot be used. */
function connectionOf(entry: unknown): McpConnectionSettings | string {
  if (!isRecord(entry)) return 'the entry is not an object';
  const type = entry['type'] ?? (entry['url'] !== undefined ? 'http' : 'stdio');
  if (type === 'sse') return 'type "sse" (the deprecated HTTP+SSE transport) is not supported: use "http"';
  if (type === 'stdio') {
    const command = entry['command'];
    if (typeof command !== 'string' || command === '') return '"command" must be a non-empty string';
    const args = entry['args'] ?? [];
    if (!Array.isArray(args) || !args.every((arg) => typeof arg === 'string'))
      return '"args" must be a list of strings';
    const env = stringRecord(entry['env'], 'env');
    if (typeof env === 'string') return env;
    const cwd = entry['cwd'];
    if (cwd !== undefined && typeof cwd !== 'string') return '"cwd" must be a string';
    return { transport: 'stdio', command, args: args as string[], env, ...(cwd === undefined ? {} : { cwd }) };
  }
  if (type === 'http') {
    const url = entry['url'];
    if (typeof url !== 'string' || url === '') return '"url" must be a non-empty string';
    const headers = stringRecord(entry['headers'], 'headers');
    if (typeof headers === 'string') return headers;
    return { transport: 'http', url, headers };
  }
  return `unknown "type" ${JSON.stringify(type)} (expected "stdio" or "http")`;
}

function stringRecord(value: unknown, key: string): Record<string, string> | string {
  if (value === undefined) return {};
  if (!isRecord(value) || !Object.values(value).every((item) => typeof item === 'string')) {
    return `"${key}" must be an object of strings`;
  }
  return value as Record<string, string>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
