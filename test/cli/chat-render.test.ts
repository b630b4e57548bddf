import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StreamError } from '../../src/core/errors.js';
import { createRenderer } from '../../src/cli/chat-render.js';
import { executeToolCall } from '../../src/tools/tool-registry.js';

/** A writable that records what it was given (not a TTY: no spinner, no colour). */
function recorder(): NodeJS.WriteStream & { text: string } {
  const sink = {
    text: '',
    isTTY: false,
    write(chunk: string) {
      sink.text += chunk;
      return true;
    },
  };
  return sink as unknown as NodeJS.WriteStream & { text: string };
}

describe('chat renderer: a turn that fails mid-answer', () => {
  it('ends the partial answer line so the error does not run on after it', () => {
    const answer = recorder();
    const notes = recorder();
    const renderer = createRenderer({ answer, notes, showReasoning: () => false });
    renderer.onEvent({ type: 'request-sent', routeKey: 'openai|api.openai.com|gpt-5', attempt: 1 });
    renderer.onEvent({ type: 'text-delta', text: 'half an ' });
    renderer.onEvent({ type: 'error', error: new StreamError('stream ended early') });
    renderer.stop();
    expect(answer.text).toBe('half an \n');
  });

  it('writes nothing to the answer when the failure came before any text', () => {
    const answer = recorder();
    const notes = recorder();
    const renderer = createRenderer({ answer, notes, showReasoning: () => false });
    renderer.onEvent({ type: 'request-sent', routeKey: 'openai|api.openai.com|gpt-5', attempt: 1 });
    renderer.onEvent({ type: 'error', error: new StreamError('refused') });
    renderer.stop();
    expect(answer.text).toBe('');
  });
});

describe('chat renderer: the tool mark says whether the tool did its job', () => {
  const workspace = mkdtempSync(join(tmpdir(), 'hermes-render-'));
  afterAll(() => rmSync(workspace, { recursive: true, force: true }));
  const run = (command: string, signal?: AbortSignal) =>
    executeToolCall('run_shell', JSON.stringify({ command }), {
      workspace,
      approve: async () => true,
      ...(signal ? { signal } : {}),
    });
  function markFor(name: string, outcome: { content: string; isError: boolean }): string {
    const notes = recorder();
    const renderer = createRenderer({ answer: null, notes, showReasoning: () => false });
    renderer.onEvent({ type: 'tool-result', id: 'call_1', name, ...outcome });
    return notes.text.split('\n')[0] ?? '';
  }

  it.each([
    ['a command that exits 0', 'echo ok', '✓ run_shell'],
    ['a command that exits non-zero', 'echo nope; exit 3', '✗ run_shell'],
    ['a command killed by a signal', 'kill -9 $$', '✗ run_shell'],
  ])('%s: %s → %s', async (_what, command, mark) => {
    expect(markFor('run_shell', await run(command))).toBe(mark);
  });

  it('a command interrupted by the user is marked failed', async () => {
    const controller = new AbortController();
    const pending = run('sleep 30', controller.signal);
    setTimeout(() => controller.abort(), 50);
    const outcome = await pending;
    expect(outcome.content).toContain('interrupted by the user');
    expect(markFor('run_shell', outcome)).toBe('✗ run_shell');
  });

  it('a tool error is marked failed; output that merely mentions an exit code is not', () => {
    expect(markFor('read_file', { content: 'error: no such file: x', isError: true })).toBe('✗ read_file');
    expect(markFor('read_file', { content: 'notes: [exit code 1] appears in the log\n', isError: false })).toBe(
      '✓ read_file',
    );
  });
});
