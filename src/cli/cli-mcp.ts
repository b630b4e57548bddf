import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { HermesConfig } from '../config/config-load.js';
import type { Logger } from '../logging/logger.js';
import type { McpServerReport } from '../mcp/mcp-servers.js';
import type { Tool } from '../tools/tool-types.js';
import { CLI_VERSION } from './cli-version.js';

/** The MCP servers of a chat or gateway process, started. */
export interface StartedMcp {
  /** Built-in tools plus every connected server's tools; undefined when no server is configured (the built-ins apply). */
  tools: readonly Tool[] | undefined;
  /** Each server's state after starting (`/mcp`); empty when none is configured. */
  reports: readonly McpServerReport[];
  close(): Promise<void>;
}

/** One server's line, as `hermes mcp list` and `/mcp` print it: name, transport, state, tools or why not. */
export function mcpReportLine(report: McpServerReport): string {
  const state = report.status === 'needs-approval' ? 'needs approval' : report.status;
  const tools =
    report.status === 'connected' ? `${report.tools.length} tool${report.tools.length === 1 ? '' : 's'}` : '';
  const detail = [tools, report.detail].filter(Boolean).join('; ');
  return `${report.name.padEnd(16)} ${(report.transport ?? '-').padEnd(5)} ${state.padEnd(14)} ${detail}  (${report.source})`;
}

/**
 * Starts the MCP servers of config.yaml and the workspace's `.mcp.json` before the first turn
 * (docs/mcp.md): all at once, each within its startup timeout. A server that cannot start is one
 * line on `notes` and the chat goes on without it. With no server configured nothing is loaded.
 */
export async function startMcpServers(
  config: HermesConfig,
  options: { home: string; workspace: string; yolo: boolean; notes: (line: string) => void; logger?: Logger },
): Promise<StartedMcp> {
  // No server anywhere: nothing of the MCP client is loaded.
  if (config.mcpServers.length === 0 && !existsSync(join(options.workspace, '.mcp.json'))) {
    return { tools: undefined, reports: [], close: async () => undefined };
  }
  const { planMcpServers, McpServerPool } = await import('../mcp/mcp-servers.js');
  const plan = planMcpServers({
    configServers: config.mcpServers,
    workspace: options.workspace,
    home: options.home,
    startUnapproved: options.yolo,
  });
  if (plan.start.length === 0 && plan.reports.length === 0 && !plan.fileError) {
    return { tools: undefined, reports: [], close: async () => undefined };
  }
  const pool = await McpServerPool.start(plan, { workspace: options.workspace, clientVersion: CLI_VERSION });
  for (const line of pool.notes()) options.notes(line);
  for (const report of pool.reports) {
    options.logger?.info(
      { mcp_server: report.name, source: report.source, status: report.status, tools: report.tools.length },
      report.detail || `mcp server ${report.status}`,
    );
  }
  const { BUILTIN_TOOLS } = await import('../tools/tool-registry.js');
  return { tools: [...BUILTIN_TOOLS, ...pool.tools()], reports: pool.reports, close: () => pool.close() };
}

/** Every server's report after starting each once (`hermes mcp list`, `doctor`); each is closed again. */
export async function probeMcpServers(
  config: HermesConfig,
  options: { home: string; workspace: string },
): Promise<{ reports: McpServerReport[]; fileError: string | undefined }> {
  const { planMcpServers, McpServerPool } = await import('../mcp/mcp-servers.js');
  const plan = planMcpServers({ configServers: config.mcpServers, workspace: options.workspace, home: options.home });
  if (plan.start.length === 0) return { reports: plan.reports, fileError: plan.fileError };
  const pool = await McpServerPool.start(plan, { workspace: options.workspace, clientVersion: CLI_VERSION });
  await pool.close();
  return { reports: pool.reports, fileError: pool.fileError };
}
