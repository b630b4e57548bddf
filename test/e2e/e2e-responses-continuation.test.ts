import { describe, expect, it } from 'vitest';
import type { AssistantMessage } from '../../src/core/message.js';
import type { ResponsesEmulator } from '../../src/emulators/responses/responses-emulator.js';
import { chatJson, readLog, routeArgs, storedAssistants, storedMessages, useE2e } from '../support/e2e.js';

/**
 * SPEC §24.6 through the real `hermes` binary against the Responses emulator: an answer that
 * holds reasoning but neither a message nor a tool call is continued in the same turn (at most 3
 * continuation requests, the reasoning items replayed, no new user message on the wire) and the
 * turn stores one assistant message, merged.
 */

const e2e = useE2e();
const MODEL = 'gpt-5.4';

type Item = Record<string, unknown>;

function route(emulator: ResponsesEmulator): string[] {
  return routeArgs('openai-responses', MODEL, emulator.baseUrl, 'x', 'codex_responses');
}

function inputOf(emulator: ResponsesEmulator, index: number): Item[] {
  return (emulator.requests[index]?.body as { input: Item[] }).input;
}

function users(input: Item[]): Item[] {
  return input.filter((item) => item['role'] === 'user');
}

/** A stored reasoning item as the wire carries it off Azure (SPEC §24.4): input-schema keys only. */
function wireItem(item: Item | undefined): Item {
  const keys = ['type', 'encrypted_content', 'summary', 'content'];
  return Object.fromEntries(Object.entries(item ?? {}).filter(([key]) => keys.includes(key)));
}

const EMPTY_ASSISTANT = { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: '' }] };

describe('SPEC §24.6: reasoning-only Responses answers are continued in the same turn', () => {
  it('summary-only: one continuation replays the reasoning item, no new user message; one merged assistant stored', async () => {
    const emulator = await e2e.responses({ reasoningOnly: ['summary-only'] });
    const sandbox = e2e.sandbox();
    const result = await chatJson(sandbox, ['-q', 'hello there', ...route(emulator)]);

    expect(emulator.requests.map((request) => request.status)).toEqual([200, 200]);
    const [stored] = await storedAssistants(sandbox.home, result.session_id);
    const [partial, final] = stored?.codex_reasoning_items ?? [];
    // The continuation: the same question once, the received reasoning item, its empty follower.
    expect(inputOf(emulator, 1)).toEqual([
      { role: 'user', content: 'hello there' },
      wireItem(partial),
      EMPTY_ASSISTANT,
    ]);
    expect(users(inputOf(emulator, 1))).toEqual(users(inputOf(emulator, 0)));
    // The emulator read the continued reasoning back out of its verified blob.
    expect(result.answer).toBe('You said: hello there\nReasoning continuity: intact (1/1).');

    const messages = await storedMessages(sandbox.home, result.session_id);
    expect(messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant']);
    expect(stored?.content).toBe(result.answer);
    expect(stored?.finish_reason).toBe('stop');
    expect(stored?.reasoning).toContain('Reasoning only, no answer yet (summary-only).');
    expect(stored?.reasoning).toContain('Turn 2: the user said "hello there"');
    expect([partial, final].map((item) => String(item?.['id']).slice(0, 3))).toEqual(['rs_', 'rs_']);
    expect(readLog(sandbox.home)).toContain('reasoning-only Responses turn: continuation 1 of 3 (SPEC §24.6)');
  });

  it('rs_tmp_ reasoning: nothing to replay, so the continuation resends the same input; the readable reasoning is kept', async () => {
    const emulator = await e2e.responses({ reasoningOnly: ['temporary-id'] });
    const sandbox = e2e.sandbox();
    const result = await chatJson(sandbox, ['-q', 'hello there', ...route(emulator)]);

    expect(emulator.requests.map((request) => request.status)).toEqual([200, 200]);
    expect(inputOf(emulator, 1)).toEqual(inputOf(emulator, 0));
    expect(result.answer).toBe('You said: hello there\nReasoning continuity: first turn.');
    const stored = await storedAssistants(sandbox.home, result.session_id);
    expect(stored).toHaveLength(1);
    // SPEC §12: the rs_tmp_ item is never stored; its readable text is.
    expect(stored[0]?.codex_reasoning_items?.map((item) => String(item['id']).startsWith('rs_tmp_'))).toEqual([false]);
    expect(stored[0]?.reasoning).toContain('Reasoning only, no answer yet (temporary-id).');
  });

  it('max_output_tokens every time: exactly 3 continuations, then one stored incomplete message and a warning', async () => {
    const emulator = await e2e.responses({ reasoningOnly: Array(5).fill('max-output-tokens') });
    const sandbox = e2e.sandbox();
    const result = await chatJson(sandbox, ['-q', 'hello there', ...route(emulator)]);

    // The first request and 3 continuations; the emulator still holds the shape no request took.
    expect(emulator.requests.map((request) => request.status)).toEqual([200, 200, 200, 200]);
    expect(emulator.reasoningOnly).toEqual(['max-output-tokens']);
    for (let index = 1; index < 4; index += 1) {
      const input = inputOf(emulator, index);
      expect(users(input)).toEqual([{ role: 'user', content: 'hello there' }]);
      // Each continuation replays every reasoning item received so far, then their empty follower.
      expect(input.filter((item) => item['type'] === 'reasoning')).toHaveLength(index);
      expect(input.at(-1)).toEqual(EMPTY_ASSISTANT);
    }
    expect(result.answer).toBe('');
    const stored = await storedAssistants(sandbox.home, result.session_id);
    expect(stored).toHaveLength(1);
    expect(stored[0]?.finish_reason).toBe('incomplete');
    expect(stored[0]?.codex_reasoning_items).toHaveLength(4);
    expect(readLog(sandbox.home)).toContain('the model returned reasoning only, also after 3 continuation requests');

    // The stored turn replays on the next turn: its items, their follower, then the new question.
    emulator.reasoningOnly.length = 0;
    const next = await chatJson(sandbox, ['--resume', result.session_id, '-q', 'go on', ...route(emulator)]);
    expect(emulator.requests.map((request) => request.status)).toEqual([200, 200, 200, 200, 200]);
    expect(inputOf(emulator, 4).slice(-2)).toEqual([EMPTY_ASSISTANT, { role: 'user', content: 'go on' }]);
    expect(next.answer).toBe('You said: go on\nReasoning continuity: intact (1/1).');
  });

  it('in a tool loop: the continuation calls the tool; the merged turn replays in place, also after --resume', async () => {
    const emulator = await e2e.responses({ reasoningOnly: ['summary-only'] });
    const sandbox = e2e.sandbox();
    const result = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route(emulator)]);

    expect(result.tool_calls.map((call) => call.name)).toEqual(['read_file']);
    expect(emulator.requests.map((request) => request.status)).toEqual([200, 200, 200]);
    const [toolTurn, answerTurn] = await storedAssistants(sandbox.home, result.session_id);
    const items = (toolTurn as AssistantMessage).codex_reasoning_items ?? [];
    expect(items).toHaveLength(2);
    const call = toolTurn?.tool_calls?.[0];
    // After the tool ran: both reasoning items of the merged turn, then the call and its output.
    expect(inputOf(emulator, 2)).toEqual([
      { role: 'user', content: 'read the file notes.txt' },
      wireItem(items[0]),
      wireItem(items[1]),
      { type: 'function_call', call_id: call?.call_id, name: 'read_file', arguments: call?.function.arguments },
      { type: 'function_call_output', call_id: call?.call_id, output: 'alpha beta\n' },
    ]);
    expect(answerTurn?.content).toContain('Reasoning continuity: intact (1/1).');
    const messages = await storedMessages(sandbox.home, result.session_id);
    expect(messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);

    const resumed = await chatJson(sandbox, ['--resume', result.session_id, '-q', 'thanks', ...route(emulator)]);
    expect(resumed.answer).toContain('Reasoning continuity: intact (2/2).');
    expect(emulator.requests.map((request) => request.status)).toEqual([200, 200, 200, 200]);
  });
});
