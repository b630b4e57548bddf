import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { BedrockEmulator } from '../../../src/emulators/bedrock-converse/bedrock-converse-emulator.js';
import { startBedrockEmulator } from '../../../src/emulators/bedrock-converse/bedrock-converse-emulator.js';
import { THINKING_SIGNATURE_PURPOSE } from '../../../src/emulators/bedrock-converse/bedrock-converse-emulator-rules.js';
import { signText } from '../../../src/emulators/shared/emulator-sealing.js';

/**
 * The Bedrock emulator over raw HTTP (WIRE.md §3.3, §3.4): service error envelope, exact
 * ValidationException texts, event-stream framing.
 */

let emulator: BedrockEmulator;
beforeEach(async () => {
  emulator = await startBedrockEmulator();
});
afterEach(async () => {
  await emulator.close();
});

const SIGV4 =
  'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/us-east-1/bedrock/aws4_request, SignedHeaders=host, Signature=abc';
const THINKING = { thinking: { type: 'enabled', budget_tokens: 1024 } };
const TOOLS = { tools: [{ toolSpec: { name: 'read_file', inputSchema: { json: { type: 'object' } } } }] };

async function post(model: string, body: unknown, operation = 'converse', authorization: string | null = SIGV4) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (authorization !== null) headers['authorization'] = authorization;
  const response = await fetch(`${emulator.baseUrl}/model/${encodeURIComponent(model)}/${operation}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  return { response, bytes: new Uint8Array(await response.arrayBuffer()) };
}

async function expectValidation(model: string, body: unknown, message: string) {
  const { response, bytes } = await post(model, body);
  expect(response.status).toBe(400);
  expect(response.headers.get('x-amzn-errortype')).toMatch(/^ValidationException:/);
  expect(JSON.parse(new TextDecoder().decode(bytes))).toEqual({ message });
}

describe('Bedrock emulator rules (WIRE.md §3.4)', () => {
  it('requires an Authorization header (any SigV4 signature is accepted)', async () => {
    const { response } = await post('anthropic.claude-sonnet-4-5-20250929-v1:0', { messages: [] }, 'converse', null);
    expect(response.status).toBe(403);
    expect(response.headers.get('x-amzn-errortype')).toMatch(/^MissingAuthenticationTokenException/);
  });

  it('DeepSeek R1 refuses reasoning on input with the service text', async () => {
    await expectValidation(
      'us.deepseek.r1-v1:0',
      {
        messages: [
          { role: 'user', content: [{ text: 'hi' }] },
          {
            role: 'assistant',
            content: [{ reasoningContent: { reasoningText: { text: 'thought' } } }, { text: 'hello' }],
          },
          { role: 'user', content: [{ text: 'again' }] },
        ],
      },
      'User messages cannot contain reasoning content. Please remove the reasoning content and try again.',
    );
  });

  it('Claude tool loop without thinking: the relayed Anthropic error (langchain-aws#844)', async () => {
    await expectValidation(
      'us.anthropic.claude-3-7-sonnet-20250219-v1:0',
      {
        messages: [
          { role: 'user', content: [{ text: 'read a.txt' }] },
          {
            role: 'assistant',
            content: [{ text: 'Reading.' }, { toolUse: { toolUseId: 't1', name: 'read_file', input: {} } }],
          },
          { role: 'user', content: [{ toolResult: { toolUseId: 't1', content: [{ text: 'x' }], status: 'success' } }] },
        ],
        toolConfig: TOOLS,
        additionalModelRequestFields: THINKING,
      },
      'The model returned the following errors: messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking',
    );
  });

  const reasoningOnly = (signature: string) => ({
    messages: [
      { role: 'user', content: [{ text: 'hi' }] },
      { role: 'assistant', content: [{ reasoningContent: { reasoningText: { text: 't', signature } } }] },
      { role: 'user', content: [{ text: 'again' }] },
    ],
  });

  it('Claude: an altered signature is the relayed invalid-signature error (WIRE.md §2.6b)', async () => {
    await expectValidation(
      'anthropic.claude-sonnet-5',
      reasoningOnly('bad'),
      'The model returned the following errors: messages.1.content.0: Invalid `signature` in `thinking` block',
    );
  });

  it('Claude: a reasoning-only assistant turn with a valid signature is prefill (hermes-agent#105780)', async () => {
    await expectValidation(
      'anthropic.claude-sonnet-5',
      reasoningOnly(signText(THINKING_SIGNATURE_PURPOSE, 't')),
      'This model does not support assistant message prefill. The conversation must end with a user message.',
    );
  });

  it('an empty assistant turn: the Converse empty-content text (claude-code#13709)', async () => {
    await expectValidation(
      'openai.gpt-oss-120b-1:0',
      {
        messages: [
          { role: 'user', content: [{ text: 'hi' }] },
          { role: 'assistant', content: [] },
          { role: 'user', content: [{ text: 'x' }] },
        ],
      },
      'The content field in the Message object at messages.1 is empty. Add a ContentBlock object to the content field and try again.',
    );
  });
});

describe('ConverseStream framing (WIRE.md §3.3)', () => {
  it('Claude with thinking: messageStart, reasoning deltas, its own signature delta, no contentBlockStart for reasoning/text', async () => {
    const { response, bytes } = await post(
      'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      {
        messages: [{ role: 'user', content: [{ text: 'Please read the file a.txt' }] }],
        toolConfig: TOOLS,
        additionalModelRequestFields: THINKING,
      },
      'converse-stream',
    );
    expect(response.headers.get('content-type')).toBe('application/vnd.amazon.eventstream');
    const codec = new EventStreamCodec(toUtf8, fromUtf8);
    const events: { type: string; payload: Record<string, unknown> }[] = [];
    // Each frame starts with its total length (big-endian uint32 prelude).
    const frames: Uint8Array[] = [];
    for (let offset = 0; offset < bytes.length;) {
      const length = new DataView(bytes.buffer, bytes.byteOffset + offset, 4).getUint32(0);
      frames.push(bytes.subarray(offset, offset + length));
      offset += length;
    }
    for (const message of frames.map((frame) => codec.decode(frame))) {
      expect(message.headers[':message-type']?.value).toBe('event');
      expect(message.headers[':content-type']?.value).toBe('application/json');
      events.push({
        type: String(message.headers[':event-type']?.value),
        payload: JSON.parse(toUtf8(message.body)) as Record<string, unknown>,
      });
    }
    expect(events[0]?.type).toBe('messageStart');
    expect(events.every((event) => typeof event.payload['p'] === 'string')).toBe(true);
    const starts = events.filter((event) => event.type === 'contentBlockStart');
    expect(starts.map((event) => event.payload['contentBlockIndex'])).toEqual([1]);
    const signatureDeltas = events.filter(
      (event) =>
        (event.payload['delta'] as { reasoningContent?: { signature?: string } } | undefined)?.reasoningContent
          ?.signature !== undefined,
    );
    expect(signatureDeltas).toHaveLength(1);
    expect(events.map((event) => event.type).slice(-2)).toEqual(['messageStop', 'metadata']);
    expect(events.at(-2)?.payload['stopReason']).toBe('tool_use');
    expect(emulator.requests).toHaveLength(1);
    expect(emulator.requests[0]?.headers['authorization']).toBe('REDACTED');
  });
});
