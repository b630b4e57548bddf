/**
 * The Anthropic emulator's thinking-block binding and the WIRE §8 thinking-shape rules, over raw
 * HTTP: the emulator stands for the provider, so these pin its own reading of the documented rule.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  startAnthropicEmulator,
  type AnthropicEmulator,
  type AnthropicEmulatorOptions,
} from '../../../src/emulators/anthropic-messages/anthropic-emulator.js';

const BETA = 'thinking-binding-controls-2026-08-01';
const running: AnthropicEmulator[] = [];
afterEach(async () => {
  for (const emulator of running.splice(0)) await emulator.close();
});

async function start(options: AnthropicEmulatorOptions): Promise<AnthropicEmulator> {
  const emulator = await startAnthropicEmulator(options);
  running.push(emulator);
  return emulator;
}

type Body = Record<string, unknown>;
type Block = Record<string, unknown>;

function send(emulator: AnthropicEmulator, body: Body, beta = false): Promise<Response> {
  return fetch(`${emulator.baseUrl}/v1/messages`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': 'k',
      'anthropic-version': '2023-06-01',
      ...(beta ? { 'anthropic-beta': BETA } : {}),
    },
    body: JSON.stringify(body),
  });
}

async function post(emulator: AnthropicEmulator, body: Body, beta = false) {
  const response = await send(emulator, body, beta);
  return { status: response.status, body: (await response.json()) as Body };
}

const errorOf = (body: Body) => (body['error'] as { message: string }).message;

function request(system: string, messages: unknown[], extra: Body = {}): Body {
  return { model: 'claude-fable-5-1', max_tokens: 4096, system, thinking: { type: 'adaptive' }, messages, ...extra };
}

/** One answered turn: the history so far with the answer appended. */
async function turn(emulator: AnthropicEmulator, system: string, messages: unknown[], text: string) {
  const next = [...messages, { role: 'user', content: text }];
  const answer = await post(emulator, request(system, next));
  expect(answer.status).toBe(200);
  return [...next, { role: 'assistant', content: answer.body['content'] as Block[] }];
}

/** One turn, then the next request with that turn's assistant content rewritten: the error message. */
async function rewrittenTurnError(
  emulator: AnthropicEmulator,
  rewrite: (content: Block[]) => Block[],
): Promise<string> {
  const history = await turn(emulator, 'S', [], 'one');
  const content = rewrite((history[1] as Block)['content'] as Block[]);
  const answer = await post(
    emulator,
    request('S', [history[0], { role: 'assistant', content }, { role: 'user', content: 'two' }]),
  );
  return errorOf(answer.body);
}

describe('binding error mode', () => {
  it('an unchanged prefix is accepted whatever its form (key order, cache_control, string or blocks)', async () => {
    const emulator = await start({ binding: 'error' });
    const history = await turn(emulator, 'S', [], 'one');
    const reshaped = history.map((message) => {
      const entry = message as Block;
      return typeof entry['content'] === 'string'
        ? {
            content: [{ text: entry['content'], type: 'text', cache_control: { type: 'ephemeral' } }],
            role: entry['role'],
          }
        : entry;
    });
    const again = await post(emulator, request('S', [...reshaped, { role: 'user', content: 'two' }]));
    expect(again.status).toBe(200);
    expect(emulator.binding).toEqual({ rejections: 0, drops: [] });
  });

  it('a changed system prompt is the 400 with the bound wording; drop_block (with the beta) drops it and lists it', async () => {
    const emulator = await start({ binding: 'error' });
    const history = [...(await turn(emulator, 'S', [], 'one')), { role: 'user', content: 'two' }];
    const refused = await post(emulator, request('S, edited', history));
    expect(refused.status).toBe(400);
    expect(errorOf(refused.body)).toContain(
      'messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation.',
    );
    const declared = { thinking: { type: 'adaptive', block_binding: { prefix_mismatch_behavior: 'drop_block' } } };
    const withoutBeta = await post(emulator, request('S, edited', history, declared));
    expect(errorOf(withoutBeta.body)).toBe('thinking.adaptive.block_binding: Extra inputs are not permitted');
    const dropped = await post(emulator, request('S, edited', history, declared), true);
    expect(dropped.status).toBe(200);
    expect(dropped.body['input_transformations']).toEqual([
      { type: 'thinking_dropped', path: 'messages.1.content.0', reason: 'prefix_binding_mismatch' },
    ]);
    expect(emulator.binding.rejections).toBe(1);
    expect(emulator.binding.drops).toEqual([
      { type: 'thinking_dropped', path: 'messages.1.content.0', reason: 'prefix_binding_mismatch', request: 4 },
    ]);
  });

  it('an edited earlier message fails the blocks after it only; a block left out fails the ones after it', async () => {
    const emulator = await start({ binding: 'drop_block' });
    let history = await turn(emulator, 'S', [], 'one');
    history = await turn(emulator, 'S', history, 'two');
    history = await turn(emulator, 'S', history, 'three');
    const edited = history.map((message, index) => (index === 2 ? { role: 'user', content: 'TWO' } : message));
    const answer = await post(emulator, request('S', [...edited, { role: 'user', content: 'four' }]), true);
    expect(answer.body['input_transformations']).toEqual([
      { type: 'thinking_dropped', path: 'messages.3.content.0', reason: 'prefix_binding_mismatch' },
      { type: 'thinking_dropped', path: 'messages.5.content.0', reason: 'prefix_binding_mismatch' },
    ]);
    // Leaving the first block out changes the prefix of every later one.
    const without = history.map((message, index) =>
      index === 1 ? { role: 'assistant', content: ((message as Block)['content'] as Block[]).slice(1) } : message,
    );
    const second = await post(emulator, request('S', [...without, { role: 'user', content: 'four' }]), true);
    expect((second.body['input_transformations'] as Block[]).map((entry) => entry['path'])).toEqual([
      'messages.3.content.0',
      'messages.5.content.0',
    ]);
  });

  it('another model’s block is dropped without an error (model_binding_mismatch), even in error mode', async () => {
    const emulator = await start({ binding: 'error' });
    const history = [...(await turn(emulator, 'S', [], 'one')), { role: 'user', content: 'two' }];
    const answer = await post(emulator, { ...request('S', history), model: 'claude-opus-5-5' }, true);
    expect(answer.status).toBe(200);
    expect(answer.body['input_transformations']).toEqual([
      { type: 'thinking_dropped', path: 'messages.1.content.0', reason: 'model_binding_mismatch' },
    ]);
  });

  it('a modified block in the latest assistant message: "cannot be modified" (WIRE §8)', async () => {
    const edit = (block: Block) =>
      block['type'] === 'thinking' ? { ...block, thinking: `${String(block['thinking'])} (edited)` } : block;
    const message = await rewrittenTurnError(await start({ binding: 'error' }), (content) => content.map(edit));
    expect(message).toBe(
      'messages.1.content.0: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.',
    );
  });

  it('streams input_transformations in message_start when the beta is sent', async () => {
    const emulator = await start({ binding: 'drop_block' });
    const history = [...(await turn(emulator, 'S', [], 'one')), { role: 'user', content: 'two' }];
    const response = await send(emulator, { ...request('S2', history), stream: true }, true);
    const text = await response.text();
    const first = text.split('\n').find((line) => line.startsWith('data: {"type":"message_start"')) ?? '';
    expect(JSON.parse(first.slice(6)).message.input_transformations).toEqual([
      { type: 'thinking_dropped', path: 'messages.1.content.0', reason: 'prefix_binding_mismatch' },
    ]);
  });
});

describe('thinking-shape rules (WIRE §8)', () => {
  it('thinking after text: "the first block must be `thinking` or `redacted_thinking`. Found `text`."', async () => {
    const message = await rewrittenTurnError(await start({}), (content) => [...content].reverse());
    expect(message).toBe(
      'messages.1.content.0: If an assistant message contains any thinking blocks, the first block must be `thinking` or `redacted_thinking`. Found `text`.',
    );
  });

  it('an unsigned empty thinking block (a route that takes unsigned thinking): "each thinking block must contain thinking"', async () => {
    const emulator = await start({});
    const answer = await post(emulator, {
      ...request('S', [
        { role: 'user', content: 'one' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: '' },
            { type: 'text', text: 'a' },
          ],
        },
        { role: 'user', content: 'two' },
      ]),
      model: 'MiniMax-M3',
    });
    expect(errorOf(answer.body)).toBe('messages.1.content.0.thinking: each thinking block must contain thinking');
  });

  it('DeepSeek’s Anthropic format wants every in-flight tool-call turn’s thinking back', async () => {
    const emulator = await start({});
    const call = { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a' } };
    const messages = [
      { role: 'user', content: 'read a' },
      { role: 'assistant', content: [call] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x' }] },
    ];
    const refused = await post(emulator, { ...request('S', messages), model: 'deepseek-v4-pro' });
    expect(errorOf(refused.body)).toBe('The content[].thinking in the thinking mode must be passed back to the API.');
    const padded = [
      messages[0],
      { role: 'assistant', content: [{ type: 'thinking', thinking: ' ' }, call] },
      messages[2],
    ];
    expect((await post(emulator, { ...request('S', padded), model: 'deepseek-v4-pro' })).status).toBe(200);
  });
});
