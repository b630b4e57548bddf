import { describe, expect, it } from 'vitest';
import { runScript, type ScriptMessage } from '../../../src/emulators/shared/scripted-model.js';
import {
  PROBE_ASK,
  PROBE_PICK,
  PROBE_TOOL_LOOP_ASK,
  PROBE_TOOL_NAME,
  secretInAnswer,
  secretInReasoning,
} from '../../../src/probe/probe-prompts.js';

/**
 * SPEC §26.5: the scripted model plays the hidden-number probe honestly. The number is drawn at
 * random, written in the reasoning only, and recalled only from the reasoning that came back on
 * the request (never from visible text), so the emulators measure what really reached them.
 */

const tools = [PROBE_TOOL_NAME];

function pick(): { message: ScriptMessage; secret: string } {
  const output = runScript({ messages: [{ role: 'user', text: PROBE_PICK }], tools });
  const secret = secretInReasoning(output.reasoning) ?? '';
  return { message: { role: 'assistant', text: output.content, reasoning: output.reasoning }, secret };
}

describe('the scripted model plays the continuity probe', () => {
  it('picks a random three-digit number, in the reasoning only', () => {
    const picks = Array.from({ length: 20 }, () => pick());
    for (const { message, secret } of picks) {
      expect(secret).toMatch(/^[1-9]\d{2}$/);
      expect(message.text).not.toContain(secret);
      expect(message.text).not.toMatch(/\d{3}/);
    }
    expect(new Set(picks.map(({ secret }) => secret)).size).toBeGreaterThan(1);
  });

  it('recalls the number from reasoning that came back', () => {
    const { message, secret } = pick();
    const answer = runScript({
      messages: [{ role: 'user', text: PROBE_PICK }, message, { role: 'user', text: PROBE_ASK }],
      tools,
    });
    expect(secretInAnswer(answer.content)).toEqual({ kind: 'number', value: secret });
  });

  it('does not know the number when the reasoning did not come back, even if visible text holds it', () => {
    const { message, secret } = pick();
    const stripped: ScriptMessage = { role: 'assistant', text: `${message.text} (it was ${secret}; SECRET=${secret})` };
    const answer = runScript({
      messages: [{ role: 'user', text: PROBE_PICK }, stripped, { role: 'user', text: PROBE_ASK }],
      tools,
    });
    expect(secretInAnswer(answer.content)).toEqual({ kind: 'unknown' });
    expect(answer.content).not.toContain(secret);
  });

  it('tool loop: calls probe_wait first, then answers from the reasoning that came back', () => {
    const { message, secret } = pick();
    const history: ScriptMessage[] = [
      { role: 'user', text: PROBE_PICK },
      message,
      { role: 'user', text: PROBE_TOOL_LOOP_ASK },
    ];
    const call = runScript({ messages: history, tools });
    expect(call.toolCalls).toEqual([{ id: 'call_2_1', name: PROBE_TOOL_NAME, arguments: '{}' }]);
    expect(call.content).toBe('');
    const loop: ScriptMessage[] = [
      ...history,
      { role: 'assistant', text: '', toolCalls: call.toolCalls, reasoning: call.reasoning },
      { role: 'tool', text: 'waited', toolCallId: 'call_2_1' },
    ];
    expect(secretInAnswer(runScript({ messages: loop, tools }).content)).toEqual({ kind: 'number', value: secret });
    // Without any reasoning back, the loop ends knowing nothing.
    const forgotten = loop.map(({ reasoning: _reasoning, ...rest }) => rest);
    expect(secretInAnswer(runScript({ messages: forgotten, tools }).content)).toEqual({ kind: 'unknown' });
  });

  it('leaves other questions to the script', () => {
    expect(runScript({ messages: [{ role: 'user', text: 'hello' }], tools }).content).toContain('You said: hello');
  });
});
