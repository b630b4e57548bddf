import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { isReasoningEffort, REASONING_EFFORTS, type ReasoningEffort } from '../core/reasoning-options.js';
import type { AgentTurnOptions } from '../runtime/agent-turn.js';
import type { SessionRecord } from '../storage/session-store.js';
import type { CliContext } from './cli-context.js';
import { printJson } from './cli-output.js';
import { createRenderer } from './chat-render.js';
import { newSessionId } from '../core/ids.js';
import { chatWorkspace, continueTarget, newSessionSystemPrompt, resumeTarget } from './chat-session-select.js';
import { chatTurnOptions } from './chat-turn-options.js';
import { addRouteOptions } from './cli-route-options.js';

/** Exit status of `hermes chat -q` stopped by Ctrl-C (SIGINT), as shells report it: 128 + 2. */
const INTERRUPTED_EXIT_CODE = 130;
import { startMcpServers, type StartedMcp } from './cli-mcp.js';
import { CLI_VERSION } from './cli-version.js';

/** Flags of `hermes chat`. */
export interface ChatFlags {
  query?: string;
  json?: boolean;
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  api?: string;
  resume?: string;
  continue?: boolean;
  yolo?: boolean;
  stream?: boolean;
  reasoning?: boolean;
  effort?: string;
}

/** Registers `hermes chat`. */
export function registerChatCommand(program: Command): void {
  const chat = program
    .command('chat')
    .description(
      'Chat with a reasoning model: interactive by default, one turn with -q. Tools run in the current directory; a resumed session runs them in the directory it started in.',
    )
    .option(
      '-q, --query <text>',
      'run one turn non-interactively (tool loop included) and print the answer; "-" reads it from stdin',
    )
    .option(
      '--json',
      'with -q: print {"session_id", "answer", "reasoning", "tool_calls", "usage", "thinking_dropped_by_provider"} as JSON',
    );
  addRouteOptions(chat)
    .option(
      '-r, --resume <id>',
      'resume a stored session: its id, "latest", or its title (a unique prefix of either will do); it runs in the directory it started in',
    )
    .option('-c, --continue', 'continue the most recent session started in this directory (only this directory)')
    .option(
      '--yolo',
      'approve every tool call (writing files, shell, MCP tools) without asking, and start unapproved .mcp.json servers',
    )
    .option('--no-stream', 'ask for a non-streaming response')
    .option('--no-reasoning', 'do not request reasoning from the model')
    .option('--effort <level>', `reasoning effort: ${REASONING_EFFORTS.join(', ')}`)
    .addHelpText(
      'after',
      `
With no provider configured (config.yaml, flags) Hermes runs offline against its built-in
emulator (persona openrouter); choose another with --provider emulator:deepseek, etc.

Examples:
  hermes chat                                   interactive, offline emulator
  hermes chat -q "read the file notes.txt" --provider deepseek --model deepseek-v4-flash
  hermes chat --resume 20261129-192233-k3f9qa -q "and then?"
  hermes chat -c                                continue the latest session started here
  hermes chat --resume latest                   resume the most recent session anywhere (in its directory)
  hermes chat -r 20261129                       resume by a unique id prefix
  hermes chat --resume "fix the parser"         resume by title (a unique prefix will do)
  git diff | hermes chat -q -                   the prompt comes from stdin`,
    )
    .action(async (flags: ChatFlags) => {
      // The runtime, store and transports load when a chat runs, not when commands register.
      const { withCliContext } = await import('./cli-context.js');
      await withCliContext((context) => runChat(flags, context));
    });
}

async function runChat(flags: ChatFlags, context: CliContext): Promise<void> {
  if (flags.resume && flags.continue) throw new UsageError('use either --resume ID or --continue, not both');
  if (flags.json && flags.query === undefined)
    throw new UsageError('--json needs -q/--query (one non-interactive turn)');
  if (flags.query !== undefined && !flags.query.trim()) throw new UsageError('-q/--query needs some text');
  const effort = parseEffort(flags.effort);
  if (flags.query === '-') flags.query = await readPromptFromStdin();
  const store = context.store();
  const note = (line: string) => process.stderr.write(`hermes: ${line}\n`);
  let session: SessionRecord | null = null;
  if (flags.resume) session = await resumeTarget(store, flags.resume, note);
  else if (flags.continue) session = await continueTarget(store, process.cwd(), note);
  // A resumed session runs its tools where it started (its stored prompt names that directory).
  const workspace = chatWorkspace(session, process.cwd(), note);
  const { openRoute } = await import('./cli-route.js');
  const opened = await openRoute(flags, context, session);
  // A session with messages keeps the system prompt it stored with its first one.
  const systemPrompt =
    session && session.messageCount > 0 ? undefined : await newSessionSystemPrompt(context, workspace);
  let mcp: StartedMcp | null = null;
  // OTEL_* variables only; with none set nothing of OpenTelemetry is loaded (docs/operations.md).
  const tracing = await startChatTracing(context);
  try {
    mcp = await startMcpServers(context.config, {
      home: context.home,
      workspace,
      yolo: Boolean(flags.yolo),
      notes: (line) => process.stderr.write(`hermes: ${line}\n`),
      logger: context.logger(),
    });
    const turnOptions = chatTurnOptions(context, {
      session,
      sessionId: newSessionId(),
      workspace,
      opened,
      mcp,
      systemPrompt,
      leaseOwner: 'hermes chat',
      flags,
      effort,
    });
    // Spans for the turns when an OTEL_* variable asks for them (telemetry-tracing.ts).
    if (tracing) turnOptions.observer = tracing.observer;
    if (flags.query !== undefined) await runOneTurn(flags, turnOptions);
    else
      await (
        await import('./chat-interactive.js')
      ).runInteractiveChat(session, turnOptions, context, Boolean(flags.yolo), mcp.reports);
  } finally {
    await tracing?.shutdown();
    await mcp?.close();
    await opened.close();
  }
}

/** Tracing of this chat's turns when an `OTEL_*` variable asks for it (telemetry-tracing.ts); null otherwise. */
async function startChatTracing(context: CliContext) {
  if (!Object.keys(process.env).some((name) => name.startsWith('OTEL_'))) return null;
  const { startTracing } = await import('../telemetry/telemetry-tracing.js');
  return startTracing(process.env, {
    name: 'hermes',
    version: CLI_VERSION,
    warn: (line) => {
      process.stderr.write(`hermes: ${line}\n`);
      context.logger().warn(line);
    },
  });
}

async function runOneTurn(
  flags: ChatFlags,
  turnOptions: Omit<AgentTurnOptions, 'approve' | 'signal' | 'onEvent'>,
): Promise<void> {
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  let answerStreamed = false;
  let questionStored = false;
  const answerStream = {
    write(text: string) {
      answerStreamed = true;
      return process.stdout.write(text);
    },
  } as unknown as NodeJS.WritableStream;
  const renderer = createRenderer({
    answer: flags.json ? null : answerStream,
    notes: process.stderr,
    showReasoning: () => Boolean(process.stderr.isTTY),
    revealHint: 'shown on a terminal; stored in the session (hermes sessions show)',
  });
  try {
    const { runAgentTurn } = await import('../runtime/agent-turn.js');
    const result = await runAgentTurn(flags.query ?? '', {
      ...turnOptions,
      // -q without --yolo: tools that need approval are refused with a tool error the model sees.
      approve: async () => Boolean(flags.yolo),
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'user-stored') questionStored = true;
        renderer.onEvent(event);
      },
    });
    if (flags.json) {
      printJson({
        session_id: result.sessionId,
        answer: result.answer,
        reasoning: result.reasoning,
        tool_calls: result.toolCalls,
        usage: result.usage,
        // SPEC §26.4: reasoning the provider dropped from this turn's requests is never silent.
        thinking_dropped_by_provider: result.thinkingDroppedByProvider ?? 0,
      });
    } else if (result.stoppedAtCap || !answerStreamed) {
      // Non-streaming responses (or a capped loop) have no text deltas: print the answer whole.
      process.stdout.write(`${result.answer}\n`);
    }
    process.stderr.write(`session ${result.sessionId} (resume with: hermes chat --resume ${result.sessionId})\n`);
  } catch (error) {
    renderer.stop();
    // Once the question is stored, say where, so the user can retry with --resume once the
    // cause is fixed; before that (session busy, storage failure) nothing was kept.
    if (questionStored) {
      process.stderr.write(
        `session ${turnOptions.sessionId} keeps your message (retry with: hermes chat --resume ${turnOptions.sessionId})\n`,
      );
    }
    // Ctrl-C stopped the turn: the conventional exit status of a command stopped by SIGINT (128 + 2).
    if (controller.signal.aborted) {
      process.stderr.write(`hermes: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = INTERRUPTED_EXIT_CODE;
      return;
    }
    throw error;
  } finally {
    renderer.stop();
    process.removeListener('SIGINT', onSigint);
  }
}

/** `-q -`: the prompt is all of standard input (one trailing newline dropped). */
async function readPromptFromStdin(): Promise<string> {
  if (process.stdin.isTTY) {
    throw new UsageError('-q - reads the prompt from standard input: pipe it in (echo "question" | hermes chat -q -)');
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Uint8Array));
  const text = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (!text.trim()) throw new UsageError('-q - read no prompt from standard input');
  return text;
}

function parseEffort(value: string | undefined): ReasoningEffort | undefined {
  if (value === undefined) return undefined;
  if (isReasoningEffort(value)) return value;
  throw new UsageError(`unknown --effort "${value}" (expected one of: ${REASONING_EFFORTS.join(', ')})`);
}
