import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpConnectionSettings, McpServerSettings } from '../../src/config/config-mcp.js';
import { recordApprovals } from '../../src/mcp/mcp-approvals.js';
import { readProjectMcpFile } from '../../src/mcp/mcp-project-file.js';
import { McpServerPool, planMcpServers } from '../../src/mcp/mcp-servers.js';
import { executeToolCall } from '../../src/tools/tool-registry.js';
import { MAX_TOOL_OUTPUT } from '../../src/tools/tool-limits.js';
import { MCP_FIXTURE_SERVER, startMcpHttpFixture } from '../support/mcp-fixture.js';

/**
 * The MCP client against the fixture server (the same SDK) on stdio and Streamable HTTP: tools
 * listed and called through `executeToolCall`, the path every built-in tool takes, so approval,
 * deadlines and the output cap are the built-in ones; failures are tool errors, never throws.
 */

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function directory(prefix: string): string {
  const path = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(path, { recursive: true, force: true }));
  return path;
}

function server(name: string, connection: McpServerSettings['connection'], extra: Partial<McpServerSettings> = {}) {
  return {
    name,
    source: 'config.yaml',
    enabled: true,
    trust: true,
    startupTimeoutMs: 20_000,
    toolTimeoutMs: 20_000,
    connection,
    ...extra,
  } satisfies McpServerSettings;
}

const stdio = (args: string[] = [], env: Record<string, string> = {}): McpConnectionSettings => ({
  transport: 'stdio',
  command: process.execPath,
  args: [MCP_FIXTURE_SERVER, ...args],
  env,
});

async function startPool(servers: McpServerSettings[], workspace = directory('hermes-mcp-ws-')) {
  const plan = planMcpServers({ configServers: servers, workspace, home: directory('hermes-mcp-home-') });
  const pool = await McpServerPool.start(plan, { workspace, clientVersion: 'test' });
  cleanups.push(() => pool.close());
  return pool;
}

async function call(
  pool: McpServerPool,
  name: string,
  args: unknown,
  approve: (name: string) => Promise<boolean> = async () => true,
) {
  return executeToolCall(name, JSON.stringify(args), { workspace: tmpdir(), approve, tools: pool.tools() });
}

describe('MCP servers over stdio and Streamable HTTP', () => {
  it.each(['stdio', 'http'] as const)(
    '%s: tools are offered as mcp__<server>__<tool> with their schemas and run',
    async (kind) => {
      const connection =
        kind === 'stdio' ? stdio() : { transport: 'http' as const, url: (await httpFixture()).url, headers: {} };
      const pool = await startPool([server('fx', connection)]);
      expect(pool.reports).toMatchObject([{ name: 'fx', transport: kind, status: 'connected', detail: '' }]);
      const add = pool.tools().find((tool) => tool.definition.name === 'mcp__fx__add');
      expect(add?.definition.parameters).toMatchObject({
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      });
      expect(await call(pool, 'mcp__fx__add', { a: 2, b: 40 })).toEqual({ content: '42', isError: false });
      expect(await call(pool, 'mcp__fx__fail', {})).toEqual({
        content: 'error: the fixture tool failed on purpose',
        isError: true,
      });
      const invalid = await call(pool, 'mcp__fx__echo', { text: 7 });
      expect(invalid.isError).toBe(true);
      expect(invalid.content).toMatch(/^error: .*text/);
    },
  );

  it('a tool of an untrusted server asks first; a refusal is the built-in tools’ tool error', async () => {
    const pool = await startPool([server('fx', stdio(), { trust: false })]);
    const asked: string[] = [];
    const refused = await call(pool, 'mcp__fx__echo', { text: 'hi' }, async (name) => {
      asked.push(name);
      return false;
    });
    expect(asked).toEqual(['mcp__fx__echo']);
    expect(refused.content).toBe(
      'error: mcp__fx__echo was not approved by the user (approve interactively, or run with --yolo)',
    );
    expect(await call(pool, 'mcp__fx__echo', { text: 'hi' })).toEqual({ content: 'echo: hi', isError: false });
  });

  it('tool_timeout is the call’s deadline and the output cap is the built-in one', async () => {
    const pool = await startPool([server('fx', stdio(), { toolTimeoutMs: 300 })]);
    expect(await call(pool, 'mcp__fx__sleep', { ms: 30_000 })).toEqual({
      content: 'error: mcp__fx__sleep stopped at its 0.3 s time limit',
      isError: true,
    });
    const big = await call(pool, 'mcp__fx__big', { size: MAX_TOOL_OUTPUT + 10 });
    expect(big.content).toBe(
      `${'x'.repeat(MAX_TOOL_OUTPUT)}\n[output cut at ${MAX_TOOL_OUTPUT} characters of ${MAX_TOOL_OUTPUT + 10}]`,
    );
  });

  it('a stdio server sees its own env and the safe default environment, not this process’s API keys', async () => {
    process.env['HERMES_TEST_SECRET_KEY'] = 'sk-should-not-leak';
    cleanups.push(() => delete process.env['HERMES_TEST_SECRET_KEY']);
    const pool = await startPool([server('fx', stdio([], { GREETING: '${HERMES_TEST_SECRET_KEY:-x} hello' }))]);
    expect((await call(pool, 'mcp__fx__env', { name: 'HERMES_TEST_SECRET_KEY' })).content).toBe('(unset)');
    // A value the entry names explicitly (here through ${VAR}) is passed on purpose.
    expect((await call(pool, 'mcp__fx__env', { name: 'GREETING' })).content).toBe('sk-should-not-leak hello');
  });

  it('servers that cannot start are one line each and the others serve their tools', async () => {
    process.env['HERMES_TEST_UNSET'] = '';
    const pool = await startPool([
      server('good', stdio()),
      server('exits', stdio(['--fail-start'])),
      server('missing', { transport: 'stdio', command: 'hermes-no-such-command', args: [], env: {} }),
      server('nowhere', { transport: 'http', url: 'http://127.0.0.1:9/mcp', headers: {} }),
      server('needsvar', { transport: 'http', url: 'http://127.0.0.1:9/mcp', headers: { A: '${HERMES_TEST_UNSET}' } }),
      server('off', stdio(), { enabled: false }),
    ]);
    expect(pool.tools().map((tool) => tool.definition.name)).toContain('mcp__good__echo');
    expect(pool.notes()).toEqual([
      'mcp server "exits" failed to start: the server closed the connection before it was ready (stderr: fixture: cannot open the database)',
      'mcp server "missing" failed to start: command not found',
      expect.stringMatching(/^mcp server "nowhere" failed to start: fetch failed/),
      'mcp server "needsvar" failed to start: environment variable HERMES_TEST_UNSET is not set (referenced as ${HERMES_TEST_UNSET})',
    ]);
    expect(pool.reports.map((report) => [report.name, report.status])).toEqual([
      ['good', 'connected'],
      ['exits', 'failed'],
      ['missing', 'failed'],
      ['nowhere', 'failed'],
      ['needsvar', 'failed'],
      ['off', 'disabled'],
    ]);
  });

  it('a server that goes away mid-session makes its tools answer with a tool error', async () => {
    const fixture = await httpFixture();
    const pool = await startPool([server('web', { transport: 'http', url: fixture.url, headers: {} })]);
    await fixture.close();
    const outcome = await call(pool, 'mcp__web__echo', { text: 'anyone?' });
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toMatch(/^error: MCP server "web": /);
  });
});

describe('.mcp.json servers start once approved for the directory', () => {
  it('needs approval, then starts; a changed entry needs approving again; config.yaml wins a shared name', async () => {
    const workspace = directory('hermes-mcp-ws-');
    const home = directory('hermes-mcp-home-');
    const entry = { command: process.execPath, args: [MCP_FIXTURE_SERVER] };
    const write = (servers: object) =>
      writeFileSync(join(workspace, '.mcp.json'), JSON.stringify({ mcpServers: servers }));
    write({ project: entry, shared: entry });
    const shared = server('shared', null, { enabled: false });
    const plan = () => planMcpServers({ configServers: [shared], workspace, home });
    expect(plan().start).toEqual([]);
    expect(plan().reports.map((report) => [report.name, report.status, report.detail])).toEqual([
      ['shared', 'disabled', 'enabled: false in config.yaml'],
      ['project', 'needs-approval', 'not approved for this directory: hermes mcp approve project'],
    ]);
    recordApprovals(home, workspace, readProjectMcpFile(workspace).servers, true);
    expect(plan().start.map((started) => started.name)).toEqual(['project']);
    write({ project: { ...entry, args: [MCP_FIXTURE_SERVER, '--other'] } });
    expect(plan().start).toEqual([]);
    expect(
      planMcpServers({ configServers: [], workspace, home, startUnapproved: true }).start.map((s) => s.name),
    ).toEqual(['project']);
  });
});

async function httpFixture() {
  const fixture = await startMcpHttpFixture();
  cleanups.push(() => fixture.close());
  return fixture;
}
