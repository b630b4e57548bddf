import { requestTarget } from '../runtime/runtime-request-target.js';
import { newSessionId } from '../core/ids.js';
import { redactUrl } from '../core/redact.js';
import type { AgentTurnOptions } from '../runtime/agent-turn.js';
import { nextBranchTitle } from '../storage/session-branch-title.js';
import { holdSessionLease } from '../storage/session-lease-hold.js';
import { listUserSessions } from '../storage/session-probe.js';
import { BUILTIN_TOOLS } from '../tools/tool-registry.js';
import type { CliContext } from './cli-context.js';
import { mcpReportLine } from './cli-mcp.js';
import type { McpServerReport } from '../mcp/mcp-servers.js';
import { formatTime, type styles } from './cli-output.js';
import { openRoute } from './cli-route.js';
import { getProvider } from '../providers/provider-registry.js';
import { EMULATOR_PREFIX } from '../runtime/runtime-route.js';
import { parseModelChoice } from './model-spec.js';
import { usageLine, type UsageTotals } from './chat-usage.js';
import { chatWorkspace, newSessionSystemPrompt, resumeTarget, WORKSPACE_KEY } from './chat-session-select.js';

/** Turn options the interactive loop carries between turns. */
export type TurnOptions = Omit<AgentTurnOptions, 'approve' | 'signal' | 'onEvent'>;

/** Slash commands, shown by /help and completed by Tab. */
export const SLASH_COMMANDS = [
  '/help',
  '/model',
  '/new',
  '/resume',
  '/retry',
  '/undo',
  '/sessions',
  '/tools',
  '/mcp',
  '/usage',
  '/reasoning',
  '/branch',
  '/compress',
  '/exit',
];

const HELP = `Commands:
  /help                   this list
  /model [ID|PROVIDER:ID] show the route, switch the model id, or switch provider and model
  /new                    start a new session
  /resume [ID|title]      switch to a stored session (no argument: list recent ones)
  /retry                  send the last message again (an unanswered one is not stored twice)
  /undo                   take back the last exchange: later turns no longer send it (it stays stored,
                          marked); files its tools changed stay changed on disk
  /sessions               recent sessions
  /tools                  the tools the model can call (built-in and MCP)
  /mcp                    the MCP servers of this chat: state, and the tools of each connected one
  /usage                  tokens and cost of this run
  /reasoning on|off       show reasoning text, or collapse it to one line
  /branch [title]         copy this session into a new one and continue there
  /compress               summarise the middle of the session to free context
  /exit                   leave (Ctrl-D works too)
Input: Enter sends; a line ending in \\ or Alt+Enter continues on a new line; a paste is one message.
Tab completes commands. Ctrl-C interrupts the current turn; at the prompt, press it twice to leave.
Shell commands: what one leaves running in the background (cmd &, setsid, nohup) is stopped when the turn ends.`;

/** A stored question no answer followed (a turn interrupted or killed first), with its turn key. */
export interface UnansweredTurn {
  text: string;
  turnKey: string | undefined;
}

/** What the loop shares with the slash commands. */
export interface SlashState {
  options: TurnOptions;
  context: CliContext;
  style: ReturnType<typeof styles>;
  totals: UsageTotals;
  /** Closes routes opened by /model PROVIDER:… when the chat ends. */
  closers: (() => Promise<void>)[];
  /** Shows the last turns of a session (after /resume). */
  /** Prints the session's last exchanges; resolves to its unanswered question, if any. */
  showRecent: (sessionId: string) => Promise<UnansweredTurn | null>;
  /** The directory `hermes chat` was started in (a resumed session may run elsewhere). */
  launchDirectory: string;
  /** The MCP servers started for this chat, as they ended up (`/mcp`). */
  mcpServers: readonly McpServerReport[];
}

/** Outcome: leave, nothing changed, resend the last message, or new turn options. */
export type SlashOutcome = 'exit' | 'ok' | 'retry' | TurnOptions;

/** Runs one slash command. */
export async function runSlashCommand(line: string, state: SlashState): Promise<SlashOutcome> {
  const [command, ...rest] = line.split(/\s+/);
  const argument = rest.join(' ').trim();
  const { options, context, style } = state;
  const out = (text: string) => process.stdout.write(`${text}\n`);
  switch (command) {
    case '/exit':
    case '/quit':
      return 'exit';
    case '/help':
      out(HELP);
      return 'ok';
    case '/reasoning':
      if (argument !== 'on' && argument !== 'off') out('usage: /reasoning on|off');
      else out(style.dim(`reasoning display ${argument}`));
      return 'ok';
    case '/model':
      return switchModel(argument, state);
    case '/retry':
      return 'retry';
    case '/undo': {
      // The messages stay stored, marked undone (docs/sessions.md); the next turn no longer sends them.
      const marked = await undoLastExchange(context, options);
      // Only the conversation is taken back: files its tools wrote or edited stay as they are.
      out(
        marked
          ? style.dim(
              `undid the last exchange (${marked} messages); it is no longer sent. Files its tools changed stay changed on disk (undo does not revert them).`,
            )
          : 'nothing to undo',
      );
      return 'ok';
    }
    case '/usage':
      out(`this run: ${state.totals.requests} requests · ${usageLine(state.totals)}`);
      return 'ok';
    case '/mcp':
      if (state.mcpServers.length === 0) {
        out(
          'no MCP servers in this chat (add mcp_servers to config.yaml, or a .mcp.json in the workspace; docs/mcp.md)',
        );
        return 'ok';
      }
      for (const report of state.mcpServers) {
        out(mcpReportLine(report));
        for (const tool of report.tools) out(style.dim(`    ${tool}`));
      }
      return 'ok';
    case '/tools':
      for (const tool of options.tools ?? BUILTIN_TOOLS) {
        const description = tool.definition.description.split('\n')[0] ?? '';
        out(`${style.bold(tool.definition.name.padEnd(12))} ${description}`);
      }
      return 'ok';
    case '/sessions':
      await listSessions(context, options.sessionId, out);
      return 'ok';
    case '/new': {
      // Like a first chat: stored with its first message, with the directory it starts in and the
      // system prompt for that directory (SPEC §18).
      const sessionId = newSessionId();
      out(style.dim(`new session ${sessionId} (stored with its first message)`));
      return {
        ...options,
        sessionId,
        newSession: { ...sessionRouteOf(options), modelConfig: { [WORKSPACE_KEY]: options.workspace } },
        systemPrompt: await newSessionSystemPrompt(context, options.workspace),
      };
    }
    case '/resume': {
      if (!argument) {
        await listSessions(context, options.sessionId, out);
        out(style.dim('resume one with /resume ID or /resume TITLE'));
        return 'ok';
      }
      const note = (text: string) => out(style.dim(text));
      const session = await resumeTarget(context.store(), argument, note);
      const workspace = chatWorkspace(session, state.launchDirectory, note);
      out(style.dim(`resumed ${session.id}${session.title ? ` (${session.title})` : ''}`));
      await state.showRecent(session.id);
      return { ...options, sessionId: session.id, workspace, newSession: undefined, systemPrompt: undefined };
    }
    case '/branch': {
      const store = context.store();
      const title = argument || (await nextBranchTitle(store, options.sessionId));
      const child = await store.forkSession(options.sessionId, { title });
      out(`Branched to ${child.title ?? child.id} (${child.id}); now continuing there.`);
      return { ...options, sessionId: child.id };
    }
    case '/compress': {
      const { compressSession } = await import('../runtime/compaction-run.js');
      const outcome = await compressSession(options, (text: string) => out(style.dim(text)));
      // In place the chat goes on in the same session; a child (in_place: false) takes over.
      if (outcome.sessionId !== options.sessionId) return { ...options, sessionId: outcome.sessionId };
      return 'ok';
    }
    default:
      out(`unknown command ${command}; /help lists the commands`);
      return 'ok';
  }
}

/**
 * `/undo` under the session's lease (SPEC §23.6: one writer per session; a busy session is an
 * error line naming the holder). A session is stored with its first message: before that there
 * is nothing to take back.
 */
async function undoLastExchange(context: CliContext, options: TurnOptions): Promise<number> {
  const store = context.store();
  if (!(await store.getSession(options.sessionId))) return 0;
  const held = await holdSessionLease(store, options.sessionId, { owner: options.leaseOwner ?? 'hermes chat' });
  try {
    return await store.undoLastExchange(options.sessionId);
  } finally {
    await held.release();
  }
}

function sessionRouteOf(options: TurnOptions) {
  return {
    provider: options.sessionRoute?.provider ?? options.route.provider,
    model: options.route.model,
    baseUrl: options.sessionRoute ? null : (options.route.baseUrl ?? null),
    api: options.route.api,
  };
}

/**
 * `/model`: no argument shows the route; `PROVIDER:MODEL` (or `PROVIDER` alone, its default
 * model) opens a new route, key and all; anything else is a model id on the same provider.
 */
async function switchModel(argument: string, state: SlashState): Promise<SlashOutcome> {
  const { options, style } = state;
  const out = (text: string) => process.stdout.write(`${text}\n`);
  if (!argument) {
    const route = options.route;
    const target = requestTarget(route, options.connectTo, options.sessionRoute);
    out(
      `${route.api} · ${route.provider} · ${route.model} · ${route.baseUrl === undefined ? '(default URL)' : redactUrl(route.baseUrl)}` +
        (target === undefined ? '' : ` · sent to ${target}`),
    );
    return 'ok';
  }
  const head = argument.split(':')[0] ?? '';
  const namesProvider = argument.startsWith(EMULATOR_PREFIX) || getProvider(head) !== undefined;
  if (!namesProvider) {
    out(style.dim(`model switched to ${argument}`));
    return { ...options, route: { ...options.route, model: argument } };
  }
  const choice = parseModelChoice(argument);
  const silent = { write: () => true } as unknown as NodeJS.WritableStream;
  const opened = await openRoute({ provider: choice.provider, model: choice.model }, state.context, null, silent);
  state.closers.push(() => opened.close());
  const target = requestTarget(opened.route, opened.connectTo, opened.sessionRoute);
  out(
    style.dim(
      `switched to ${opened.route.provider} · ${opened.route.model} (${opened.route.api})` +
        (target === undefined ? '' : ` · sent to ${target}`),
    ),
  );
  return {
    ...options,
    route: opened.route,
    apiKey: opened.apiKey,
    connectTo: opened.connectTo,
    sessionRoute: opened.sessionRoute,
  };
}

async function listSessions(context: CliContext, currentId: string, out: (text: string) => void): Promise<void> {
  const sessions = await listUserSessions(context.store(), 10);
  for (const session of sessions) {
    const marker = session.id === currentId ? '*' : ' ';
    out(
      `${marker} ${session.id}  ${formatTime(session.updatedAt)}  ${session.messageCount} msgs  ${session.title ?? ''}`,
    );
  }
}
