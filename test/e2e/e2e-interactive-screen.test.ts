/**
 * Interactive `hermes chat` as a user sees it: a real terminal (tmux), keys and pastes sent the
 * way a terminal sends them, the screen read back after every redraw. Covers what is only visible
 * on a screen: answer text appearing while it streams and settling into rendered markdown per
 * block, the waiting line with its elapsed time, one-key approval, a large paste shown as one
 * summary line, and the ✗ mark of an interrupted command.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routeArgs, useE2e } from '../support/e2e.js';
import { hasTmux, openTerminal, type Terminal } from '../support/terminal.js';

const e2e = useE2e();

/** A terminal closed after the test. */
function terminal(...args: Parameters<typeof openTerminal>): Terminal {
  const opened = openTerminal(...args);
  e2e.defer(() => opened.close());
  return opened;
}

describe.skipIf(!hasTmux)('interactive hermes chat on a real terminal (tmux)', () => {
  it('answer text shows while it streams, before its paragraph ends; Ctrl-C stops the turn', async () => {
    // An answer that never ends its paragraph: one word every 100 ms until the client hangs up.
    const emulator = await e2e.chat({ persona: 'deepseek', faults: [{ kind: 'endless-deltas', intervalMs: 100 }] });
    const sandbox = e2e.sandbox();
    const screen = terminal(routeArgs('deepseek', 'deepseek-v4-flash', emulator.baseUrl), sandbox);
    await screen.waitFor(/you>$/);
    await screen.type('hello');
    await screen.keys('Enter');
    await screen.waitFor(/delta 0 delta 1 delta 2 delta 3/);
    await screen.keys('C-c');
    await screen.waitFor(/turn interrupted/);
    await screen.waitFor(/you>$/);
  });

  it('markdown settles per block on screen: no raw asterisks or list dashes are left behind', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const sandbox = e2e.sandbox();
    const screen = terminal(routeArgs('deepseek', 'deepseek-v4-flash', emulator.baseUrl), sandbox);
    await screen.waitFor(/you>$/);
    const pasted = 'Notes follow\n# Heading\n\n- item one\n- **bold** item\n- *soft* item\n\n**strong** words';
    await screen.paste(pasted);
    await screen.keys('Enter');
    const shown = await screen.waitFor(/in \d+ · out \d+ · reasoning \d+ · \d+\.\d s/);
    const answer = shown.slice(shown.indexOf('You said:'));
    expect(answer).toContain('  * item one');
    expect(answer).toContain('  * bold item');
    expect(answer).toContain('strong words');
    expect(answer).not.toMatch(/\*\*|\*soft\*|^- /m);
  });

  it('while the model has not answered, a spinner line counts the seconds', async () => {
    // The provider accepts the request and only sends keep-alive comments: no token arrives.
    const emulator = await e2e.chat({ persona: 'deepseek', faults: [{ kind: 'keep-alive-only', intervalMs: 200 }] });
    const sandbox = e2e.sandbox();
    const screen = terminal(routeArgs('deepseek', 'deepseek-v4-flash', emulator.baseUrl), sandbox);
    await screen.waitFor(/you>$/);
    await screen.type('hello');
    await screen.keys('Enter');
    await screen.waitFor(/waiting for the model… [1-9]\d*s/);
    await screen.waitFor(/waiting for the model… ([2-9]|\d{2,})s/);
    await screen.keys('C-c');
    const after = await screen.waitFor(/turn interrupted/);
    // The spinner line is gone once the turn ended.
    expect(after.split('\n').at(-3) ?? '').not.toMatch(/waiting for the model/);
  });

  it('approval takes one key, without Enter', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const sandbox = e2e.sandbox();
    const screen = terminal(routeArgs('deepseek', 'deepseek-v4-flash', emulator.baseUrl), sandbox);
    await screen.waitFor(/you>$/);
    await screen.type('write "hi" to out.txt');
    await screen.keys('Enter');
    await screen.waitFor(/\[a\]lways for this session$/);
    await screen.type('y');
    await screen.waitFor(/✓ write_file/);
    await screen.waitFor(/you>$/);
    expect(readFileSync(join(sandbox.workspace, 'out.txt'), 'utf8')).toBe('hi');
    // The key answered the question: it did not end up in the next message.
    const before = emulator.requests.length;
    await screen.type('/exit');
    await screen.keys('Enter');
    await screen.waitFor(/resume with: hermes chat --resume/);
    expect(emulator.requests).toHaveLength(before);
    expect(await screen.exited()).toBe(0);
  });

  it('a 300 KB paste shows as one summary line and is not echoed; a summarised paste is sent whole', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const sandbox = e2e.sandbox();
    const screen = terminal(routeArgs('deepseek', 'deepseek-v4-flash', emulator.baseUrl), sandbox);
    await screen.waitFor(/you>$/);
    const huge = `summarise this log\n${`${'x'.repeat(99)}\n`.repeat(3000)}`.trimEnd();
    const before = screen.bytesWritten();
    await screen.paste(huge);
    await screen.waitFor(/you> \[pasted text #1: 300,018 characters, 3,001 lines\]$/);
    // Echoing it through the line editor wrote it all out again (and took tens of seconds).
    expect(screen.bytesWritten() - before).toBeLessThan(5_000);
    // Ctrl-U clears the line; the next large paste stands for its own text.
    await screen.keys('C-u');
    const pasted = `read this\n${'a line of the log\n'.repeat(150)}`.trimEnd();
    await screen.paste(pasted);
    await screen.waitFor(/you> \[pasted text #2: 2,709 characters, 151 lines\]$/);
    await screen.keys('Enter');
    await screen.waitFor(/reasoning \d+ · \d+\.\d s/);
    const users = (emulator.requests[0]?.body as { messages: { role: string; content: string }[] }).messages.filter(
      (message) => message.role === 'user',
    );
    expect(users.map((message) => message.content)).toEqual([pasted]);
  });

  it('a command interrupted with Ctrl-C is marked ✗, not ✓', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const sandbox = e2e.sandbox();
    const screen = terminal([...routeArgs('deepseek', 'deepseek-v4-flash', emulator.baseUrl), '--yolo'], sandbox);
    await screen.waitFor(/you>$/);
    await screen.type('run `sleep 30 && touch done.txt`');
    await screen.keys('Enter');
    await screen.waitFor(/→ run_shell/);
    await screen.keys('C-c');
    const shown = await screen.waitFor(/✗ run_shell/);
    expect(shown).not.toMatch(/✓ run_shell/);
    expect(shown).toMatch(/interrupted by the user/);
    expect(existsSync(join(sandbox.workspace, 'done.txt'))).toBe(false);
  });
});
