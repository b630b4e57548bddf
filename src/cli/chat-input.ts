import { createInterface, type Key } from 'node:readline';
import { PassThrough } from 'node:stream';
import { pasteSummary, PasteFilter } from './chat-paste.js';

/** Reads one message per prompt; null once input has ended (Ctrl-D, end of piped input, double Ctrl-C). */
export interface ChatInput {
  /** Prompts and resolves with the next message (several lines when pasted or continued). */
  ask(prompt: string): Promise<string | null>;
  /**
   * Asks a question answered by one key (no Enter) on a terminal: resolves with the lower-cased
   * key, `''` for Enter (the default), or null when input ended. Piped input answers with a line.
   */
  askKey(prompt: string): Promise<string | null>;
  close(): void;
}

/** Options of {@link createChatInput}. */
export interface ChatInputOptions {
  /** Words Tab completes at the start of the line (slash commands). */
  completions: () => readonly string[];
  /** Ctrl-C: returns true when it interrupted something (a running turn); otherwise the prompt handles it. */
  onInterrupt: () => boolean;
  /** Where hints go (stdout). */
  out: NodeJS.WriteStream;
}

/** Bracketed paste on/off (xterm; invisible to terminals that do not support it). */
const PASTE_ON = '\x1b[?2004h';
const PASTE_OFF = '\x1b[?2004l';
/** Prompt of a continuation line. */
const CONTINUATION = '... ';

type KeypressListener = (text: string | undefined, key: Key | undefined) => void;

/**
 * The terminal side of readline's input: standard input with large pastes taken out
 * ({@link PasteFilter}). readline reads this stream; raw mode is switched on the real one.
 */
function terminalInput(filter: PasteFilter): PassThrough & { isTTY: true; setRawMode(mode: boolean): unknown } {
  const input = Object.assign(new PassThrough({ encoding: 'utf8' }), {
    isTTY: true as const,
    setRawMode(mode: boolean) {
      process.stdin.setRawMode(mode);
      return input;
    },
  });
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    const forwarded = filter.push(chunk);
    if (forwarded) input.write(forwarded);
  });
  process.stdin.on('end', () => input.end());
  return input;
}

/**
 * The interactive input: readline line editing and history; Tab completes slash commands; a
 * bracketed paste (several lines) is one message, and a large one shows as one summary line
 * (`[pasted text #1: 312,004 characters, 4,210 lines]`) that stands for its full text; a line
 * ending in `\` or Alt+Enter continues the message on the next line; Ctrl-C at the prompt clears
 * it and asks for a second Ctrl-C to leave. Piped input queues its lines so none is lost while a
 * turn runs.
 */
export function createChatInput(options: ChatInputOptions): ChatInput {
  const tty = Boolean(process.stdin.isTTY);
  const pastes = new PasteFilter();
  const input = tty ? terminalInput(pastes) : process.stdin;
  const readline = createInterface({
    input,
    output: options.out,
    terminal: tty,
    completer: (line: string) => {
      if (!line.startsWith('/') || line.includes(' ')) return [[], line];
      const hits = options.completions().filter((word) => word.startsWith(line));
      return [hits, line];
    },
  });
  const queued: string[] = [];
  const waiting: ((line: string | null) => void)[] = [];
  let closed = false;
  let pasting = false;
  let interruptArmed = false;
  /** Lines of the message being typed (paste, `\` or Alt+Enter continuations). */
  let partial: string[] = [];
  /** Set while a one-key question waits: the next key answers it. */
  let keyWaiter: ((key: Key | undefined, text: string | undefined) => void) | null = null;

  const deliver = (message: string) => {
    const waiter = waiting.shift();
    if (!waiter) {
      queued.push(message);
      return;
    }
    // Piped input is echoed after its prompt (as `ask` does for a queued line), so a transcript reads like a session.
    if (!tty) options.out.write(`${pasteSummary(message) ?? message}\n`);
    waiter(message);
  };
  readline.on('line', (line) => {
    interruptArmed = false;
    if (pasting) {
      partial.push(line);
      return;
    }
    if (line.endsWith('\\')) {
      partial.push(line.slice(0, -1));
      if (tty) promptWith(CONTINUATION);
      return;
    }
    const message = pastes.expand([...partial, line].join('\n'));
    partial = [];
    deliver(message);
  });
  readline.on('close', () => {
    closed = true;
    if (tty) {
      options.out.write(PASTE_OFF);
      process.stdin.pause();
    }
    keyWaiter?.(undefined, undefined);
    for (const waiter of waiting.splice(0)) waiter(null);
  });
  readline.on('SIGINT', () => {
    if (options.onInterrupt()) return;
    if (interruptArmed) {
      options.out.write('\n');
      readline.close();
      return;
    }
    interruptArmed = true;
    partial = [];
    clearLine();
    options.out.write('\n(press Ctrl-C again to exit, or Ctrl-D)\n');
    promptWith(currentPrompt);
  });
  const onKeypress: KeypressListener = (text, key) => {
    if (keyWaiter) {
      keyWaiter(key, text);
      return;
    }
    if (key?.name === 'paste-start') pasting = true;
    else if (key?.name === 'paste-end') pasting = false;
    else if (key?.meta && key.name === 'return') {
      // Alt+Enter: the line so far becomes one line of the message; typing continues below.
      partial.push(readline.line);
      clearLine();
      options.out.write('\n');
      promptWith(CONTINUATION);
    } else if (key?.name !== undefined && !(key.ctrl && key.name === 'c')) interruptArmed = false;
  };
  if (tty) {
    options.out.write(PASTE_ON);
    // Runs before readline's own handler, so the paste markers are seen before the pasted lines.
    input.prependListener('keypress', onKeypress);
  }

  let currentPrompt = '';
  /** Empties readline's edit buffer (End, then Ctrl-U: delete to the start of the line). */
  function clearLine(): void {
    if (!readline.line) return;
    readline.write(null, { ctrl: true, name: 'e' });
    readline.write(null, { ctrl: true, name: 'u' });
  }
  function promptWith(prompt: string): void {
    readline.setPrompt(prompt);
    readline.prompt(true);
  }

  function ask(prompt: string): Promise<string | null> {
    currentPrompt = prompt;
    // prompt() on a closed readline throws ERR_USE_AFTER_CLOSE on Node 24 (20 and 22 ignore it):
    // once piped input has ended, the lines still queued get their prompt written directly.
    if (closed) options.out.write(prompt);
    else promptWith(prompt);
    const message = queued.shift();
    if (message !== undefined) {
      // Piped input is echoed so a transcript reads like a session; a huge message as its summary.
      if (!tty) options.out.write(`${pasteSummary(message) ?? message}\n`);
      return Promise.resolve(message);
    }
    if (closed) return Promise.resolve(null);
    return new Promise((resolve) => waiting.push(resolve));
  }

  return {
    ask,
    askKey(prompt) {
      if (!tty || closed) return ask(prompt).then((line) => (line === null ? null : line.trim().toLowerCase()));
      options.out.write(prompt);
      // readline must not see the key (it would land in the next message): its listeners step
      // aside until the key arrives.
      const others = input.listeners('keypress').filter((listener) => listener !== onKeypress);
      for (const listener of others) input.removeListener('keypress', listener as KeypressListener);
      return new Promise((resolve) => {
        keyWaiter = (key, text) => {
          keyWaiter = null;
          for (const listener of others) input.on('keypress', listener as KeypressListener);
          if (key === undefined && text === undefined) {
            options.out.write('\n');
            resolve(null);
            return;
          }
          if (key?.ctrl && key.name === 'c') {
            options.out.write('^C\n');
            options.onInterrupt();
            resolve('');
            return;
          }
          const answer = key?.name === 'return' || key?.name === 'enter' ? '' : (text ?? '').toLowerCase();
          options.out.write(`${answer}\n`);
          resolve(answer);
        };
      });
    },
    close() {
      readline.close();
    },
  };
}
