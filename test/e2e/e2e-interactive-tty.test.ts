import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { scaledTimeout } from '../support/timeouts.js';
import { HERMES_BIN, routeArgs, useE2e, type Sandbox } from '../support/e2e.js';

const e2e = useE2e();

/** util-linux `script` gives the child a pseudo-terminal: stdin/stdout are a TTY, as for a user. */
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

/** ANSI escape sequences (colour, cursor, bracketed-paste switches). */
// eslint-disable-next-line no-control-regex -- escape sequences begin with ESC
const ANSI = /\x1b\[[0-9;?]*[a-zA-Z]/g;

/** An interactive `hermes chat` on a pseudo-terminal: send keys, wait for screen text. */
interface Terminal {
  /** Everything written to the terminal so far, raw (with escape sequences). */
  readonly raw: string;
  /** The screen text without escape sequences and carriage returns. */
  readonly text: string;
  send(keys: string): void;
  /** Resolves once the text after `from` (a length of {@link text}) matches `pattern`. */
  waitFor(pattern: RegExp, from?: number): Promise<void>;
  exited: Promise<number | null>;
}

function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

function openTerminal(args: string[], sandbox: Sandbox): Terminal {
  const command = [process.execPath, HERMES_BIN, 'chat', ...args].map(quote).join(' ');
  const child: ChildProcess = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
    cwd: sandbox.workspace,
    env: { ...process.env, HERMES_HOME: sandbox.home, TERM: 'xterm-256color', SHELL: '/bin/sh', NO_COLOR: '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let raw = '';
  child.stdout?.on('data', (chunk: Buffer) => (raw += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  e2e.defer(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const text = () => raw.replace(ANSI, '').replace(/\r/g, '');
  return {
    get raw() {
      return raw;
    },
    get text() {
      return text();
    },
    send(keys) {
      child.stdin?.write(keys);
    },
    async waitFor(pattern, from = 0) {
      const deadline = Date.now() + scaledTimeout(30_000);
      while (!pattern.test(text().slice(from))) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; screen:\n${text()}`);
        if (child.exitCode !== null) throw new Error(`hermes exited waiting for ${pattern}; screen:\n${text()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    exited,
  };
}

describe.skipIf(!hasScript)('interactive hermes chat on a terminal (pseudo-terminal via script)', () => {
  it('Tab completes slash commands; a bracketed paste is one message; markdown is rendered (emphasis in list items too); a usage line with cost follows the turn', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const sandbox = e2e.sandbox();
    // deepseek-reasoner on the deepseek provider has a known list price, so the line shows a cost.
    const terminal = openTerminal(routeArgs('deepseek', 'deepseek-reasoner', emulator.baseUrl), sandbox);
    await terminal.waitFor(/you> $/);
    let mark = terminal.text.length;
    terminal.send('/us\t');
    await terminal.waitFor(/\/usage/, mark);
    terminal.send('\r');
    await terminal.waitFor(/this run: 0 requests · in 0 · out 0 · reasoning 0\n/, mark);
    await terminal.waitFor(/you> $/, mark);

    // /undo completes too; with nothing sent yet there is nothing to take back.
    mark = terminal.text.length;
    terminal.send('/un\t');
    await terminal.waitFor(/\/undo/, mark);
    terminal.send('\r');
    await terminal.waitFor(/nothing to undo\n/, mark);
    await terminal.waitFor(/you> $/, mark);

    mark = terminal.text.length;
    const pasted = 'Notes follow\n# Heading\n\n- item one\n- **bold** item\n- *soft* item\n\n**strong** words';
    terminal.send(`\x1b[200~${pasted}\x1b[201~`);
    terminal.send('\r');
    await terminal.waitFor(/in \d+ · out \d+ · reasoning \d+ · \d+\.\d s · \$\d+\.\d{4}\n/, mark);
    expect(emulator.requests).toHaveLength(1);
    const messages = (emulator.requests[0]?.body as { messages: { role: string; content: string }[] }).messages;
    expect(messages.filter((message) => message.role === 'user').map((message) => message.content)).toEqual([pasted]);
    // The emulator echoes the message: rendered, the list items become bullets and **strong** is
    // bold. (The raw text streams first and is erased as each block settles; what stays on the
    // screen is checked on a real terminal in e2e-interactive-screen.test.ts.)
    const answer = terminal.raw.slice(terminal.raw.indexOf('You said:'));
    expect(answer.replace(ANSI, '')).toContain('  * item one');
    expect(answer).toContain('\x1b[1mstrong\x1b[22m');
    // Emphasis inside a list item is styled too, not printed with its asterisks.
    expect(answer).toContain('\x1b[1mbold\x1b[22m item');
    expect(answer).toContain('\x1b[3msoft\x1b[23m item');
    expect(answer.replace(ANSI, '')).toContain('  * bold item');

    terminal.send('/exit\r');
    expect(await terminal.exited).toBe(0);
  });

  it('Ctrl-C at the prompt asks for a second Ctrl-C, which leaves', async () => {
    const sandbox = e2e.sandbox();
    const terminal = openTerminal(['--provider', 'emulator:deepseek'], sandbox);
    await terminal.waitFor(/you> $/);
    const mark = terminal.text.length;
    terminal.send('half typed');
    await terminal.waitFor(/half typed$/, mark);
    terminal.send('\x03');
    await terminal.waitFor(/\(press Ctrl-C again to exit, or Ctrl-D\)\nyou> $/, mark);
    expect(terminal.text.slice(mark)).not.toContain('resume with');
    terminal.send('\x03');
    expect(await terminal.exited).toBe(0);
    // Nothing was sent, so no session was stored and there is nothing to resume.
    expect(terminal.text.slice(mark)).toMatch(/\(press Ctrl-C again to exit, or Ctrl-D\)\nyou> \n?$/);
    expect(terminal.text).not.toContain('resume with');
  });
});
