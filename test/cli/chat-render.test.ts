import { describe, expect, it } from 'vitest';
import { StreamError } from '../../src/core/errors.js';
import { createRenderer } from '../../src/cli/chat-render.js';

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
