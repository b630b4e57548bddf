import type { AgentEvent } from '../runtime/agent-turn.js';
import { styles, useColor } from './cli-output.js';

/** How a turn is shown while it streams. */
export interface RenderOptions {
  /** Where answer text goes (stdout interactively and in -q; nothing with --json). */
  answer: NodeJS.WritableStream | null;
  /** Where reasoning, tool calls, retries and notices go. */
  notes: NodeJS.WriteStream;
  /** Show reasoning text (dimmed) or collapse it to a one-line summary. */
  showReasoning: () => boolean;
  /** How the collapsed line tells the user to see reasoning (default: the interactive /reasoning command). */
  revealHint?: string;
}

const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * Turns agent events into terminal output: a spinner while waiting for the first token
 * (TTY only), reasoning dimmed (or collapsed), answer text streamed, tool calls with their
 * arguments and results, retries and learned verdicts as notices.
 */
export function createRenderer(options: RenderOptions): { onEvent: (event: AgentEvent) => void; stop: () => void } {
  const style = styles(useColor(options.notes));
  const interactive = Boolean(options.notes.isTTY);
  let spinner: NodeJS.Timeout | null = null;
  let frame = 0;
  let reasoningChars = 0;
  let inReasoning = false;
  let answerStarted = false;
  const toolNames = new Map<number, string>();
  const toolArguments = new Map<number, string>();

  const stopSpinner = () => {
    if (!spinner) return;
    clearInterval(spinner);
    spinner = null;
    options.notes.write('\r\x1b[K');
  };
  const startSpinner = () => {
    if (!interactive || spinner) return;
    spinner = setInterval(() => {
      options.notes.write(`\r${style.dim(`${SPINNER_FRAMES[frame++ % SPINNER_FRAMES.length]} thinking…`)}`);
    }, 80);
  };
  const endReasoning = () => {
    if (!inReasoning) return;
    inReasoning = false;
    if (options.showReasoning()) options.notes.write('\n');
    else {
      const hint = options.revealHint ?? '/reasoning on to show';
      options.notes.write(style.dim(`[reasoning: ${reasoningChars} characters hidden — ${hint}]\n`));
    }
    reasoningChars = 0;
  };

  const onEvent = (event: AgentEvent) => {
    switch (event.type) {
      case 'request-sent':
        answerStarted = false;
        startSpinner();
        break;
      case 'reasoning-delta':
        stopSpinner();
        inReasoning = true;
        reasoningChars += event.text.length;
        if (options.showReasoning()) options.notes.write(style.dim(event.text));
        break;
      case 'text-delta':
        stopSpinner();
        endReasoning();
        answerStarted = true;
        options.answer?.write(event.text);
        break;
      case 'tool-call-start':
        stopSpinner();
        endReasoning();
        toolNames.set(event.index, event.name);
        toolArguments.set(event.index, '');
        break;
      case 'tool-call-delta':
        toolArguments.set(event.index, (toolArguments.get(event.index) ?? '') + event.argumentsDelta);
        break;
      case 'tool-result': {
        const lines = event.content.split('\n');
        const preview = lines.slice(0, 6).join('\n') + (lines.length > 6 ? `\n… (${lines.length - 6} more lines)` : '');
        const label = event.isError ? style.red(`✗ ${event.name}`) : style.green(`✓ ${event.name}`);
        options.notes.write(`${label}\n${style.dim(preview)}\n`);
        break;
      }
      case 'retry':
        stopSpinner();
        options.notes.write(style.yellow(`retrying in ${(event.delayMs / 1000).toFixed(1)} s (${event.reason})\n`));
        break;
      case 'recovery':
        stopSpinner();
        options.notes.write(style.yellow(`${event.message}\n`));
        break;
      case 'compacted':
        stopSpinner();
        options.notes.write(style.yellow(`${event.message}\n`));
        break;
      case 'verdict-learned':
        options.notes.write(
          style.yellow(`learned: ${event.routeKey} rejects ${event.fields.join(', ')}; retrying once without them\n`),
        );
        break;
      case 'finish':
        stopSpinner();
        endReasoning();
        for (const [index, name] of toolNames) {
          options.notes.write(style.cyan(`→ ${name} ${toolArguments.get(index) ?? ''}\n`));
        }
        toolNames.clear();
        toolArguments.clear();
        if (answerStarted) options.answer?.write('\n');
        break;
      case 'error':
        stopSpinner();
        endReasoning();
        // A stream that broke mid-answer leaves its partial line open: end it so the error (or
        // the retried answer) starts on a line of its own instead of after "half an ans".
        if (answerStarted) options.answer?.write('\n');
        answerStarted = false;
        break;
      default:
        break;
    }
  };
  return { onEvent, stop: stopSpinner };
}
