import type { Readable } from 'node:stream';
import type { Client } from '@modelcontextprotocol/client';
import type { McpConnectionSettings, McpServerSettings } from '../config/config-mcp.js';
import { expandConnection } from './mcp-expand.js';

/**
 * One live MCP server: the SDK client over its transport (a child process on stdio, or Streamable
 * HTTP), the tools it listed at start, and its last stderr lines for failure messages. The SDK is
 * loaded when a server is first started, so commands that start none never load it.
 */

/** A tool a server listed: its own name, description and input JSON schema. */
export interface McpListedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** A started server. */
export interface McpConnection {
  readonly settings: McpServerSettings;
  /** The tools it listed when it first started (what the model is offered for the whole chat). */
  readonly tools: readonly McpListedTool[];
  /** False once the server went away (the process exited, the HTTP session ended). */
  readonly connected: boolean;
  /** Why the server went away, when it did. */
  readonly closedReason: string | undefined;
  /** The client of the running server (a new one after {@link McpConnection.restart}). */
  readonly client: Client;
  /**
   * Starts a server that went away again, within its startup timeout, at most
   * {@link MAX_RESTARTS} times per process; throws an Error of one line when it cannot.
   */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** How often a server that went away is started again before its tools stay failed. */
export const MAX_RESTARTS = 3;

/** One run of a server process (or HTTP session). */
interface LiveServer {
  client: Client;
  tools: McpListedTool[];
  readonly connected: boolean;
  readonly closedReason: string | undefined;
  close(): Promise<void>;
}

/** Most stderr text kept from a stdio server (its last lines explain a failed start). */
const STDERR_TAIL = 4096;

/** Where a stdio server runs and what it inherits. */
export interface McpStartOptions {
  /** Directory a stdio server starts in unless its entry names a `cwd`. */
  workspace: string;
  /** The environment `${VAR}` references are read from (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** The version Hermes names itself with in the MCP `initialize` handshake (client name `hermes`). */
  clientVersion: string;
}

/**
 * Starts a server and lists its tools within its startup timeout; throws an Error whose message
 * is one line saying why it could not start.
 */
export async function connectMcpServer(settings: McpServerSettings, options: McpStartOptions): Promise<McpConnection> {
  let live = await startServer(settings, options);
  const tools = live.tools;
  let restarts = 0;
  let closed = false;
  let restarting: Promise<void> | undefined;
  return {
    settings,
    tools,
    get connected() {
      return live.connected;
    },
    get closedReason() {
      return live.closedReason;
    },
    get client() {
      return live.client;
    },
    restart() {
      // Calls that find the server gone at the same time share one restart (one new process).
      restarting ??= (async () => {
        if (closed) throw new Error('closed');
        if (live.connected) return;
        if (restarts >= MAX_RESTARTS) throw new Error(`it went away again after ${MAX_RESTARTS} restarts`);
        restarts += 1;
        await live.close();
        const started = await startServer(settings, options);
        // Closed while it started: the new server goes too.
        if (closed) await started.close();
        else live = started;
      })().finally(() => {
        restarting = undefined;
      });
      return restarting;
    },
    async close() {
      closed = true;
      await restarting?.catch(() => undefined);
      await live.close();
    },
  };
}

async function startServer(settings: McpServerSettings, options: McpStartOptions): Promise<LiveServer> {
  if (!settings.connection) throw new Error('no command or url configured');
  const connection = expandConnection(settings.connection, options.env ?? process.env);
  const [{ Client: ClientClass }, transportHandle] = await Promise.all([
    import('@modelcontextprotocol/client'),
    openTransport(connection, options.workspace),
  ]);
  const client = new ClientClass({ name: 'hermes', version: options.clientVersion });
  let closedReason: string | undefined;
  let connected = false;
  client.onclose = () => {
    if (connected) closedReason ??= `the server closed the connection${transportHandle.stderrNote()}`;
    connected = false;
  };
  const timeout = settings.startupTimeoutMs;
  try {
    await client.connect(transportHandle.transport, { timeout });
    connected = true;
    const listed = await client.listTools(undefined, { timeout });
    const tools = listed.tools.map((tool) => ({
      name: tool.name,
      description: tool.description ?? '',
      inputSchema: tool.inputSchema as Record<string, unknown>,
    }));
    return {
      tools,
      client,
      get connected() {
        return connected;
      },
      get closedReason() {
        return closedReason;
      },
      async close() {
        connected = false;
        closedReason ??= 'closed';
        await client.close().catch(() => undefined);
      },
    };
  } catch (error) {
    connected = false;
    await client.close().catch(() => undefined);
    throw new Error(`${startFailure(error, timeout)}${transportHandle.stderrNote()}`, { cause: error });
  }
}

interface TransportHandle {
  transport: Parameters<Client['connect']>[0];
  /** ` (stderr: LAST LINE)` when a stdio server wrote something, else ''. */
  stderrNote(): string;
}

async function openTransport(connection: McpConnectionSettings, workspace: string): Promise<TransportHandle> {
  if (connection.transport === 'http') {
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const transport = new StreamableHTTPClientTransport(new URL(connection.url), {
      requestInit: { headers: connection.headers },
    });
    return { transport, stderrNote: () => '' };
  }
  const { StdioClientTransport, getDefaultEnvironment } = await import('@modelcontextprotocol/client/stdio');
  // The server gets the SDK's safe default environment (PATH, HOME, …) plus its own `env`: API
  // keys in this process's environment never reach it unless its entry names them.
  const transport = new StdioClientTransport({
    command: connection.command,
    args: connection.args,
    env: { ...getDefaultEnvironment(), ...connection.env },
    cwd: connection.cwd ?? workspace,
    stderr: 'pipe',
  });
  let tail = '';
  (transport.stderr as Readable | null)?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL);
  });
  return {
    transport,
    stderrNote() {
      const last = tail.trim().split('\n').at(-1)?.trim() ?? '';
      return last === '' ? '' : ` (stderr: ${last.length > 200 ? `${last.slice(0, 200)}…` : last})`;
    },
  };
}

/** One line for a failed start: the cause as the user can act on it. */
function startFailure(error: unknown, timeoutMs: number): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'command not found';
  if (code === 'EACCES') return 'command is not executable';
  const message = error instanceof Error ? error.message : String(error);
  if (/timed? ?out/i.test(message)) return `no answer within ${timeoutMs / 1000} s (startup_timeout)`;
  if (/connection closed/i.test(message)) return 'the server closed the connection before it was ready';
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  const detail = cause?.code ?? cause?.message;
  const line = (message.split('\n')[0] ?? '').trim();
  return detail && !line.includes(detail) ? `${line} (${detail})` : line || 'failed';
}
