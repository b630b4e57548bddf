import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import type { CliContext } from './cli-context.js';
import { printJson } from './cli-output.js';

/** Registers `hermes mcp list|approve|revoke`. */
export function registerMcpCommand(program: Command): void {
  const mcp = program
    .command('mcp')
    .description(
      'MCP servers whose tools the agent offers as mcp__<server>__<tool>: config.yaml mcp_servers and this directory’s .mcp.json.',
    )
    .addHelpText(
      'after',
      `
config.yaml:
  mcp_servers:
    files: { command: npx, args: [-y, "@modelcontextprotocol/server-filesystem", "."] }
    search: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer \${SEARCH_TOKEN}" }, trust: true }

.mcp.json (Claude Code's project format) is read from the current directory; its servers start only
once approved (hermes mcp approve), or under --yolo. Every MCP tool call asks for approval unless its
config.yaml server says trust: true. See docs/mcp.md.`,
    );

  mcp
    .command('list')
    .description('Start each server once and show its transport, state and tool count, or why it did not start.')
    .option(
      '--json',
      'print {"servers": [{"name", "source", "transport", "status", "detail", "tools"}], "file_error"?}',
    )
    .option('--tools', 'also list each server’s tools by the names the model sees')
    .action(async (flags: { json?: boolean; tools?: boolean }) => {
      await withContext(async (context) => {
        const { probeMcpServers, mcpReportLine } = await import('./cli-mcp.js');
        const { reports, fileError } = await probeMcpServers(context.config, {
          home: context.home,
          workspace: process.cwd(),
        });
        if (flags.json) {
          printJson({ servers: reports, ...(fileError ? { file_error: fileError } : {}) });
          return;
        }
        if (fileError) process.stdout.write(`${fileError}\n`);
        if (reports.length === 0) {
          process.stdout.write('no MCP servers (add mcp_servers to config.yaml, or a .mcp.json here; docs/mcp.md)\n');
          return;
        }
        for (const report of reports) {
          process.stdout.write(`${mcpReportLine(report)}\n`);
          if (flags.tools) for (const tool of report.tools) process.stdout.write(`    ${tool}\n`);
        }
      });
    });

  for (const [verb, approved] of [
    ['approve', true],
    ['revoke', false],
  ] as const) {
    mcp
      .command(`${verb} [names...]`)
      .description(
        approved
          ? 'Allow .mcp.json servers of this directory to start (all of them when no name is given).'
          : 'Withdraw the approval of .mcp.json servers of this directory (all of them when no name is given).',
      )
      .action(async (names: string[]) => {
        await withContext(async (context) => {
          const [{ readProjectMcpFile }, { recordApprovals }] = await Promise.all([
            import('../mcp/mcp-project-file.js'),
            import('../mcp/mcp-approvals.js'),
          ]);
          const project = readProjectMcpFile(process.cwd());
          if (project.error) throw new UsageError(project.error);
          const known = project.servers.map((server) => server.name);
          if (known.length === 0) throw new UsageError(`no usable servers in ${project.path}`);
          const unknown = names.filter((name) => !known.includes(name));
          if (unknown.length) {
            throw new UsageError(`${project.path} has no server "${unknown[0]}" (servers: ${known.join(', ')})`);
          }
          const chosen = project.servers.filter((server) => names.length === 0 || names.includes(server.name));
          recordApprovals(context.home, process.cwd(), chosen, approved);
          for (const server of chosen) {
            const connection = server.connection;
            const what =
              connection?.transport === 'http'
                ? connection.url
                : [connection?.command ?? '', ...(connection?.args ?? [])].join(' ');
            process.stdout.write(`${approved ? 'approved' : 'revoked'} ${server.name}: ${what}\n`);
          }
        });
      });
  }
}

async function withContext(body: (context: CliContext) => Promise<void>): Promise<void> {
  await (await import('./cli-context.js')).withCliContext(body);
}
