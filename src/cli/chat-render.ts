import yoctoSpinner, { type Spinner } from 'yocto-spinner';
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

/** `12s`, `2m 05s`: elapsed time for the waiting line. */
export function formatElapsed(milliseconds: number): string {
  const seconds = Math.floor(milliseconds / 1000);
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`;
}

/**
 * A terminal spinner (yocto-spinner) whose line says what is awaited and for how long:
 * `⠋ waiting for the model… 3s`, `⠋ thinking… 12s (2,340 characters)`. Only on an interactive
 * terminal; it never installs signal handlers (Ctrl-C belongs to the chat).
 */
class WaitingLine {
  private spinner: Spinner | null = null;
  private ticker: NodeJS.Timeout | null = null;
  private label = '';
  private since = 0;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly dim: (text: string) => string,
  ) {}

  /** Shows (or relabels) the line; elapsed time counts from `since`. */
  show(label: string, since: number): void {
    this.label = label;
    this.since = since;
    if (!this.spinner) {
      this.spinner = yoctoSpinner({ stream: this.stream, handleSignals: false, text: this.text() }).start();
      this.ticker = setInterval(() => this.refresh(), 1000);
      this.ticker.unref();
    } else this.refresh();
  }

  /** Updates the label's detail without restarting the clock. */
  relabel(label: string): void {
    if (!this.spinner || label === this.label) return;
    this.label = label;
    this.refresh();
  }

  get visible(): boolean {
    return this.spinner !== null;
  }

  hide(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
    this.spinner?.stop();
    this.spinner = null;
  }

  private refresh(): void {
    if (this.spinner) this.spinner.text = this.text();
  }

  private text(): string {
    return this.dim(`${this.label} ${formatElapsed(performance.now() - this.since)}`);
  }
}

/** Whether a stream is a terminal the spinner can redraw on (yocto-spinner's own test). */
function redrawable(stream: NodeJS.WriteStream): boolean {
  return Boolean(stream.isTTY) && process.env['TERM'] !== 'dumb' && !('CI' in process.env);
}

/**
 * Turns agent events into terminal output: a spinner with the elapsed time while waiting for the
 * first token and while hidden reasoning streams (interactive terminals only), reasoning dimmed
 * (or collapsed), answer text streamed, tool calls with their arguments and results (✗ when a
 * tool failed or a command exited non-zero, was killed, timed out or interrupted), retries and
 * learned verdicts as notices.
 */
export function createRenderer(options: RenderOptions): { onEvent: (event: AgentEvent) => void; stop: () => void } {
  const style = styles(useColor(options.notes));
  const waiting = redrawable(options.notes) ? new WaitingLine(options.notes, style.dim) : null;
  let requestStarted = 0;
  let reasoningChars = 0;
  let inReasoning = false;
  let answerStarted = false;
  const toolNames = new Map<number, string>();
  const toolArguments = new Map<number, string>();

  const stopSpinner = () => waiting?.hide();
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
        requestStarted = performance.now();
        waiting?.show('waiting for the model…', requestStarted);
        break;
      case 'reasoning-delta':
        inReasoning = true;
        reasoningChars += event.text.length;
        if (options.showReasoning()) {
          stopSpinner();
          options.notes.write(style.dim(event.text));
        } else if (waiting) {
          // Hidden reasoning still shows progress: the clock keeps running, the count grows.
          const label = `thinking… (${reasoningChars.toLocaleString('en-US')} characters)`;
          if (waiting.visible) waiting.relabel(label);
          else waiting.show(label, requestStarted);
        }
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
      case 'compacting':
        stopSpinner();
        options.notes.write(style.dim(`${event.message}\n`));
        break;
      case 'compacted':
        stopSpinner();
        options.notes.write(style.yellow(`${event.message}\n`));
        break;
      case 'verdict-learned':
        stopSpinner();
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
