import { afterEach, describe, expect, it } from 'vitest';
import { startResponsesEmulator } from '../../../src/emulators/responses/responses-emulator.js';
import type { ResponsesEmulator } from '../../../src/emulators/responses/responses-emulator.js';

/**
 * The Responses emulator's reasoning-only answers (SPEC §24.6): queued shapes are served one per
 * request, and the reasoning item they mint verifies when a continuation replays it.
 */

const emulators: ResponsesEmulator[] = [];
afterEach(async () => {
  await Promise.all(emulators.splice(0).map((emulator) => emulator.close()));
});

type Item = Record<string, unknown>;
const BASE = {
  model: 'gpt-5.4',
  store: false,
  include: ['reasoning.encrypted_content'],
  reasoning: { summary: 'auto' },
};

async function post(emulator: ResponsesEmulator, body: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(`${emulator.baseUrl}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

describe('responses emulator reasoning-only answers (SPEC §24.6)', () => {
  it('serves the queued shapes in order, then answers normally', async () => {
    const emulator = await startResponsesEmulator({
      reasoningOnly: ['summary-only', 'temporary-id', 'max-output-tokens'],
    });
    emulators.push(emulator);
    const input = [{ role: 'user', content: 'hello' }];
    const bodies: Item[] = [];
    for (let index = 0; index < 4; index += 1) {
      const answer = await post(emulator, { ...BASE, input });
      expect(answer.status).toBe(200);
      bodies.push(JSON.parse(answer.text) as Item);
    }
    const shapes = bodies.map((body) => ({
      status: body['status'],
      incomplete: body['incomplete_details'],
      types: (body['output'] as Item[]).map((item) => item['type']),
      id: String((body['output'] as Item[])[0]?.['id']).replace(/_[0-9a-f]{48}$/, ''),
    }));
    expect(shapes).toEqual([
      { status: 'completed', incomplete: undefined, types: ['reasoning'], id: 'rs' },
      { status: 'completed', incomplete: undefined, types: ['reasoning'], id: 'rs_tmp' },
      { status: 'incomplete', incomplete: { reason: 'max_output_tokens' }, types: ['reasoning'], id: 'rs' },
      { status: 'completed', incomplete: undefined, types: ['reasoning', 'message'], id: 'rs' },
    ]);
    expect(emulator.reasoningOnly).toEqual([]);
  });

  it('streams response.incomplete for max-output-tokens', async () => {
    const emulator = await startResponsesEmulator({ reasoningOnly: ['max-output-tokens'] });
    emulators.push(emulator);
    const answer = await post(emulator, { ...BASE, stream: true, input: 'hello' });
    const types = answer.text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => (JSON.parse(line.slice(6)) as Item)['type']);
    expect(types.at(-1)).toBe('response.incomplete');
    expect(types).not.toContain('response.output_text.delta');
  });

  it('a continuation replaying the reasoning item before a message or a call verifies; before a user message it does not', async () => {
    const emulator = await startResponsesEmulator({ reasoningOnly: ['summary-only'] });
    emulators.push(emulator);
    const first = JSON.parse((await post(emulator, { ...BASE, input: 'hello' })).text) as { output: Item[] };
    const { id: _id, ...reasoning } = first.output[0]!;
    const user = { role: 'user', content: 'hello' };
    const empty = { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: '' }] };
    const call = { type: 'function_call', call_id: 'call_9', name: 'read_file', arguments: '{}' };
    const continued = await post(emulator, { ...BASE, input: [user, reasoning, empty] });
    expect(continued.status).toBe(200);
    const answer = (JSON.parse(continued.text) as { output: Item[] }).output.find((item) => item['type'] === 'message');
    expect(JSON.stringify(answer)).toContain('Reasoning continuity: intact (1/1).');
    const beforeCall = await post(emulator, {
      ...BASE,
      input: [user, reasoning, call, { type: 'function_call_output', call_id: 'call_9', output: 'x' }],
    });
    expect(beforeCall.status).toBe(200);
    const alone = await post(emulator, { ...BASE, input: [user, reasoning, { role: 'user', content: 'next' }] });
    expect(alone.status).toBe(400);
    expect(alone.text).toContain("of type 'reasoning' was provided without its required following item.");
  });
});
