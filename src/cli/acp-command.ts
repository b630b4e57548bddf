import { Option, type Command } from 'commander';
import { Readable, Writable } from 'node:stream';
import type { OpenedAcpSession } from '../acp/acp-agent.js';
import type { RouteFlags } from '../runtime/runtime-route.js';
import type { SessionRecord } from '../storage/session-store.js';
import type { CliContext } from './cli-context.js';
import { addRouteOptions } from './cli-route-options.js';
import { CLI_VERSION } from './cli-version.js';

/** Flags of `hermes acp`. */
interface AcpFlags extends RouteFlags {
  yolo?: boolean;
  stream?: boolean;
  reasoning?: boolean;
  /** Hidden: serve the continuity probe's sessions (acp-probe.ts). */
  probe?: boolean;
}

/** Registers `hermes acp`. */
export function registerAcpCommand(program: Command): void {
  const acp = program
    .command('acp')
    .description(
      'Run Hermes as an Agent Client Protocol agent over stdin/stdout, for Zed and other ACP editors: each ACP session is a Hermes session',
    );
  addRouteOptions(acp)
    .option('--yolo', 'approve every tool call without asking the editor')
    .option('--no-stream', 'ask for non-streaming responses')
    .option('--no-reasoning', 'do not request reasoning from the model')
    .addOption(new Option('--probe').hideHelp())
    .addHelpText(
      'after',
      `
The editor starts this command and speaks ACP on its stdin and stdout; nothing else is written
there (notes go to stderr, the log to $HERMES_HOME/logs). Tools that need approval ask the editor
(session/request_permission); files are read and written through the editor when it offers to.
session/load replays a stored session (hermes sessions list) and continues it with its reasoning.
With no provider configured (config.yaml, flags) it runs offline against the built-in emulator.

Zed (settings.json):
  "agent_servers": {
    "Hermes": { "command": "hermes", "args": ["acp"], "env": {} }
  }

See docs/acp.md.`,
    )
    .action(async (flags: AcpFlags) => {
      const { withCliContext } = await import('./cli-context.js');
      await withCliContext((context) => runAcp(flags, context));
    });
}

async function runAcp(flags: AcpFlags, context: CliContext): Promise<void> {
  const acp = await import('@agentclientprotocol/sdk');
  const { createAcpAgent } = await import('../acp/acp-agent.js');
  const { followCompaction } = await import('./chat-session-select.js');
  const store = context.store();
  const note = (line: string) => process.stderr.write(`hermes: ${line}\n`);
  const agent = createAcpAgent({
    store,
    logger: context.logger(),
    version: CLI_VERSION,
    yolo: Boolean(flags.yolo),
    async findSession(id) {
      const session = await store.getSession(id);
      return session ? followCompaction(store, session, note) : null;
    },
    openSession: async (session, cwd, sessionId) => {
      if (!flags.probe) return openAcpSession(flags, context, { session, cwd, sessionId, note });
      const { openAcpProbeSession } = await import('./acp-probe.js');
      return openAcpProbeSession(flags, context, { session, cwd });
    },
  });
  const stream = acp.ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const connection = agent.app.connect(stream);
  const stop = () => connection.close();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  try {
    await connection.closed;
  } finally {
    process.removeListener('SIGTERM', stop);
    process.removeListener('SIGINT', stop);
    await agent.close();
  }
}

/** A session's route, MCP servers and turn settings, as `hermes chat` opens them. */
async function openAcpSession(
  flags: AcpFlags,
  context: CliContext,
  target: { session: SessionRecord | null; cwd: string; sessionId: string; note: (line: string) => void },
): Promise<OpenedAcpSession> {
  const { chatWorkspace, newSessionSystemPrompt } = await import('./chat-session-select.js');
  const { chatTurnOptions } = await import('./chat-turn-options.js');
  const { openRoute } = await import('./cli-route.js');
  const { startMcpServers } = await import('./cli-mcp.js');
  const { session } = target;
  // A loaded session runs its tools where it started, as a resumed chat does.
  const workspace = chatWorkspace(session, target.cwd, target.note);
  const opened = await openRoute(flags, context, session);
  try {
    const systemPrompt =
      session && session.messageCount > 0 ? undefined : await newSessionSystemPrompt(context, workspace);
    const mcp = await startMcpServers(context.config, {
      home: context.home,
      workspace,
      yolo: Boolean(flags.yolo),
      notes: target.note,
      logger: context.logger(),
    });
    const options = chatTurnOptions(context, {
      session,
      sessionId: target.sessionId,
      workspace,
      opened,
      mcp,
      systemPrompt,
      leaseOwner: 'hermes acp',
      flags,
    });
    return {
      workspace,
      options,
      close: async () => {
        await mcp.close();
        await opened.close();
      },
    };
  } catch (error) {
    await opened.close();
    throw error;
  }
}
