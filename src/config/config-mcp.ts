import type { RawMcpServer } from './config-schema.js';

/** How long a server may take to start and list its tools before it counts as failed (docs/mcp.md). */
export const DEFAULT_MCP_STARTUP_TIMEOUT_MS = 30_000;
/** How long one MCP tool call may run: the built-in tools' default deadline. */
export const DEFAULT_MCP_TOOL_TIMEOUT_MS = 60_000;

/** Where a server is reached: a child process on stdio, or a Streamable HTTP endpoint. */
export type McpConnectionSettings =
  | { transport: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string | undefined }
  | { transport: 'http'; url: string; headers: Record<string, string> };

/** One MCP server, from `config.yaml` `mcp_servers` or the workspace's `.mcp.json` (docs/mcp.md). */
export interface McpServerSettings {
  name: string;
  source: 'config.yaml' | '.mcp.json';
  /** False: listed but not started. */
  enabled: boolean;
  /** True: its tools run without approval (config.yaml only). */
  trust: boolean;
  startupTimeoutMs: number;
  toolTimeoutMs: number;
  /** Null for a config.yaml entry that only switches off a `.mcp.json` server (`{enabled: false}`). */
  connection: McpConnectionSettings | null;
  /** `tools.include` / `tools.exclude` (config.yaml only): which of its tools are offered. */
  toolFilter?: McpToolFilter | undefined;
}

/** Tool names (as the server lists them) or `*` patterns: offered when included and not excluded. */
export interface McpToolFilter {
  /** Absent: every tool. */
  include?: string[] | undefined;
  exclude?: string[] | undefined;
}

/** `mcp_servers` of config.yaml as settings, in file order (values are expanded when a server starts). */
export function mcpServersFromConfig(raw: Record<string, RawMcpServer> | undefined): McpServerSettings[] {
  return Object.entries(raw ?? {}).map(([name, server]) => ({
    name,
    source: 'config.yaml',
    enabled: server.enabled ?? true,
    trust: server.trust ?? false,
    startupTimeoutMs: secondsToMs(server.startup_timeout) ?? DEFAULT_MCP_STARTUP_TIMEOUT_MS,
    toolTimeoutMs: secondsToMs(server.tool_timeout) ?? DEFAULT_MCP_TOOL_TIMEOUT_MS,
    connection: connectionOf(server),
    ...(server.tools ? { toolFilter: { include: server.tools.include, exclude: server.tools.exclude } } : {}),
  }));
}

function connectionOf(server: RawMcpServer): McpConnectionSettings | null {
  if (server.command !== undefined) {
    return {
      transport: 'stdio',
      command: server.command,
      args: server.args ?? [],
      env: server.env ?? {},
      ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
    };
  }
  if (server.url !== undefined) return { transport: 'http', url: server.url, headers: server.headers ?? {} };
  return null;
}

function secondsToMs(seconds: number | undefined): number | undefined {
  return seconds === undefined ? undefined : Math.round(seconds * 1000);
}
