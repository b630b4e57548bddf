/**
 * SPEC §24.2: the Anthropic emulator's MiniMax behaviour over raw HTTP — served under
 * `/anthropic/v1/messages`, unsigned thinking blocks are read (Claude models still require a
 * signature), MiniMax thinks unless told `{"type":"disabled"}`, and MiniMax-M3 accepts only
 * `adaptive` or `disabled`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startAnthropicEmulator,
  type AnthropicEmulator,
} from '../../../src/emulators/anthropic-messages/anthropic-emulator.js';

let emulator: AnthropicEmulator;
beforeAll(async () => {
  emulator = await startAnthropicEmulator();
});
afterAll(async () => {
  await emulator.close();
});

async function post(body: unknown, path = '/anthropic/v1/messages') {
  const response = await fetch(`${emulator.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const unsignedLoop = [
  { role: 'user', content: 'read the file notes.txt' },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'I should read notes.txt.' },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'notes.txt' } },
    ],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'alpha beta' }] },
];

function contentTypes(body: Record<string, unknown>): string[] {
  return (body['content'] as { type: string }[]).map((block) => block.type);
}

describe('SPEC §24.2 MiniMax on the Anthropic emulator', () => {
  it('reads an unsigned thinking block in the tool loop and answers with thinking (adaptive)', async () => {
    const answer = await post({
      model: 'MiniMax-M3',
      max_tokens: 4096,
      thinking: { type: 'adaptive' },
      tools: [{ name: 'read_file', description: 'Read', input_schema: { type: 'object' } }],
      messages: unsignedLoop,
    });
    expect(answer.status).toBe(200);
    expect(contentTypes(answer.body)[0]).toBe('thinking');
  });

  it('the same unsigned block is rejected for a Claude model (signature required)', async () => {
    const answer = await post(
      { model: 'claude-opus-4-8', max_tokens: 4096, thinking: { type: 'adaptive' }, messages: unsignedLoop },
      '/v1/messages',
    );
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('messages.1.content.0.thinking.signature: Field required');
  });

  it('MiniMax thinks unless told disabled', async () => {
    const base = { model: 'MiniMax-M3', max_tokens: 1024, messages: [{ role: 'user', content: 'hi' }] };
    expect(contentTypes((await post(base)).body)).toContain('thinking');
    expect(contentTypes((await post({ ...base, thinking: { type: 'disabled' } })).body)).not.toContain('thinking');
  });

  it('MiniMax-M3 rejects the budget form of the thinking parameter', async () => {
    const answer = await post({
      model: 'MiniMax-M3',
      max_tokens: 4096,
      thinking: { type: 'enabled', budget_tokens: 2048 },
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('accepts \\"adaptive\\" or \\"disabled\\"');
  });
});
