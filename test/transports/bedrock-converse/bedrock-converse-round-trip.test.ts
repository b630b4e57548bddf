import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AbortError, BadRequestError } from '../../../src/core/errors.js';
import type { AssistantMessage, Message } from '../../../src/core/message.js';
import type { ToolDefinition } from '../../../src/core/tool-definition.js';
import type { BedrockEmulator } from '../../../src/emulators/bedrock-converse/bedrock-converse-emulator.js';
import { startBedrockEmulator } from '../../../src/emulators/bedrock-converse/bedrock-converse-emulator.js';
import { createBedrockConverseTransport } from '../../../src/transports/bedrock-converse/bedrock-converse-transport.js';
import type { TransportRequest } from '../../../src/transports/shared/transport.js';
import { TEST_CREDENTIALS, bedrockRoute, validationExceptionBody } from './bedrock-converse-fixtures.js';
import { failureOf } from '../transport-test-helpers.js';

/**
 * Round trips THROUGH the transport over loopback HTTP against the Bedrock emulator (SPEC §10,
 * WIRE.md §3.4): turn 1 asks to read a file (tool call with reasoning), the tool result is
 * appended, turn 2 answers; the bytes of request 2 must carry the reasoning per the model's policy.
 */

const READ_FILE: ToolDefinition = {
  name: 'read_file',
  description: 'Read a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

let emulator: BedrockEmulator;
const transport = createBedrockConverseTransport({ credentials: TEST_CREDENTIALS, environment: {} });

beforeEach(async () => {
  emulator = await startBedrockEmulator();
});
afterEach(async () => {
  await emulator.close();
});

function request(model: string, history: Message[], stream = true): TransportRequest {
  return {
    route: bedrockRoute(model, emulator.baseUrl),
    history,
    tools: [READ_FILE],
    reasoning: { enabled: true },
    stream,
    maxTokens: 4096,
  };
}

async function toolLoop(model: string, stream = true) {
  const history: Message[] = [{ role: 'user', content: 'Please read the file notes.txt' }];
  const first = await transport.send(request(model, history, stream)).result();
  const call = first.tool_calls?.[0];
  if (!call) throw new Error('turn 1 made no tool call');
  history.push(first, { role: 'tool', tool_call_id: call.id, content: 'hello from notes.txt' });
  const before = structuredClone(history);
  const prepared = transport.prepare(request(model, history, stream));
  const second = await transport.send(request(model, history, stream), prepared).result();
  expect(history).toEqual(before);
  return { first, second, history, prepared };
}

describe('Claude (signed policy) tool loop through the emulator (WIRE.md §3.4, SPEC §10)', () => {
  it.each([true, false])(
    'stream=%s: request 2 carries reasoningText{text, signature} verbatim, zero 4xx, continuity intact',
    async (stream) => {
      const model = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
      const { first, second, prepared } = await toolLoop(model, stream);
      const signature = first.reasoning_details?.[0]?.['signature'];
      expect(typeof signature).toBe('string');
      const sent = emulator.requests[1];
      expect(sent?.raw).toBe(JSON.stringify(prepared.body));
      expect((sent?.body as { messages: unknown[] }).messages[1]).toEqual({
        role: 'assistant',
        content: [
          { reasoningContent: { reasoningText: { text: first.reasoning_content, signature } } },
          { toolUse: { toolUseId: first.tool_calls?.[0]?.id, name: 'read_file', input: { path: 'notes.txt' } } },
        ],
      });
      expect(emulator.requests.map((entry) => entry.status)).toEqual([200, 200]);
      expect(emulator.requests[1]?.headers['authorization']).toBe('REDACTED');
      expect(second.content).toContain('Reasoning continuity: intact (1/1).');
      expect(second.origin).toEqual({ api: 'bedrock_converse', provider: 'bedrock', host: '127.0.0.1', model });
    },
  );

  it('replays from Anthropic-shaped reasoning_details when the sidecar is gone (turn reloaded without it)', async () => {
    const model = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
    const { history, prepared } = await toolLoop(model);
    const withoutSidecar = history.map((message) => {
      if (message.role !== 'assistant') return message;
      const copy: AssistantMessage = { ...message };
      delete copy.bedrock_content_blocks;
      return copy;
    });
    const reloaded = transport.prepare(request(model, withoutSidecar));
    expect(reloaded.body).toEqual(prepared.body);
    const answer = await transport.send(request(model, withoutSidecar), reloaded).result();
    expect(answer.content).toContain('Reasoning continuity: intact (1/1).');
    expect(emulator.requests.at(-1)?.status).toBe(200);
  });

  it("an altered signature gets Bedrock's exact ValidationException as a typed BadRequestError", async () => {
    const model = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
    const { history } = await toolLoop(model);
    const tampered = history.map((message) => {
      if (message.role !== 'assistant') return message;
      const blocks = structuredClone(message.bedrock_content_blocks ?? []);
      const reasoningText = (blocks[0]?.['reasoningContent'] as { reasoningText: { signature: string } }).reasoningText;
      reasoningText.signature = `A${reasoningText.signature.slice(1)}`;
      return { ...message, bedrock_content_blocks: blocks };
    });
    const error = await failureOf(transport.send(request(model, tampered)));
    expect(error).toBeInstanceOf(BadRequestError);
    const badRequest = error as BadRequestError;
    expect(badRequest.status).toBe(400);
    expect(JSON.parse(badRequest.body)).toEqual(
      validationExceptionBody('messages.1.content.0: Invalid `signature` in `thinking` block'),
    );
    expect(badRequest.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(emulator.requests.at(-1)?.status).toBe(400);
  });
});

describe('per-model policies end to end (SPEC §10 "Done when")', () => {
  it('a DeepSeek-R1 id gets strip: no reasoning goes back and Bedrock does not reject', async () => {
    const { first, second } = await toolLoop('us.deepseek.r1-v1:0');
    expect(first.reasoning_content).toMatch(/^Turn 1:/);
    const assistant = (emulator.requests[1]?.body as { messages: unknown[] }).messages[1];
    expect(assistant).toEqual({
      role: 'assistant',
      content: [{ toolUse: { toolUseId: first.tool_calls?.[0]?.id, name: 'read_file', input: { path: 'notes.txt' } } }],
    });
    expect(emulator.requests.map((entry) => entry.status)).toEqual([200, 200]);
    expect(second.content).toContain('Reasoning continuity: broken (0 intact, 0 altered, 1 missing of 1).');
  });

  it('a Kimi id (unsigned policy) gets its reasoning text back as think-tag text, continuity intact', async () => {
    const { first, second } = await toolLoop('moonshot.kimi-k2-thinking');
    const assistant = (emulator.requests[1]?.body as { messages: unknown[] }).messages[1];
    expect(assistant).toEqual({
      role: 'assistant',
      content: [
        { text: `<think>\n${first.reasoning_content}\n</think>` },
        { toolUse: { toolUseId: first.tool_calls?.[0]?.id, name: 'read_file', input: { path: 'notes.txt' } } },
      ],
    });
    expect(second.content).toContain('Reasoning continuity: intact (1/1).');
  });
});

describe('self-heal and abort', () => {
  it('a ValidationException about redacted content ends the stream with a 400: the runtime recovers it (SPEC §10)', async () => {
    const model = 'us.anthropic.claude-3-7-sonnet-20250219-v1:0';
    const history: Message[] = [{ role: 'user', content: 'ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING_46C9A13E' }];
    const first = await transport.send(request(model, history)).result();
    expect(first.reasoning_details?.[0]?.['type']).toBe('redacted_thinking');
    history.push(first, { role: 'user', content: 'What was that?' });
    emulator.faults.add({
      kind: 'status',
      status: 400,
      body: JSON.stringify(
        validationExceptionBody('messages.1.content.0: Invalid `data` in `redacted_thinking` block'),
      ),
    });
    const error = await failureOf(transport.send(request(model, history)));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(emulator.requests.map((entry) => entry.status)).toEqual([200, 400]);
  });

  it('an aborted request ends with AbortError', async () => {
    const controller = new AbortController();
    controller.abort();
    const history: Message[] = [{ role: 'user', content: 'hi' }];
    const error = await failureOf(
      transport.send({
        ...request('us.anthropic.claude-sonnet-4-5-20250929-v1:0', history),
        signal: controller.signal,
      }),
    );
    expect(error).toBeInstanceOf(AbortError);
  });
});
