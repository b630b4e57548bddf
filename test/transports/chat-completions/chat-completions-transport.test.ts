import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AbortError,
  BadRequestError,
  ConnectionError,
  InternalServerError,
  StreamError,
} from '../../../src/core/errors.js';
import type { StreamEvent } from '../../../src/core/stream-event.js';
import { createChatCompletionsTransport } from '../../../src/transports/chat-completions/chat-completions-transport.js';
import type { PreparedRequest, TransportRequest } from '../../../src/transports/shared/transport.js';
import { collectEvents } from '../transport-test-helpers.js';

/**
 * The chat-completions transport over real loopback HTTP against a tiny scripted server
 *: streaming and JSON success, retries with `retry-after`, exhaustion,
 * dropped connections, malformed and error chunks, OpenRouter error envelopes, abort.
 * Backoff sleeps are injected and recorded, so no test waits for real time.
 */

type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void;

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

const API_KEY = 'sk-test-key-1234567890';
let server: Server;
let baseUrl = '';
let handlers: Handler[] = [];
let received: Received[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (piece: string) => (body += piece));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      const handler = handlers[Math.min(received.length - 1, handlers.length - 1)];
      if (handler) handler(request, response, body);
      else response.writeHead(500).end('no handler');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  handlers = [];
  received = [];
});

function chunk(
  delta: Record<string, unknown>,
  finishReason: string | null = null,
  extra: Record<string, unknown> = {},
): string {
  return `data: ${JSON.stringify({ id: 'gen-1', choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`;
}

function sseHandler(parts: string[], options: { dropAfter?: boolean; hang?: boolean } = {}): Handler {
  return (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const body = parts.join('');
    if (options.dropAfter) {
      // Flush what we have, then cut the TCP connection without ending the chunked body.
      response.write(body, () => setImmediate(() => response.socket?.destroy()));
      return;
    }
    if (options.hang) {
      response.write(body);
      return;
    }
    response.end(body);
  };
}

function jsonHandler(status: number, body: unknown, headers: Record<string, string> = {}): Handler {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

function transportRequest(overrides: Partial<TransportRequest> = {}): TransportRequest {
  return {
    route: { api: 'chat_completions', provider: 'openrouter', model: 'anthropic/claude-sonnet-4.5', baseUrl },
    history: [{ role: 'user', content: 'hi' }],
    tools: [],
    reasoning: { enabled: true },
    apiKey: API_KEY,
    ...overrides,
  };
}

function prepared(stream: boolean): PreparedRequest {
  return {
    url: `${baseUrl}/chat/completions`,
    body: {
      model: 'anthropic/claude-sonnet-4.5',
      messages: [{ role: 'user', content: 'hi' }],
      stream,
      reasoning: { enabled: true },
    },
    decisions: [],
    carriersSent: [],
    routeKey: 'openrouter|127.0.0.1|anthropic/claude-sonnet-4.5',
  };
}

function setup(options: { random?: () => number } = {}) {
  const sleeps: number[] = [];
  const transport = createChatCompletionsTransport({
    sleep: async (milliseconds) => void sleeps.push(milliseconds),
    random: options.random ?? (() => 0),
  });
  return { transport, sleeps };
}

const ORIGIN = {
  api: 'chat_completions',
  provider: 'openrouter',
  host: '127.0.0.1',
  model: 'anthropic/claude-sonnet-4.5',
};

describe('chat-completions transport over loopback HTTP', () => {
  it('streams: sends the prepared body byte for byte with the documented headers, decodes, stamps the origin', async () => {
    handlers = [
      sseHandler([
        ': OPENROUTER PROCESSING\n\n',
        chunk({ role: 'assistant', reasoning: 'Think.' }),
        chunk({ content: 'Hello' }),
        chunk({}, 'stop', { usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } }),
        'data: [DONE]\n\n',
      ]),
    ];
    const { transport } = setup();
    const stream = transport.send(transportRequest(), prepared(true));
    const events = await collectEvents(stream);
    expect(received).toHaveLength(1);
    expect(JSON.parse(received[0]?.body ?? '')).toEqual(prepared(true).body);
    expect(received[0]?.body).toBe(JSON.stringify(prepared(true).body));
    expect(received[0]?.headers).toMatchObject({
      authorization: `Bearer ${API_KEY}`,
      'content-type': 'application/json',
      accept: 'text/event-stream',
    });
    expect(events.map((event) => event.type)).toEqual(['start', 'reasoning-delta', 'text-delta', 'usage', 'finish']);
    await expect(stream.result()).resolves.toEqual({
      role: 'assistant',
      content: 'Hello',
      reasoning: 'Think.',
      reasoning_content: 'Think.',
      finish_reason: 'stop',
      origin: ORIGIN,
    });
  });

  it('non-streaming: decodes the JSON body into the same message shape; no authorization header without a key', async () => {
    handlers = [
      jsonHandler(200, {
        choices: [
          { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Hi', reasoning_content: 'r' } },
        ],
      }),
    ];
    const { transport } = setup();
    const stream = transport.send(transportRequest({ apiKey: undefined }), prepared(false));
    await expect(stream.result()).resolves.toEqual({
      role: 'assistant',
      content: 'Hi',
      reasoning: 'r',
      reasoning_content: 'r',
      finish_reason: 'stop',
      origin: ORIGIN,
    });
    expect(received[0]?.headers.authorization).toBeUndefined();
    expect(received[0]?.headers.accept).toBe('application/json');
  });

  it('429 with retry-after: waits exactly what the provider asked, emits a retry event, then succeeds', async () => {
    handlers = [
      jsonHandler(429, { error: { message: 'slow down' } }, { 'retry-after': '2' }),
      sseHandler([chunk({ content: 'ok' }, 'stop')]),
    ];
    const { transport, sleeps } = setup();
    const stream = transport.send(transportRequest(), prepared(true));
    const events = await collectEvents(stream);
    expect(sleeps).toEqual([2000]);
    expect(events.filter((event) => event.type === 'retry')).toEqual([
      { type: 'retry', attempt: 2, delayMs: 2000, reason: 'HTTP 429' },
    ]);
    expect(received).toHaveLength(2);
    expect(received[1]?.body).toBe(received[0]?.body);
    await expect(stream.result()).resolves.toMatchObject({ content: 'ok' });
  });

  it('500 three times: InternalServerError after exactly 3 attempts with exponential backoff', async () => {
    handlers = [jsonHandler(500, { error: { message: 'internal failure' } }, { 'x-request-id': 'req_abc' })];
    const { transport, sleeps } = setup();
    const stream = transport.send(transportRequest(), prepared(true));
    const events = await collectEvents(stream);
    expect(received).toHaveLength(3);
    expect(sleeps).toEqual([500, 1000]);
    const terminal = events[events.length - 1];
    expect(terminal?.type).toBe('error');
    const error = await stream.result().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({
      status: 500,
      requestId: 'req_abc',
      body: '{"error":{"message":"internal failure"}}',
    });
    expect((error as Error).message).toBe(
      'openrouter 500: internal failure. The provider failed; retry later. Gave up after 3 attempts.',
    );
  });

  it('honours request.maxAttempts', async () => {
    handlers = [jsonHandler(503, 'unavailable')];
    const { transport } = setup();
    await expect(transport.send(transportRequest({ maxAttempts: 1 }), prepared(true)).result()).rejects.toBeInstanceOf(
      InternalServerError,
    );
    expect(received).toHaveLength(1);
  });

  it('400 with an OpenRouter envelope: BadRequestError whose body is the unwrapped upstream text, API key redacted, not retried', async () => {
    const upstream = `{"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content.0: Invalid \`signature\` in \`thinking\` block (key ${API_KEY})"}}`;
    handlers = [
      jsonHandler(
        400,
        {
          error: {
            message: 'Provider returned error',
            code: 400,
            metadata: { raw: upstream, provider_name: 'Anthropic' },
          },
        },
        { 'cf-ray': 'ray-1' },
      ),
    ];
    const { transport } = setup();
    const error = await transport
      .send(transportRequest(), prepared(true))
      .result()
      .catch((caught: unknown) => caught);
    expect(received).toHaveLength(1);
    expect(error).toBeInstanceOf(BadRequestError);
    const badRequest = error as BadRequestError;
    expect(badRequest.body).toBe(upstream.replace(API_KEY, '[redacted]'));
    expect(badRequest.requestId).toBe('ray-1');
    expect(badRequest.message).toBe(
      'openrouter 400 (upstream Anthropic): messages.1.content.0: Invalid `signature` in `thinking` block (key [redacted]).',
    );
    expect(JSON.stringify({ message: badRequest.message, body: badRequest.body })).not.toContain(API_KEY);
  });

  it('connection dropped mid-stream: terminal ConnectionError, result() rejects, no finish', async () => {
    handlers = [sseHandler([chunk({ reasoning: 'part' }), chunk({ content: 'half an ans' })], { dropAfter: true })];
    const { transport } = setup();
    const stream = transport.send(transportRequest(), prepared(true));
    const events = await collectEvents(stream);
    expect(events.some((event) => event.type === 'finish')).toBe(false);
    expect(events[events.length - 1]?.type).toBe('error');
    await expect(stream.result()).rejects.toBeInstanceOf(ConnectionError);
    await expect(stream.result()).rejects.toThrow(/dropped the connection mid-stream/);
    expect(received).toHaveLength(1);
  });

  it('connection dropped before the first chunk is retried like a refused connection', async () => {
    handlers = [sseHandler([], { dropAfter: true }), sseHandler([chunk({ content: 'second try' }, 'stop')])];
    const { transport, sleeps } = setup();
    const stream = transport.send(transportRequest(), prepared(true));
    await expect(stream.result()).resolves.toMatchObject({ content: 'second try' });
    expect(received).toHaveLength(2);
    expect(sleeps).toEqual([500]);
  });

  it('malformed chunk: terminal StreamError quoting the chunk', async () => {
    handlers = [sseHandler([chunk({ content: 'He' }), 'data: {"choices":[{"delta":{"content":"llo"\n\n'])];
    const { transport } = setup();
    const stream = transport.send(transportRequest(), prepared(true));
    await collectEvents(stream);
    const error = await stream.result().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StreamError);
    expect((error as StreamError).message).toMatch(/^openrouter sent a malformed stream chunk \(not JSON\)/);
  });

  it('a 200 answer that is not JSON (a web page at the base URL) says so and points at the base URL', async () => {
    handlers = [
      (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end('<html>welcome</html>');
      },
    ];
    const { transport } = setup();
    const error = await transport
      .send(transportRequest(), prepared(false))
      .result()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StreamError);
    expect((error as StreamError).message).toBe(
      `openrouter answered with a body that is not JSON (text/html) at ${baseUrl}/chat/completions; ` +
        'check that the base URL is the API root (for OpenAI-compatible servers it usually ends in /v1)',
    );
    expect((error as StreamError).body).toBe('<html>welcome</html>');
  });

  it('OpenRouter error chunk: terminal StreamError with the upstream text', async () => {
    handlers = [
      sseHandler([
        chunk({ reasoning: 'We need' }, 'length'),
        `data: ${JSON.stringify({ error: { code: 400, message: 'Token limit reached' }, choices: [{ index: 0, delta: { content: '' }, finish_reason: null }] })}\n\n`,
        'data: [DONE]\n\n',
      ]),
    ];
    const { transport } = setup();
    const stream = transport.send(transportRequest(), prepared(true));
    const events = await collectEvents(stream);
    expect(events.map((event) => event.type)).toEqual(['start', 'reasoning-delta', 'error']);
    await expect(stream.result()).rejects.toThrow('openrouter stream error (code 400): Token limit reached');
  });

  it('abort mid-stream: terminal AbortError', async () => {
    handlers = [sseHandler([chunk({ content: 'first' })], { hang: true })];
    const { transport } = setup();
    const controller = new AbortController();
    const stream = transport.send(transportRequest({ signal: controller.signal }), prepared(true));
    const events: StreamEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === 'text-delta') controller.abort();
    }
    expect(events.map((event) => event.type)).toEqual(['start', 'text-delta', 'error']);
    await expect(stream.result()).rejects.toBeInstanceOf(AbortError);
  });

  it('abort during a backoff wait: AbortError, no further attempt', async () => {
    handlers = [jsonHandler(429, 'busy', { 'retry-after': '30' })];
    const controller = new AbortController();
    const transport = createChatCompletionsTransport({
      sleep: async () => {
        controller.abort();
        throw new AbortError('request aborted while waiting to retry');
      },
    });
    await expect(
      transport.send(transportRequest({ signal: controller.signal }), prepared(true)).result(),
    ).rejects.toBeInstanceOf(AbortError);
    expect(received).toHaveLength(1);
  });
});
