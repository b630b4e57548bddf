/**
 * WIRE.md §2.1 / §2.5 request shapes per platform (exact bodies), Vertex and Foundry against a tiny
 * in-test server asserting URL, headers and body, plus retry and error mapping (STYLE rule 5 (docs/architecture.md)).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RateLimitError } from '../../../src/core/errors.js';
import type { Message } from '../../../src/core/message.js';
import { prepareAnthropicMessages } from '../../../src/transports/anthropic-messages/anthropic-messages-encode.js';
import { createAnthropicMessagesTransport } from '../../../src/transports/anthropic-messages/anthropic-messages-transport.js';
import type { TransportRequest } from '../../../src/transports/shared/transport.js';

const HISTORY: Message[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'hi' },
];

function turn(
  provider: string,
  model: string,
  baseUrl: string | undefined,
  extra: Partial<TransportRequest> = {},
): TransportRequest {
  return {
    route: { api: 'anthropic_messages', provider, model, baseUrl },
    history: HISTORY,
    tools: [{ name: 'read_file', description: 'Read', parameters: { type: 'object' } }],
    reasoning: { enabled: true, effort: 'high' },
    maxTokens: 8000,
    ...extra,
  };
}

const messages = [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }];
const tools = [{ name: 'read_file', description: 'Read', input_schema: { type: 'object' } }];
/** What every body below carries from `turn()`: max tokens, the lifted system prompt, the messages and tools. */
const SHARED_BODY = { max_tokens: 8000, system: 'Be brief.', messages, tools };
/** Adaptive thinking with the effort asked (Opus 4.6+, WIRE.md §2.1). */
const ADAPTIVE_HIGH = { thinking: { type: 'adaptive' }, output_config: { effort: 'high' } };

describe('exact request bodies per platform (WIRE.md §2.1, §2.5)', () => {
  it('direct, enabled thinking with budget below max_tokens', () => {
    const prepared = prepareAnthropicMessages(turn('anthropic', 'claude-sonnet-4-5', undefined));
    expect(prepared.url).toBe('https://api.anthropic.com/v1/messages');
    expect(prepared.body).toEqual({
      model: 'claude-sonnet-4-5',
      ...SHARED_BODY,
      thinking: { type: 'enabled', budget_tokens: 7999 },
      stream: true,
    });
    expect(prepared.routeKey).toBe('anthropic||claude-sonnet-4-5');
    expect(prepared.carriersSent).toEqual([]);
  });

  it('direct, adaptive thinking with output_config.effort (Opus 4.6+)', () => {
    const prepared = prepareAnthropicMessages(
      turn('anthropic', 'claude-opus-4-6', 'https://api.anthropic.com', { stream: false }),
    );
    expect(prepared.body).toEqual({
      model: 'claude-opus-4-6',
      ...SHARED_BODY,
      ...ADAPTIVE_HIGH,
    });
  });

  it('Bedrock InvokeModel: no model, no stream, anthropic_version and anthropic_beta in the body', () => {
    const prepared = prepareAnthropicMessages(
      turn('bedrock', 'us.anthropic.claude-sonnet-4-5-v1:0', 'https://bedrock-runtime.us-west-2.amazonaws.com', {
        reasoning: { enabled: true, budgetTokens: 500 },
      }),
    );
    expect(prepared.url).toBe(
      'https://bedrock-runtime.us-west-2.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-v1%3A0/invoke-with-response-stream',
    );
    expect(prepared.body).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      ...SHARED_BODY,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      anthropic_beta: ['interleaved-thinking-2025-05-14'],
    });
  });

  it('Vertex: model in the URL, anthropic_version vertex-2023-10-16', () => {
    const base = 'https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5';
    const prepared = prepareAnthropicMessages(
      turn('vertex', 'claude-opus-4-8', base, { reasoning: { enabled: false } }),
    );
    expect(prepared.url).toBe(`${base}/publishers/anthropic/models/claude-opus-4-8:streamRawPredict`);
    expect(prepared.body).toEqual({
      anthropic_version: 'vertex-2023-10-16',
      ...SHARED_BODY,
      stream: true,
    });
  });

  it('compatible hosts append /v1/messages to their base path', () => {
    expect(prepareAnthropicMessages(turn('minimax', 'MiniMax-M2', 'https://api.minimax.io/anthropic')).url).toBe(
      'https://api.minimax.io/anthropic/v1/messages',
    );
    expect(prepareAnthropicMessages(turn('kimi', 'kimi-for-coding', 'https://api.kimi.com/coding/')).url).toBe(
      'https://api.kimi.com/coding/v1/messages',
    );
    expect(
      prepareAnthropicMessages(turn('foundry', 'claude-opus-4-8', 'https://r.services.ai.azure.com/anthropic/v1')).url,
    ).toBe('https://r.services.ai.azure.com/anthropic/v1/messages');
  });
});

interface Seen {
  url: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

const MESSAGE = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  content: [
    { type: 'thinking', thinking: 'ok', signature: 'SIG' },
    { type: 'text', text: 'hello' },
  ],
  stop_reason: 'end_turn',
  usage: { input_tokens: 5, output_tokens: 2 },
};

/** A one-purpose server: records what arrived, answers the queued replies in order. */
async function startServer(
  replies: { status: number; body: string; headers?: Record<string, string> }[],
): Promise<{ origin: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      seen.push({
        url: incoming.url ?? '',
        headers: incoming.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
      });
      const reply = replies[Math.min(seen.length - 1, replies.length - 1)]!;
      response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      response.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, seen };
}

describe('Vertex and Foundry over loopback (in-test server asserts URL, headers, body)', () => {
  it('Vertex: bearer token from the injected ADC function, rawPredict URL, no model in body', async () => {
    const { origin, seen } = await startServer([{ status: 200, body: JSON.stringify(MESSAGE) }]);
    const transport = createAnthropicMessagesTransport({
      getAccessToken: async () => 'ya29.test-token',
      environment: {},
    });
    const base = `${origin}/v1/projects/p/locations/us-east5`;
    const message = await transport.send(turn('vertex', 'claude-opus-4-8', base, { stream: false })).result();
    expect(seen[0]?.url).toBe(
      '/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-opus-4-8:rawPredict',
    );
    expect(seen[0]?.headers.authorization).toBe('Bearer ya29.test-token');
    expect(seen[0]?.headers['x-api-key']).toBeUndefined();
    expect(seen[0]?.body).toEqual({
      anthropic_version: 'vertex-2023-10-16',
      ...SHARED_BODY,
      ...ADAPTIVE_HIGH,
    });
    expect(message.anthropic_content_blocks).toEqual(MESSAGE.content);
  });

  it('Foundry: api-key header, anthropic-version, /anthropic/v1/messages', async () => {
    const { origin, seen } = await startServer([{ status: 200, body: JSON.stringify(MESSAGE) }]);
    const transport = createAnthropicMessagesTransport({ environment: {} });
    await transport
      .send(turn('foundry', 'claude-opus-4-8', `${origin}/anthropic`, { stream: false, apiKey: 'foundry-key' }))
      .result();
    expect(seen[0]?.url).toBe('/anthropic/v1/messages');
    expect(seen[0]?.headers['api-key']).toBe('foundry-key');
    expect(seen[0]?.headers['anthropic-version']).toBe('2023-06-01');
    expect((seen[0]?.body as { model: string }).model).toBe('claude-opus-4-8');
  });
});

describe('retries and error mapping', () => {
  it('retries a 529 before any event, then succeeds; emits a retry event', async () => {
    const overloaded = JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    const { origin, seen } = await startServer([
      { status: 529, body: overloaded },
      { status: 200, body: JSON.stringify(MESSAGE) },
    ]);
    const sleeps: number[] = [];
    const transport = createAnthropicMessagesTransport({
      environment: {},
      sleep: async (ms) => void sleeps.push(ms),
      random: () => 0,
    });
    const stream = transport.send(turn('anthropic', 'claude-opus-4-8', origin, { stream: false, apiKey: 'k' }));
    const events = [];
    for await (const event of stream) events.push(event.type);
    expect(seen).toHaveLength(2);
    expect(sleeps).toEqual([500]);
    expect(events[0]).toBe('retry');
    expect(events[events.length - 1]).toBe('finish');
  });

  it('a 429 with retry-after beyond the cap surfaces a typed RateLimitError with request id, key never echoed', async () => {
    const body = JSON.stringify({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'slow down sk-secret-key' },
      request_id: 'req_42',
    });
    const { origin } = await startServer([{ status: 429, body, headers: { 'retry-after': '3600' } }]);
    const transport = createAnthropicMessagesTransport({ environment: {}, sleep: async () => undefined });
    const error = (await transport
      .send(turn('anthropic', 'claude-opus-4-8', origin, { apiKey: 'sk-secret-key' }))
      .result()
      .catch((caught: unknown) => caught)) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.requestId).toBe('req_42');
    expect(error.body).not.toContain('sk-secret-key');
    expect(error.message).toContain('slow down [redacted]');
  });

  it('abort ends the stream with AbortError', async () => {
    const { origin } = await startServer([{ status: 200, body: JSON.stringify(MESSAGE) }]);
    const controller = new AbortController();
    controller.abort();
    const transport = createAnthropicMessagesTransport({ environment: {} });
    const error = await transport
      .send(turn('anthropic', 'claude-opus-4-8', origin, { apiKey: 'k', signal: controller.signal }))
      .result()
      .catch((caught: unknown) => caught);
    expect((error as Error).name).toBe('AbortError');
  });
});
