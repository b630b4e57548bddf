/**
 * Round trips THROUGH the transport over real loopback HTTP against the Anthropic emulator
 * (WIRE.md §2.4 replay rules, §2.6 exact errors, SPEC §9.3, §9.4): direct and Bedrock InvokeModel.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError } from '../../../src/core/errors.js';
import type { AssistantMessage, Message } from '../../../src/core/message.js';
import type { ToolDefinition } from '../../../src/core/tool-definition.js';
import {
  REDACTED_THINKING_TRIGGER,
  startAnthropicEmulator,
  type AnthropicEmulator,
} from '../../../src/emulators/anthropic-messages/anthropic-emulator.js';
import { fingerprintSignedBlocks, isThinkingSignatureError } from '../../../src/replay/anthropic-signature-memory.js';
import { createAnthropicMessagesTransport } from '../../../src/transports/anthropic-messages/anthropic-messages-transport.js';
import type { TransportRequest } from '../../../src/transports/shared/transport.js';
import { NOTHING_LEARNED } from '../../../src/replay/replay-route-profile.js';
import { failureOf } from '../transport-test-helpers.js';

const TOOLS: ToolDefinition[] = [
  {
    name: 'read_file',
    description: 'Read a file',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  },
];
const SYSTEM: Message = { role: 'system', content: 'You are Hermes.' };

let emulator: AnthropicEmulator;
beforeAll(async () => {
  emulator = await startAnthropicEmulator();
});
afterAll(async () => {
  await emulator.close();
});

const transport = createAnthropicMessagesTransport({
  awsCredentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
  environment: {},
});

function request(provider: string, model: string, history: Message[], stream = true): TransportRequest {
  return {
    route: { api: 'anthropic_messages', provider, model, baseUrl: emulator.baseUrl },
    history,
    tools: TOOLS,
    reasoning: { enabled: true, budgetTokens: 2048 },
    apiKey: 'sk-ant-test-key',
    stream,
  };
}

function toolResultFor(message: AssistantMessage, content: string): Message {
  return { role: 'tool', tool_call_id: message.tool_calls?.[0]?.id ?? '', content };
}

const framings: [string, string, string][] = [
  ['direct', 'anthropic', 'claude-sonnet-4-5'],
  ['Bedrock InvokeModel', 'bedrock', 'us.anthropic.claude-sonnet-4-5-v1:0'],
];

describe.each(framings)('tool loop with signed thinking over %s', (framing, provider, model) => {
  it('turn 2 carries turn 1 thinking byte for byte; zero 4xx; continuity intact', async () => {
    const start = emulator.requests.length;
    const history: Message[] = [SYSTEM, { role: 'user', content: 'please read the file notes.txt' }];
    const first = await transport.send(request(provider, model, history)).result();
    expect(first.tool_calls?.[0]?.function).toEqual({ name: 'read_file', arguments: '{"path":"notes.txt"}' });
    expect(first.anthropic_content_blocks?.[0]?.['type']).toBe('thinking');
    expect(first.origin).toEqual({ api: 'anthropic_messages', provider, host: '127.0.0.1', model });
    const before = structuredClone(history);

    history.push(first, toolResultFor(first, 'hello from notes'));
    const second = await transport.send(request(provider, model, history)).result();
    expect(history.slice(0, 2)).toEqual(before);

    const received = emulator.requests.slice(start);
    expect(received.map((entry) => entry.status)).toEqual([200, 200]);
    const thinking = first.anthropic_content_blocks?.[0];
    const body = received[1]?.body as { messages: unknown[]; system: string };
    expect(body.system).toBe('You are Hermes.');
    expect(body.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: thinking?.['thinking'], signature: thinking?.['signature'] },
        { type: 'tool_use', id: first.tool_calls?.[0]?.id, name: 'read_file', input: { path: 'notes.txt' } },
      ],
    });
    expect(received[1]?.raw).toContain(JSON.stringify(thinking?.['signature']));
    expect(second.content).toContain('The tool returned: hello from notes');
    expect(second.content).toContain('Reasoning continuity: intact (1/1).');
    if (framing === 'Bedrock InvokeModel') {
      expect(received[1]?.path).toBe(`/model/${encodeURIComponent(model)}/invoke-with-response-stream`);
      expect(received[1]?.headers['authorization']).toBe('REDACTED');
      expect((received[1]?.body as Record<string, unknown>)['anthropic_version']).toBe('bedrock-2023-05-31');
      expect((received[1]?.body as Record<string, unknown>)['anthropic_beta']).toEqual([
        'interleaved-thinking-2025-05-14',
      ]);
    } else {
      expect(received[1]?.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14');
      expect(received[1]?.headers['anthropic-version']).toBe('2023-06-01');
    }
  });

  it('an altered signature gets the exact WIRE.md §2.6b error as a typed BadRequestError', async () => {
    const history: Message[] = [SYSTEM, { role: 'user', content: 'please read the file notes.txt' }];
    const first = await transport.send(request(provider, model, history)).result();
    const blocks = structuredClone(first.anthropic_content_blocks ?? []);
    const signature = String(blocks[0]?.['signature']);
    blocks[0] = {
      ...blocks[0],
      signature: `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`,
    };
    history.push({ ...first, anthropic_content_blocks: blocks }, toolResultFor(first, 'x'));
    const error = await failureOf(transport.send(request(provider, model, history)));
    expect(error).toBeInstanceOf(BadRequestError);
    const body = (error as BadRequestError).body;
    expect(body).toContain('messages.1.content.0: Invalid `signature` in `thinking` block');
    expect(isThinkingSignatureError(body)).toBe(true);
    expect((error as BadRequestError).message).toContain('Invalid `signature` in `thinking` block');
  });
});

describe('Anthropic emulator rules through the transport', () => {
  it('a tool-loop turn without its thinking gets WIRE.md §2.6a verbatim; the transport sends that history with thinking off instead', async () => {
    const model = 'claude-sonnet-4-5';
    const history: Message[] = [SYSTEM, { role: 'user', content: 'please read the file a.txt' }];
    const first = await transport.send(request('anthropic', model, history)).result();
    const stripped: AssistantMessage = {
      role: 'assistant',
      content: null,
      tool_calls: first.tool_calls ?? [],
      origin: first.origin!,
    };
    history.push(stripped, toolResultFor(first, 'x'));
    const prepared = transport.prepare(request('anthropic', model, history));
    expect(prepared.body['thinking']).toBeUndefined();

    // The emulator rule itself: the same body with thinking on is the exact 400 (WIRE.md §2.6a).
    const forced = await fetch(prepared.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ ...prepared.body, thinking: { type: 'enabled', budget_tokens: 2048 } }),
    });
    expect(forced.status).toBe(400);
    expect(((await forced.json()) as { error: { message: string } }).error.message).toBe(
      'messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking',
    );

    // Through the transport: "To avoid this requirement, disable `thinking`" — one request, 200.
    const before = emulator.requests.length;
    const answer = await transport.send(request('anthropic', model, history)).result();
    expect(answer.content).toContain('The tool returned: x');
    expect(emulator.requests.slice(before).map((received) => received.status)).toEqual([200]);
  });

  it('redacted_thinking round-trips verbatim (non-streaming too)', async () => {
    const model = 'claude-opus-4-8';
    const start = emulator.requests.length;
    const history: Message[] = [SYSTEM, { role: 'user', content: `${REDACTED_THINKING_TRIGGER} read the file r.txt` }];
    const first = await transport.send(request('anthropic', model, history, false)).result();
    expect(first.anthropic_content_blocks?.[0]?.['type']).toBe('redacted_thinking');
    expect(first.reasoning_details).toEqual([
      { type: 'redacted_thinking', data: first.anthropic_content_blocks?.[0]?.['data'] },
    ]);
    history.push(first, toolResultFor(first, 'redacted ok'));
    const second = await transport.send(request('anthropic', model, history)).result();
    const body = emulator.requests[start + 1]?.body as { messages: { content: unknown[] }[] };
    expect(body.messages[1]?.content[0]).toEqual({
      type: 'redacted_thinking',
      data: first.anthropic_content_blocks?.[0]?.['data'],
    });
    expect(second.content).toContain('Reasoning continuity: intact (1/1).');
  });

  it('a forced signature rejection teaches a fingerprint; the retry without it succeeds (SPEC §9.4)', async () => {
    const model = 'claude-opus-4-8';
    const start = emulator.requests.length;
    const history: Message[] = [SYSTEM, { role: 'user', content: 'hello there' }];
    const first = await transport.send(request('anthropic', model, history)).result();
    history.push(first, { role: 'user', content: 'and again' });
    emulator.rejectSignaturesOnRequest(start + 2);
    const turn = request('anthropic', model, history);
    const prepared = transport.prepare(turn);
    const error = (await transport
      .send(turn, prepared)
      .result()
      .catch((caught: unknown) => caught)) as BadRequestError;
    expect(isThinkingSignatureError(error.body)).toBe(true);
    const fingerprints = fingerprintSignedBlocks(prepared.body);
    expect(fingerprints).toHaveLength(1);
    const retried = await transport
      .send({ ...turn, learned: { ...NOTHING_LEARNED, rejectedThinkingFingerprints: fingerprints } })
      .result();
    expect(emulator.requests.slice(start).map((entry) => entry.status)).toEqual([200, 400, 200]);
    const body = emulator.requests[start + 2]?.body as { messages: unknown[] };
    expect(body.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: first.content }] });
    expect(retried.content).toContain('You said: and again');
  });

  it('for a model that keeps prior thinking every earlier turn is verified and reported intact', async () => {
    const model = 'claude-opus-4-8';
    const history: Message[] = [SYSTEM, { role: 'user', content: 'first question' }];
    const first = await transport.send(request('anthropic', model, history)).result();
    history.push(first, { role: 'user', content: 'second question' });
    const second = await transport.send(request('anthropic', model, history)).result();
    expect(second.content).toContain('Reasoning continuity: intact (1/1).');
  });
});
