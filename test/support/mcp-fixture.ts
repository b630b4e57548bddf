import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { scaledTimeout } from './timeouts.js';

/**
 * The MCP fixture server (`test/fixtures/mcp/mcp-fixture-server.mjs`, written with the MCP SDK):
 * tools `echo {text}`, `add {a, b}`, `fail`, `env {name}`, `big {size}`, `sleep {ms}`; stdio by
 * default, Streamable HTTP on 127.0.0.1 with `--http`, and `--fail-start` for a server that exits
 * before it is ready.
 */
export const MCP_FIXTURE_SERVER = resolve(process.cwd(), 'test/fixtures/mcp/mcp-fixture-server.mjs');

/** The fixture serving Streamable HTTP on an ephemeral loopback port. */
export interface McpHttpFixture {
  /** `http://127.0.0.1:PORT/mcp`. */
  url: string;
  close(): Promise<void>;
}

/** Starts the fixture with `--http` and waits for its URL. */
export function startMcpHttpFixture(): Promise<McpHttpFixture> {
  const child = spawn(process.execPath, [MCP_FIXTURE_SERVER, '--http'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return new Promise((done, fail) => {
    let output = '';
    const timer = setTimeout(() => fail(new Error(`MCP fixture did not start: ${output}`)), scaledTimeout(15_000));
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output);
      if (!match?.[1]) return;
      clearTimeout(timer);
      done({
        url: match[1],
        async close() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', () => {
      clearTimeout(timer);
      fail(new Error(`MCP fixture exited: ${output}`));
    });
  });
}

/** A config.yaml `mcp_servers` entry running the fixture on stdio (extra lines are indented under it). */
export function stdioFixtureEntry(name: string, extra: string[] = [], args: string[] = []): string {
  return [
    `  ${name}:`,
    `    command: ${JSON.stringify(process.execPath)}`,
    `    args: ${JSON.stringify([MCP_FIXTURE_SERVER, ...args])}`,
    ...extra.map((line) => `    ${line}`),
  ].join('\n');
}
