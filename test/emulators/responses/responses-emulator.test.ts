import { afterEach, describe, expect, it } from 'vitest';
import { startResponsesEmulator } from '../../../src/emulators/responses/responses-emulator.js';
import type { ResponsesEmulator } from '../../../src/emulators/responses/responses-emulator.js';
import { sealReasoningBlob } from '../../../src/emulators/responses/responses-emulator-input.js';

/**
 * The Responses emulator on raw HTTP: the WIRE.md §5.3 event sequence (provisional blob on
 * `.added`, final blob on `.done`) and the exact WIRE.md §5.5 errors.
 */

const emulators: ResponsesEmulator[] = [];
afterEach(async () => {
  await Promise.all(emulators.splice(0).map((emulator) => emulator.close()));
});

async function start(options: Parameters<typeof startResponsesEmulator>[0] = {}): Promise<ResponsesEmulator> {
  const emulator = await startResponsesEmulator(options);
  emulators.push(emulator);
  return emulator;
}

async function post(emulator: ResponsesEmulator, body: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(`${emulator.baseUrl}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-x' },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

/** Posts `input` to a fresh OpenAI-issuer emulator (the BASE request around it). */
async function answerFromOpenAi(
  input: unknown[],
): Promise<{ emulator: ResponsesEmulator; answer: { status: number; text: string } }> {
  const emulator = await start({ issuer: 'openai' });
  return { emulator, answer: await post(emulator, { ...BASE, input }) };
}

function events(sse: string): Record<string, unknown>[] {
  return sse
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
}

const BASE = {
  model: 'gpt-5.4',
  store: false,
  include: ['reasoning.encrypted_content'],
  reasoning: { summary: 'auto' },
};
const TOOL = { type: 'function', name: 'read_file', description: 'Read', parameters: { type: 'object' } };

describe('responses emulator stream (WIRE.md §5.3)', () => {
  it('sends the real event sequence with a different encrypted_content on .added and .done', async () => {
    const emulator = await start();
    const answer = await post(emulator, {
      ...BASE,
      stream: true,
      tools: [TOOL],
      input: [{ role: 'user', content: 'read the file a.txt' }],
    });
    expect(answer.status).toBe(200);
    const stream = events(answer.text);
    const types = [...new Set(stream.map((event) => event['type']))];
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.completed',
    ]);
    const added = stream.find((event) => event['type'] === 'response.output_item.added') as {
      item: { encrypted_content: string };
    };
    const done = stream.find((event) => event['type'] === 'response.output_item.done') as {
      item: { encrypted_content: string };
    };
    expect(added.item.encrypted_content).not.toBe(done.item.encrypted_content);
    // The provisional copy is not replayable: it fails verification like a tampered blob.
    const replay = await post(emulator, {
      ...BASE,
      input: [
        { role: 'user', content: 'read the file a.txt' },
        { type: 'reasoning', encrypted_content: added.item.encrypted_content, summary: [] },
        { type: 'function_call', call_id: 'call_1_1', name: 'read_file', arguments: '{"path":"a.txt"}' },
        { type: 'function_call_output', call_id: 'call_1_1', output: 'x' },
      ],
    });
    expect(replay.status).toBe(400);
    expect(JSON.parse(replay.text).error.code).toBe('invalid_encrypted_content');
  });

  it('rotateIds emulates Copilot: .added and .done ids differ for the same output_index', async () => {
    const emulator = await start({ rotateIds: true });
    const stream = events((await post(emulator, { ...BASE, stream: true, input: 'hello' })).text);
    const added = stream
      .filter((event) => event['type'] === 'response.output_item.added')
      .map((event) => (event['item'] as { id: string }).id);
    const done = stream
      .filter((event) => event['type'] === 'response.output_item.done')
      .map((event) => (event['item'] as { id: string }).id);
    expect(added).toHaveLength(2);
    added.forEach((id, index) => expect(id).not.toBe(done[index]));
  });
});

describe('responses emulator exact errors (WIRE.md §5.5)', () => {
  const blob = sealReasoningBlob('openai', { id: 'rs_1', text: 'thinking', next: 'message', provisional: false });

  const table: [name: string, input: unknown[], status: number, error: Record<string, unknown>][] = [
    [
      'reasoning id without encrypted content under store:false → 404 item not found',
      [
        { role: 'user', content: 'q' },
        { type: 'reasoning', id: 'rs_0de7', summary: [] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a' }] },
      ],
      404,
      {
        message:
          "Item with id 'rs_0de7' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.",
        type: 'invalid_request_error',
        param: 'input',
        code: null,
      },
    ],
    [
      'blob from another issuer → 400 invalid_encrypted_content',
      [
        { role: 'user', content: 'q' },
        {
          type: 'reasoning',
          encrypted_content: sealReasoningBlob('azure', { id: 'rs_1', text: 't', next: 'message', provisional: false }),
          summary: [],
        },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a' }] },
      ],
      400,
      { type: 'invalid_request_error', param: null, code: 'invalid_encrypted_content' },
    ],
    [
      'reasoning item without its following item → 400',
      [
        { role: 'user', content: 'q' },
        { type: 'reasoning', encrypted_content: blob, summary: [] },
        { role: 'user', content: 'next' },
      ],
      400,
      {
        message: "Item 'rs_1' of type 'reasoning' was provided without its required following item.",
        type: 'invalid_request_error',
        param: 'input',
        code: null,
      },
    ],
    [
      'function_call_output without its call → 400',
      [
        { role: 'user', content: 'q' },
        { type: 'function_call_output', call_id: 'call_x', output: 'o' },
      ],
      400,
      {
        message: 'No tool call found for function call output with call_id call_x.',
        type: 'invalid_request_error',
        param: 'input',
        code: null,
      },
    ],
    // SPEC §24.4: output-only keys on an input item get OpenAI's `Unknown parameter` 400 (WIRE.md §5.5).
    ...(['status', 'response_id', '_issuer_kind'] as const).map(
      (key): [string, unknown[], number, Record<string, unknown>] => [
        `reasoning item carrying ${key} → 400 Unknown parameter: 'input[3].${key}' (SPEC §24.4)`,
        [
          { role: 'user', content: 'q' },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a' }] },
          { role: 'user', content: 'q2' },
          { type: 'reasoning', id: 'rs_1', encrypted_content: blob, summary: [], [key]: 'x' },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'b' }] },
        ],
        400,
        {
          message: `Unknown parameter: 'input[3].${key}'.`,
          type: 'invalid_request_error',
          param: `input[3].${key}`,
          code: 'unknown_parameter',
        },
      ],
    ),
    [
      "response_id on any input item → 400 Unknown parameter: 'input[1].response_id' (SPEC §24.4)",
      [
        { role: 'user', content: 'q' },
        { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{}', response_id: 'resp_1' },
        { type: 'function_call_output', call_id: 'call_1', output: 'o' },
      ],
      400,
      {
        message: "Unknown parameter: 'input[1].response_id'.",
        type: 'invalid_request_error',
        param: 'input[1].response_id',
        code: 'unknown_parameter',
      },
    ],
  ];
  for (const [name, input, status, error] of table) {
    it(name, async () => {
      const { emulator, answer } = await answerFromOpenAi(input);
      expect(answer.status).toBe(status);
      const body = JSON.parse(answer.text) as { error: Record<string, unknown> };
      expect(body.error).toEqual(expect.objectContaining(error));
      if (error['code'] === 'invalid_encrypted_content') {
        expect(body.error['message']).toMatch(/^The encrypted content gAAA\.\.\..{4} could not be verified\.$/);
      }
      expect(emulator.requests[0]?.status).toBe(status);
    });
  }

  it('status stays accepted on message and function-call items, whose input schemas have it', async () => {
    const { answer } = await answerFromOpenAi([
      { role: 'user', content: 'q' },
      { type: 'reasoning', id: 'rs_1', encrypted_content: blob, summary: [] },
      { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'a' }] },
      { role: 'user', content: 'again' },
    ]);
    expect(answer.status).toBe(200);
  });

  it('a verified blob followed by its message is accepted and its sealed text is the continuity probe', async () => {
    const { answer } = await answerFromOpenAi([
      { role: 'user', content: 'q' },
      { type: 'reasoning', encrypted_content: blob, summary: [] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a' }] },
      { role: 'user', content: 'again' },
    ]);
    expect(answer.status).toBe(200);
    const output = (JSON.parse(answer.text) as { output: { type: string; content?: { text: string }[] }[] }).output;
    // The sealed text has no continuity nonce, so the scripted model reports it as altered.
    expect(output.find((item) => item.type === 'message')?.content?.[0]?.text).toContain(
      'Reasoning continuity: broken (0 intact, 1 altered, 0 missing of 1).',
    );
  });
});
