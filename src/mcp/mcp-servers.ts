import type { McpServerSettings } from '../config/config-mcp.js';
import type { Tool } from '../tools/tool-types.js';
import { isApproved } from './mcp-approvals.js';
import { connectMcpServer, type McpConnection, type McpStartOptions } from './mcp-connection.js';
import { readProjectMcpFile } from './mcp-project-file.js';
import { MAX_MCP_TOOLS, mcpServerTools, type McpServerTools } from './mcp-tools.js';

/**
 * The MCP servers of one process (docs/mcp.md): config.yaml `mcp_servers` plus the workspace's
 * `.mcp.json` (config.yaml wins on a shared name), started together when a chat or the gateway
 * starts and closed when it ends. A server that cannot start is one line and the others go on.
 */

/** Where a server stands. */
export type McpServerStatus = 'connected' | 'failed' | 'disabled' | 'needs-approval' | 'invalid';

/** One server, as `hermes mcp list`, `doctor` and the start-up notes describe it. */
export interface McpServerReport {
  name: string;
  source: McpServerSettings['source'];
  transport: 'stdio' | 'http' | null;
  status: McpServerStatus;
  /** Why it is not connected (one line), or '' when it is. */
  detail: string;
  /** Hermes names of its tools (`mcp__<server>__<tool>`), when connected. */
  tools: string[];
  /** Set when the cap ({@link MAX_MCP_TOOLS}) left some of its tools out: how many it listed, how many are offered. */
  capped?: { listed: number; offered: number };
}

/** The servers to start and the ones that will not start, with why. */
export interface McpServerPlan {
  start: McpServerSettings[];
  reports: McpServerReport[];
  /** One line when `.mcp.json` exists but cannot be read. */
  fileError?: string;
}

/** What {@link planMcpServers} reads. */
export interface McpPlanOptions {
  /** config.yaml `mcp_servers`. */
  configServers: readonly McpServerSettings[];
  /** The workspace root: its `.mcp.json` is read. */
  workspace: string;
  /** `$HERMES_HOME`, where approvals of `.mcp.json` servers are kept. */
  home: string;
  /** Start `.mcp.json` servers that were not approved (`--yolo`). */
  startUnapproved?: boolean;
}

/** Decides which servers start, without starting any. */
export function planMcpServers(options: McpPlanOptions): McpServerPlan {
  const project = readProjectMcpFile(options.workspace);
  const plan: McpServerPlan = { start: [], reports: [], ...(project.error ? { fileError: project.error } : {}) };
  const configured = new Set(options.configServers.map((server) => server.name));
  const report = (server: McpServerSettings, status: McpServerStatus, detail: string) =>
    plan.reports.push({
      name: server.name,
      source: server.source,
      transport: server.connection?.transport ?? null,
      status,
      detail,
      tools: [],
    });
  for (const server of options.configServers) {
    if (!server.enabled || !server.connection) report(server, 'disabled', 'enabled: false in config.yaml');
    else plan.start.push(server);
  }
  for (const unusable of project.unusable) {
    if (configured.has(unusable.name)) continue;
    plan.reports.push({
      name: unusable.name,
      source: '.mcp.json',
      transport: null,
      status: 'invalid',
      detail: unusable.reason,
      tools: [],
    });
  }
  for (const server of project.servers) {
    if (configured.has(server.name)) continue;
    if (options.startUnapproved || isApproved(options.home, options.workspace, server)) plan.start.push(server);
    else report(server, 'needs-approval', `not approved for this directory: hermes mcp approve ${server.name}`);
  }
  return plan;
}

/** Started servers and the tools they offer. */
export class McpServerPool {
  private constructor(
    private readonly connections: McpConnection[],
    private readonly offered: Tool[],
    /** Every planned server, in plan order: connected, failed, or not started and why. */
    readonly reports: McpServerReport[],
    /** The `.mcp.json` read error, when there was one. */
    readonly fileError: string | undefined,
  ) {}

  /** Starts every server of the plan at once; each failure becomes its report, never a throw. */
  static async start(plan: McpServerPlan, options: McpStartOptions): Promise<McpServerPool> {
    const started = await Promise.all(
      plan.start.map(async (settings) => {
        try {
          return { settings, connection: await connectMcpServer(settings, options) };
        } catch (error) {
          return { settings, failure: (error as Error).message };
        }
      }),
    );
    const connections: McpConnection[] = [];
    const offered: Tool[] = [];
    const reports: McpServerReport[] = started.map((outcome) => {
      const base = {
        name: outcome.settings.name,
        source: outcome.settings.source,
        transport: outcome.settings.connection?.transport ?? null,
      };
      if (!outcome.connection) return { ...base, status: 'failed', detail: outcome.failure ?? 'failed', tools: [] };
      connections.push(outcome.connection);
      // Servers share the cap in plan order: config.yaml's first, then .mcp.json's.
      const chosen = mcpServerTools(outcome.connection, Math.max(0, MAX_MCP_TOOLS - offered.length));
      offered.push(...chosen.tools);
      const report: McpServerReport = {
        ...base,
        status: 'connected',
        detail: offeredDetail(chosen),
        tools: chosen.tools.map((tool) => tool.definition.name),
      };
      if (chosen.capped > 0) report.capped = { listed: chosen.listed, offered: chosen.tools.length };
      return report;
    });
    return new McpServerPool(connections, offered, [...reports, ...plan.reports], plan.fileError);
  }

  /** The tools of every connected server, in server order. */
  tools(): Tool[] {
    return this.offered;
  }

  /** One line per server that will not serve tools in this process (the chat goes on without it). */
  notes(): string[] {
    const lines = this.fileError ? [this.fileError] : [];
    for (const report of this.reports) {
      if (report.capped) lines.push(capNotice(report.name, report.capped));
      if (report.status === 'failed') lines.push(`mcp server "${report.name}" failed to start: ${report.detail}`);
      else if (report.status === 'needs-approval' || report.status === 'invalid') {
        lines.push(`mcp server "${report.name}" (${report.source}) not started: ${report.detail}`);
      }
    }
    return lines;
  }

  /** Closes every server (a stdio server's process ends). */
  async close(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.close()));
  }
}

/** The one line a server whose tools the cap cut gets (docs/mcp.md "Tools"). */
function capNotice(name: string, capped: { listed: number; offered: number }): string {
  return (
    `mcp server "${name}" offers ${capped.listed} tools: only its first ${capped.offered} are offered ` +
    `(at most ${MAX_MCP_TOOLS} MCP tools per request; providers refuse or degrade with more); ` +
    `choose them with mcp_servers.${name}.tools.include or exclude in config.yaml`
  );
}

/** A connected server's detail: what it listed that is not offered, and why. */
function offeredDetail(chosen: McpServerTools): string {
  const parts: string[] = [];
  if (chosen.filteredOut > 0) {
    parts.push(`${chosen.filteredOut} of ${chosen.listed} left out by tools.include/exclude`);
  }
  if (chosen.capped > 0) parts.push(`${chosen.capped} left out by the ${MAX_MCP_TOOLS}-tool cap`);
  if (chosen.skipped.length) parts.push(`skipped ${chosen.skipped.join(', ')}: their names collide after cleaning`);
  return parts.join('; ');
}
