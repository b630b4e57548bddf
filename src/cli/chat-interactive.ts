import { randomUUID } from 'node:crypto';
import { HermesError } from '../core/errors.js';
import type { Message } from '../core/message.js';
import { runAgentTurn, TurnInterruptedError, type AgentEvent } from '../runtime/agent-turn.js';
import { unansweredQuestion } from '../runtime/runtime-history.js';
import { TURN_KEY } from '../runtime/runtime-turn-key.js';
import type { SessionRecord } from '../storage/session-store.js';
import type { McpServerReport } from '../mcp/mcp-servers.js';
import type { ToolPreview } from '../tools/tool-types.js';
import type { CliContext } from './cli-context.js';
import { styleDiff, styles, useColor } from './cli-output.js';
import { markdownStream } from './chat-markdown.js';
import { createRenderer } from './chat-render.js';
import { createChatInput, type ChatInput } from './chat-input.js';
import {
  runSlashCommand,
  SLASH_COMMANDS,
  type SlashState,
  type TurnOptions,
  type UnansweredTurn,
} from './chat-slash.js';
import { addUsage, emptyTotals, mergeTotals, usageLine } from './chat-usage.js';

/** How many exchanges a resumed session shows before the prompt. */
const RECENT_TURNS = 3;

/**
 * The interactive chat loop: a prompt with completion and multi-line input, streamed answers
 * (markdown rendered on a terminal), reasoning dimmed (toggle with /reasoning), a usage line
 * after each turn, approvals asked inline (yes / no / always for this session), Ctrl-C
 * interrupting only the running turn.
 */
export async function runInteractiveChat(
  session: SessionRecord | null,
  baseOptions: TurnOptions,
  context: CliContext,
  yolo: boolean,
  mcpServers: readonly McpServerReport[] = [],
): Promise<void> {
  const style = styles(useColor(process.stdout));
  let current: AbortController | null = null;
  const input = createChatInput({
    completions: () => SLASH_COMMANDS,
    onInterrupt: () => {
      if (!current) return false;
      current.abort();
      return true;
    },
    out: process.stdout,
  });
  let showReasoning = true;
  const alwaysAllowed = new Set<string>();
  const state: SlashState = {
    options: { ...baseOptions },
    context,
    style,
    totals: emptyTotals(),
    closers: [],
    showRecent: (sessionId) => showRecentTurns(context, sessionId, style),
    launchDirectory: process.cwd(),
    mcpServers,
  };
  /** The last message sent and its turn key: /retry sends it again under the same key. */
  let last: { text: string; turnKey: string; answered: boolean } | null = null;
  process.stdout.write(
    style.dim(
      `session ${state.options.sessionId} · ${state.options.route.provider} · ${state.options.route.model} · /help for commands\n`,
    ),
  );
  if (session && session.messageCount > 0) {
    const unanswered = await state.showRecent(session.id);
    // A turn interrupted or killed before its answer left its question: /retry sends it (stored once).
    if (unanswered) {
      last = { text: unanswered.text, turnKey: unanswered.turnKey ?? randomUUID(), answered: false };
      process.stdout.write(style.yellow('your last message got no answer (interrupted): /retry sends it again\n'));
    }
  }
  try {
    for (;;) {
      const message = await input.ask(style.bold('you> '));
      if (message === null) break; // Ctrl-D, end of piped input, or a second Ctrl-C
      if (!message.trim()) continue;
      let text = message;
      let turnKey: string = randomUUID();
      if (message.trim().startsWith('/') && !message.includes('\n')) {
        const line = message.trim();
        let outcome;
        try {
          outcome = await runSlashCommand(line, state);
        } catch (error) {
          if (!(error instanceof HermesError)) throw error;
          process.stdout.write(style.red(`error: ${error.message}\n`));
          continue;
        }
        if (outcome === 'exit') break;
        if (line.startsWith('/reasoning')) showReasoning = line.endsWith('on');
        // /retry after /undo would send the taken-back message again; it starts afresh instead.
        if (line === '/undo') last = null;
        if (typeof outcome === 'object') state.options = outcome;
        if (outcome !== 'retry') continue;
        if (!last) {
          process.stdout.write('nothing to retry yet\n');
          continue;
        }
        // An unanswered message is continued under its key (stored once); an answered one is sent anew.
        text = last.text;
        if (!last.answered) turnKey = last.turnKey;
      }
      current = new AbortController();
      const answered = await runTurn(text, turnKey, current.signal);
      last = { text, turnKey, answered };
      current = null;
    }
  } finally {
    input.close();
    for (const close of state.closers) await close();
    // A session is stored with its first message; one that never got one offers nothing to resume.
    if (await context.store().getSession(state.options.sessionId)) {
      process.stdout.write(style.dim(`resume with: hermes chat --resume ${state.options.sessionId}\n`));
    }
  }

  async function runTurn(text: string, turnKey: string, signal: AbortSignal): Promise<boolean> {
    const markdown = process.stdout.isTTY ? markdownStream(process.stdout, process.stdout.columns || 80) : null;
    const answer = markdown ? ({ write: (chunk: string) => markdown.write(chunk) } as NodeJS.WritableStream) : null;
    const renderer = createRenderer({
      answer: answer ?? process.stdout,
      notes: process.stdout,
      showReasoning: () => showReasoning,
    });
    const turn = emptyTotals();
    const route = state.options.route;
    const onEvent = (event: AgentEvent) => {
      // Rendered markdown is flushed before anything else is written below it.
      if (markdown && (event.type === 'finish' || event.type === 'error' || event.type === 'tool-call-start')) {
        markdown.end();
      }
      renderer.onEvent(event);
      if (event.type === 'finish' && event.usage) addUsage(turn, event.usage, route.provider, route.model);
    };
    const started = performance.now();
    let answered = false;
    try {
      const result = await runAgentTurn(text, {
        ...state.options,
        turnKey,
        signal,
        onEvent,
        approve: yolo ? async () => true : (name, args, preview) => askApproval(input, name, args, preview),
      });
      // Automatic compaction moves the conversation to a child session.
      if (result.sessionId !== state.options.sessionId)
        state.options = { ...state.options, sessionId: result.sessionId };
      answered = true;
    } catch (error) {
      renderer.stop();
      markdown?.end();
      if (error instanceof TurnInterruptedError) process.stdout.write(style.yellow(`\n${error.message}\n`));
      else if (error instanceof HermesError) process.stdout.write(style.red(`\nerror: ${error.message}\n`));
      else throw error;
      process.stdout.write(style.dim('/retry sends the message again\n'));
    } finally {
      markdown?.end();
    }
    mergeTotals(state.totals, turn);
    if (turn.requests > 0) {
      process.stdout.write(style.dim(`${usageLine(turn, performance.now() - started)}\n`));
    }
    return answered;
  }

  async function askApproval(
    reader: ChatInput,
    name: string,
    args: Record<string, unknown>,
    preview: ToolPreview,
  ): Promise<boolean> {
    if (alwaysAllowed.has(name)) return true;
    // A file change shows its unified diff, then asks about its summary line.
    if (preview.diff) process.stdout.write(styleDiff(preview.diff, style));
    const question = preview.diff ? `${name}: ${preview.summary}` : `${name} ${JSON.stringify(args)}`;
    // One key answers on a terminal (y, n, a; Enter is the default, no); piped input answers with a line.
    const answer = (await reader.askKey(`allow ${question}? [y]es / [N]o / [a]lways for this session `)) ?? '';
    if (/^a(lways)?$/.test(answer)) {
      alwaysAllowed.add(name);
      process.stdout.write(style.dim(`${name} is allowed for the rest of this session\n`));
      return true;
    }
    return /^y(es)?$/.test(answer);
  }
}

/** Prints the last exchanges of a session (user text and answers, tool calls as one line). */
/**
 * Prints the session's last exchanges; returns its unanswered question (`unansweredQuestion`),
 * with the turn key it was stored under, or null.
 */
async function showRecentTurns(
  context: CliContext,
  sessionId: string,
  style: ReturnType<typeof styles>,
): Promise<UnansweredTurn | null> {
  const messages = await context.store().listMessages(sessionId);
  const userIndexes = messages.flatMap((message, index) => (message.role === 'user' ? [index] : []));
  const from = userIndexes.at(-RECENT_TURNS) ?? messages.length;
  if (from > 0 && from < messages.length) process.stdout.write(style.dim('…\n'));
  for (const message of messages.slice(from)) {
    const line = recentLine(message);
    if (line)
      process.stdout.write(message.role === 'user' ? `${style.bold('you> ')}${line}\n` : style.dim(`${line}\n`));
  }
  const unanswered = unansweredQuestion(messages);
  if (!unanswered || typeof unanswered.content !== 'string') return null;
  const key = (unanswered as unknown as Record<string, unknown>)[TURN_KEY];
  return { text: unanswered.content, turnKey: typeof key === 'string' ? key : undefined };
}

function recentLine(message: Message): string | null {
  const text = typeof message.content === 'string' ? message.content : '';
  const clip = (value: string) => (value.length > 400 ? `${value.slice(0, 400)}…` : value);
  if (message.role === 'user') return clip(text);
  if (message.role === 'assistant') {
    const calls = (message.tool_calls ?? []).map((call) => `→ ${call.function.name}`).join(' ');
    return clip([text.trim(), calls].filter(Boolean).join(' ')) || null;
  }
  return null;
}
