import { createInterface, type Interface } from 'node:readline';
import { HermesError } from '../core/errors.js';
import { runAgentTurn, TurnInterruptedError, type AgentTurnOptions } from '../runtime/agent-turn.js';
import type { SessionRecord } from '../storage/session-store.js';
import type { CliContext } from './cli-context.js';
import type { ToolPreview } from '../tools/tool-types.js';
import { formatTime, styleDiff, styles, useColor } from './cli-output.js';
import { createRenderer } from './chat-render.js';
import { nextBranchTitle } from '../storage/session-branch-title.js';

/** Slash commands, shown by /help. */
const HELP = `Commands:
  /help                 this list
  /model [ID]           show the route, or switch the model id (same provider)
  /sessions             recent sessions
  /reasoning on|off     show reasoning text, or collapse it to one line
  /branch [title]       copy this session into a new one and continue there
  /compress             summarise the middle of the session to free context
  /exit                 leave (Ctrl-D works too)
Ctrl-C interrupts the current turn; the session stays valid.`;

/**
 * The interactive chat loop: a prompt, streamed answers, reasoning dimmed (toggle with
 * /reasoning), approvals asked inline, Ctrl-C interrupting only the running turn.
 */
export async function runInteractiveChat(
  session: SessionRecord,
  baseOptions: Omit<AgentTurnOptions, 'approve' | 'signal' | 'onEvent'>,
  context: CliContext,
  yolo: boolean,
): Promise<void> {
  const style = styles(useColor(process.stdout));
  const readline = createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal: Boolean(process.stdin.isTTY),
  });
  const ask = lineReader(readline);
  let showReasoning = true;
  let options = { ...baseOptions };
  let current: AbortController | null = null;
  readline.on('SIGINT', () => {
    if (current) current.abort();
    else readline.close();
  });
  process.stdout.write(
    style.dim(`session ${session.id} · ${options.route.provider} · ${options.route.model} · /help for commands\n`),
  );
  try {
    for (;;) {
      const input = await ask(style.bold('you> '));
      if (input === null) break; // Ctrl-D / end of piped input
      const line = input.trim();
      if (!line) continue;
      if (line.startsWith('/')) {
        const outcome = await runSlashCommand(line, { options, context, style });
        if (outcome === 'exit') break;
        if (typeof outcome === 'object') options = outcome;
        if (line.startsWith('/reasoning')) showReasoning = line.endsWith('on');
        continue;
      }
      current = new AbortController();
      const renderer = createRenderer({
        answer: process.stdout,
        notes: process.stdout,
        showReasoning: () => showReasoning,
      });
      try {
        const turn = await runAgentTurn(line, {
          ...options,
          signal: current.signal,
          onEvent: renderer.onEvent,
          approve: yolo ? async () => true : (name, args, preview) => askApproval(ask, name, args, preview),
        });
        // Automatic compaction moves the conversation to a child session.
        if (turn.sessionId !== options.sessionId) options = { ...options, sessionId: turn.sessionId };
      } catch (error) {
        renderer.stop();
        if (error instanceof TurnInterruptedError) process.stdout.write(style.yellow(`\n${error.message}\n`));
        else if (error instanceof HermesError) process.stdout.write(style.red(`\nerror: ${error.message}\n`));
        else throw error;
      } finally {
        current = null;
      }
    }
  } finally {
    readline.close();
    process.stdout.write(style.dim(`resume with: hermes chat --resume ${options.sessionId}\n`));
  }
}

type TurnOptions = Omit<AgentTurnOptions, 'approve' | 'signal' | 'onEvent'>;

async function runSlashCommand(
  line: string,
  state: { options: TurnOptions; context: CliContext; style: ReturnType<typeof styles> },
): Promise<'exit' | 'ok' | TurnOptions> {
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
      if (!argument) {
        out(
          `${options.route.api} · ${options.route.provider} · ${options.route.model} · ${options.route.baseUrl ?? '(default URL)'}`,
        );
        return 'ok';
      }
      out(style.dim(`model switched to ${argument}`));
      return { ...options, route: { ...options.route, model: argument } };
    case '/sessions': {
      const sessions = await context.store().listSessions({ limit: 10 });
      for (const session of sessions) {
        const marker = session.id === options.sessionId ? '*' : ' ';
        out(
          `${marker} ${session.id}  ${formatTime(session.updatedAt)}  ${session.messageCount} msgs  ${session.title ?? ''}`,
        );
      }
      return 'ok';
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
      if (outcome.childSessionId) return { ...options, sessionId: outcome.childSessionId };
      return 'ok';
    }
    default:
      out(`unknown command ${command}; /help lists the commands`);
      return 'ok';
  }
}

async function askApproval(
  ask: LineReader,
  name: string,
  args: Record<string, unknown>,
  preview: ToolPreview,
): Promise<boolean> {
  // A file change shows its unified diff, then asks about its summary line.
  if (preview.diff) process.stdout.write(styleDiff(preview.diff, styles(useColor(process.stdout))));
  const question = preview.diff ? `${name}: ${preview.summary}` : `${name} ${JSON.stringify(args)}`;
  const answer = await ask(`allow ${question}? [y/N] `);
  return /^y(es)?$/i.test((answer ?? '').trim());
}

/** Prompts and resolves with the next line, or null once input ended. */
type LineReader = (prompt: string) => Promise<string | null>;

/**
 * Lines are queued as they arrive, so piped input (a script feeding several lines at once) loses
 * none while a turn is running; a TTY gets readline's prompt and line editing.
 */
function lineReader(readline: Interface): LineReader {
  const queued: string[] = [];
  const waiting: ((line: string | null) => void)[] = [];
  let closed = false;
  readline.on('line', (line) => {
    const waiter = waiting.shift();
    if (waiter) waiter(line);
    else queued.push(line);
  });
  readline.on('close', () => {
    closed = true;
    for (const waiter of waiting.splice(0)) waiter(null);
  });
  return (prompt) => {
    // prompt() on a closed readline throws ERR_USE_AFTER_CLOSE on Node 24 (20 and 22 ignore it):
    // once piped input has ended, the lines still queued get their prompt written directly.
    if (closed) process.stdout.write(prompt);
    else {
      readline.setPrompt(prompt);
      readline.prompt();
    }
    const line = queued.shift();
    if (line !== undefined) {
      if (!process.stdin.isTTY) process.stdout.write(`${line}\n`);
      return Promise.resolve(line);
    }
    if (closed) return Promise.resolve(null);
    return new Promise((resolve) => waiting.push(resolve));
  };
}
