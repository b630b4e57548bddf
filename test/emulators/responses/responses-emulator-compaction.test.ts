import { afterEach, describe, expect, it } from 'vitest';
import { startResponsesEmulator } from '../../../src/emulators/responses/responses-emulator.js';
import type {
  ResponsesEmulator,
  ResponsesEmulatorOptions,
} from '../../../src/emulators/responses/responses-emulator.js';

/**
 * The Responses emulator's native compaction (SPEC §24.7): `context_management` is honoured (a
 * `compaction` item before the answer once the input passes `compact_threshold`), the checkpoint
 * verifies only at its issuer, and a deployment without the feature refuses the parameter.
 */

const emulators: ResponsesEmulator[] = [];
afterEach(async () => {
  await Promise.all(emulators.splice(0).map((emulator) => emulator.close()));
});

type Item = Record<string, unknown>;
const INPUT = [{ role: 'user', content: 'hello there, please answer' }];

async function start(options: ResponsesEmulatorOptions = {}): Promise<ResponsesEmulator> {
  const emulator = await startResponsesEmulator(options);
  emulators.push(emulator);
  return emulator;
}

async function post(emulator: ResponsesEmulator, body: Item): Promise<{ status: number; text: string }> {
  const response = await fetch(`${emulator.baseUrl}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-5.6', store: false, input: INPUT, ...body }),
  });
  return { status: response.status, text: await response.text() };
}

function compact(threshold: number): Item {
  return { context_management: [{ type: 'compaction', compact_threshold: threshold }] };
}

function outputOf(text: string): Item[] {
  return (JSON.parse(text) as { output: Item[] }).output;
}

describe('responses emulator native compaction (SPEC §24.7)', () => {
  it('returns a compaction item before the answer once the input passes compact_threshold', async () => {
    const emulator = await start();
    const answer = await post(emulator, compact(1));
    expect(answer.status).toBe(200);
    const output = outputOf(answer.text);
    expect(output.map((item) => item['type'])).toEqual(['compaction', 'reasoning', 'message']);
    const checkpoint = output[0] as Item;
    expect(Object.keys(checkpoint).sort()).toEqual(['encrypted_content', 'id', 'type']);
    expect(checkpoint['id']).toMatch(/^cmp_[0-9a-f]{48}$/);
    expect(typeof checkpoint['encrypted_content']).toBe('string');
    expect(checkpoint['encrypted_content']).not.toContain('input tokens');
  });

  it('does not compact below the threshold, nor without context_management', async () => {
    const emulator = await start();
    for (const body of [compact(200_000), {}]) {
      const answer = await post(emulator, body);
      expect(answer.status).toBe(200);
      expect(outputOf(answer.text).map((item) => item['type'])).toEqual(['reasoning', 'message']);
    }
  });

  it('streams the compaction item as output_item.added and .done', async () => {
    const emulator = await start();
    const answer = await post(emulator, { ...compact(1), stream: true });
    expect(answer.status).toBe(200);
    const events = answer.text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as Item);
    const first = events.filter((event) => event['output_index'] === 0).map((event) => event['type']);
    expect(first).toEqual(['response.output_item.added', 'response.output_item.done']);
    const done = events.find((event) => event['type'] === 'response.output_item.done');
    expect((done?.['item'] as Item)['type']).toBe('compaction');
  });

  it('accepts its own checkpoint replayed; refuses a tampered one or another issuer', async () => {
    const emulator = await start();
    const checkpoint = outputOf((await post(emulator, compact(1))).text)[0] as Item;
    const replay = { type: 'compaction', encrypted_content: checkpoint['encrypted_content'] };
    const accepted = await post(emulator, { input: [replay, ...INPUT] });
    expect(accepted.status).toBe(200);

    const tampered = await post(emulator, { input: [{ ...replay, encrypted_content: 'x' }, ...INPUT] });
    expect(tampered.status).toBe(400);
    expect(tampered.text).toContain('invalid_encrypted_content');

    const other = await start({ issuer: 'another-deployment' });
    const foreign = await post(other, { input: [replay, ...INPUT] });
    expect(foreign.status).toBe(400);
    expect(foreign.text).toContain('invalid_encrypted_content');
  });

  it('rejectContextManagement answers the OpenAI unknown-parameter 400, naming it', async () => {
    const emulator = await start({ rejectContextManagement: true });
    const refused = await post(emulator, compact(1));
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.text)).toEqual({
      error: {
        message: "Unknown parameter: 'context_management'.",
        type: 'invalid_request_error',
        param: 'context_management',
        code: 'unknown_parameter',
      },
    });
    expect((await post(emulator, {})).status).toBe(200);
  });

  it('refuses a malformed context_management', async () => {
    const emulator = await start();
    const refused = await post(emulator, { context_management: [{ type: 'compaction' }] });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.text)).toMatchObject({ error: { param: 'context_management', code: 'invalid_value' } });
  });
});
