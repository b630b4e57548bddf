import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError, type ApiError } from '../../../src/core/errors.js';
import type { AssistantMessage, Message } from '../../../src/core/message.js';
import type { Route } from '../../../src/core/route.js';
import type { StreamEvent } from '../../../src/core/stream-event.js';
import {
  aiStudioMissingSignatureText,
  CORRUPTED_SIGNATURE_TEXT,
  vertexMissingSignatureText,
} from '../../../src/emulators/gemini/gemini-emulator-rules.js';
import { startGeminiEmulator, type GeminiEmulator } from '../../../src/emulators/gemini/gemini-emulator.js';
import { createGeminiTransport } from '../../../src/transports/gemini/gemini-transport.js';
import type { TransportRequest } from '../../../src/transports/shared/transport.js';
import { toolCall } from '../../support/messages.js';

const TOOLS = [
  {
    name: 'read_file',
    description: 'Read a file',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  },
];
const MODEL = 'gemini-3-pro-preview';

let emulator: GeminiEmulator;
const transport = createGeminiTransport({
  environment: {},
  accessTokenProvider: async () => 'test-token',
  createToolCallId: (index) => `call_${index}`,
  sleep: async () => undefined,
});

beforeAll(async () => {
  emulator = await startGeminiEmulator();
});
afterAll(async () => {
  await emulator.close();
});

const studio = (): Route => ({ api: 'gemini', provider: 'gemini', model: MODEL, baseUrl: emulator.baseUrl });
const vertex = (): Route => ({ api: 'gemini', provider: 'vertex', model: MODEL, baseUrl: emulator.vertexBaseUrl });

async function turn(
  route: Route,
  history: Message[],
  stream = true,
): Promise<{ message: AssistantMessage; events: StreamEvent[] }> {
  const request: TransportRequest = {
    route,
    history,
    tools: TOOLS,
    reasoning: { enabled: true, effort: 'high' },
    stream,
    ...(route.provider === 'gemini' ? { apiKey: 'test-key' } : {}),
  };
  const events: StreamEvent[] = [];
  const result = transport.send(request);
  for await (const event of result) events.push(event);
  return { message: await result.result(), events };
}

async function failingTurn(route: Route, history: Message[]): Promise<ApiError> {
  const result = transport.send({ route, history, tools: TOOLS, reasoning: { enabled: true }, apiKey: 'test-key' });
  return (await result.result().then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  )) as ApiError;
}

/** Runs turn 1 (tool call) and turn 2 (final answer); returns the history and the bytes of request 2. */
async function toolLoop(route: Route, stream: boolean) {
  const first = emulator.requests.length;
  const history: Message[] = [{ role: 'user', content: 'Please read the file notes.txt' }];
  const one = await turn(route, history, stream);
  history.push(one.message, {
    role: 'tool',
    tool_call_id: one.message.tool_calls?.[0]?.id ?? '',
    content: 'hello world',
  });
  const two = await turn(route, history, stream);
  history.push(two.message);
  return { history, one, two, requests: emulator.requests.slice(first) };
}

describe.each([
  ['AI Studio, streaming', true, 'ai-studio'],
  ['AI Studio, non-streaming', false, 'ai-studio'],
  ['Vertex AI, streaming', true, 'vertex'],
  ['Vertex AI, non-streaming', false, 'vertex'],
] as const)('Gemini tool loop over loopback HTTP: %s (SPEC §11, WIRE.md §4.4)', (_label, stream, issuer) => {
  it('returns every part with its signature in place, zero 4xx, and the model reports continuity intact', async () => {
    const route = issuer === 'vertex' ? vertex() : studio();
    const { one, two, requests } = await toolLoop(route, stream);
    expect(requests.map((request) => request.status)).toEqual([200, 200]);
    expect(requests.every((request) => request.issuer === issuer)).toBe(true);
    const call = one.message.tool_calls?.[0];
    expect(call?.function).toEqual({ name: 'read_file', arguments: '{"path":"notes.txt"}' });
    const signature = (call?.extra_content?.['google'] as { thought_signature: string }).thought_signature;
    expect(signature.length).toBeGreaterThan(20);
    expect(one.message.reasoning).toMatch(/^Turn 1: .* \[nonce:[0-9a-f]{12}\]$/);
    // Request 2 carries the model turn exactly: thought part, then the call with its signature and Gemini 3 id.
    const body = requests[1]!.body as { contents: unknown[] };
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Please read the file notes.txt' }] },
      {
        role: 'model',
        parts: [
          { text: one.message.reasoning, thought: true },
          {
            functionCall: { name: 'read_file', args: { path: 'notes.txt' }, id: 'call_0' },
            thoughtSignature: signature,
          },
        ],
      },
      {
        role: 'user',
        parts: [{ functionResponse: { name: 'read_file', response: { result: 'hello world' }, id: 'call_0' } }],
      },
    ]);
    expect(requests[1]!.raw).toContain(`"thoughtSignature":"${signature}"`);
    expect(two.message.content).toBe('The tool returned: hello world\nReasoning continuity: intact (1/1).');
    // The final answer's text signature arrives on the trailing empty part in streams: kept on the last text part.
    const parts = (two.message as unknown as { gemini_content_parts: { text?: string; thoughtSignature?: string }[] })
      .gemini_content_parts;
    expect(parts[parts.length - 1]).toEqual({ text: two.message.content, thoughtSignature: expect.any(String) });
    expect(two.message.reasoning_details).toEqual([
      {
        type: 'hermes.native_assistant',
        extra_content: { google: { thought_signature: parts[parts.length - 1]!.thoughtSignature } },
      },
    ]);
    expect(two.message.origin).toEqual({
      api: 'gemini',
      provider: issuer === 'vertex' ? 'vertex' : 'gemini',
      host: '127.0.0.1',
      model: MODEL,
    });
  });
});

describe('Gemini emulator rejections surface as typed errors (WIRE.md §4.5)', () => {
  it('an altered signature → 400 "Corrupted thought signature." carried on a BadRequestError', async () => {
    const { history } = await toolLoop(studio(), true);
    const altered = structuredClone(history.slice(0, 3));
    const parts = (altered[1] as AssistantMessage).gemini_content_parts as { thoughtSignature?: string }[];
    const call = parts.find((part) => part.thoughtSignature)!;
    const original = call.thoughtSignature!;
    // Flip one base64 character in the middle: same length, different bytes.
    call.thoughtSignature = `${original.slice(0, 10)}${original[10] === 'Q' ? 'R' : 'Q'}${original.slice(11)}`;
    expect(call.thoughtSignature).not.toBe(original);
    const error = await failingTurn(studio(), altered);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.status).toBe(400);
    expect(error.message).toBe(`Gemini API 400 INVALID_ARGUMENT: ${CORRUPTED_SIGNATURE_TEXT}`);
    expect(JSON.parse(error.body)).toEqual({
      error: { code: 400, message: CORRUPTED_SIGNATURE_TEXT, status: 'INVALID_ARGUMENT' },
    });
    expect(emulator.requests[emulator.requests.length - 1]!.status).toBe(400);
  });

  it.each([
    ['ai-studio', aiStudioMissingSignatureText('read_file', 2)],
    ['vertex', vertexMissingSignatureText('read_file', 2)],
  ] as const)(
    '%s: a current-turn call without a signature → the exact missing-signature text',
    async (issuer, text) => {
      const route = issuer === 'vertex' ? vertex() : studio();
      // A raw body: the transport itself would pad the sentinel, so post the broken request directly.
      const url =
        issuer === 'vertex'
          ? `${emulator.vertexBaseUrl}/publishers/google/models/${MODEL}:generateContent`
          : `${emulator.baseUrl}/models/${MODEL}:generateContent`;
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
        body: JSON.stringify({
          contents: [
            { role: 'user', parts: [{ text: 'read notes.txt' }] },
            { role: 'model', parts: [{ functionCall: { name: 'read_file', args: { path: 'notes.txt' } } }] },
            { role: 'user', parts: [{ functionResponse: { name: 'read_file', response: { result: 'x' } } }] },
          ],
        }),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: { code: 400, message: text, status: 'INVALID_ARGUMENT' } });
      expect(route.model).toBe(MODEL);
    },
  );

  it('the sentinel is accepted where a signature is truly missing (history from another model)', async () => {
    const legacy: Message[] = [
      { role: 'user', content: 'Please read the file notes.txt' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [toolCall('x1', 'read_file', '{"path":"notes.txt"}')],
        origin: { api: 'chat_completions', provider: 'openai', host: 'api.openai.com', model: 'gpt-5' },
      },
      { role: 'tool', tool_call_id: 'x1', content: 'hello' },
    ];
    const { message } = await turn(studio(), legacy);
    const last = emulator.requests[emulator.requests.length - 1]!;
    expect(last.status).toBe(200);
    expect(
      (last.body as { contents: { parts: { thoughtSignature?: string }[] }[] }).contents[1]!.parts[0]!.thoughtSignature,
    ).toBe('skip_thought_signature_validator');
    // SPEC §26.8: the other model's turn is counted apart, never as missing.
    expect(message.content).toBe(
      'The tool returned: hello\nReasoning continuity: no turn of this model yet. ' +
        'Foreign turns: 1 (not issued by this model; not counted).',
    );
  });
});

describe('SPEC §23.2: switching a session between AI Studio and Vertex never sends a foreign signature', () => {
  it('AI Studio history continued on Vertex: no AI Studio signature in the received bytes, and 200', async () => {
    const { history, requests } = await toolLoop(studio(), true);
    const studioSignatures = requests
      .flatMap((request) => [request.raw])
      .join('')
      .match(/"thoughtSignature":"[^"]+"/g)!;
    expect(studioSignatures.length).toBeGreaterThan(0);
    history.push({ role: 'user', content: 'Please read the file other.txt' });
    const first = emulator.requests.length;
    const one = await turn(vertex(), history);
    history.push(one.message, { role: 'tool', tool_call_id: one.message.tool_calls?.[0]?.id ?? '', content: 'second' });
    const two = await turn(vertex(), history);
    const received = emulator.requests.slice(first);
    expect(received.map((request) => [request.issuer, request.status])).toEqual([
      ['vertex', 200],
      ['vertex', 200],
    ]);
    for (const request of received) {
      for (const signature of studioSignatures) expect(request.raw).not.toContain(signature);
    }
    // The Vertex turn's own signature travels; the AI Studio turns travel as plain text and calls,
    // which Vertex did not issue: counted apart (SPEC §26.8).
    expect(two.message.content).toBe(
      'The tool returned: second\nReasoning continuity: intact (1/1). ' +
        'Foreign turns: 2 (not issued by this model; not counted).',
    );
    // Back on AI Studio: the Vertex signatures stay home.
    history.push(two.message, { role: 'user', content: 'Please read the file third.txt' });
    const back = await turn(studio(), history);
    const last = emulator.requests[emulator.requests.length - 1]!;
    expect(last.status).toBe(200);
    expect(last.raw).not.toContain(
      (one.message.tool_calls?.[0]?.extra_content?.['google'] as { thought_signature: string }).thought_signature,
    );
    expect(back.message.tool_calls?.[0]?.function.name).toBe('read_file');
  });
});

describe('Gemini transport HTTP behaviour', () => {
  it('retries a 429 with retry-after before any content, then succeeds', async () => {
    emulator.faults.add({
      kind: 'status',
      status: 429,
      retryAfterSeconds: 2,
      body: JSON.stringify({
        error: { code: 429, message: 'Resource has been exhausted', status: 'RESOURCE_EXHAUSTED' },
      }),
    });
    const { events, message } = await turn(studio(), [{ role: 'user', content: 'hello there' }]);
    expect(events[0]).toEqual({
      type: 'retry',
      attempt: 2,
      delayMs: 2000,
      reason: 'HTTP 429',
    });
    expect(message.content).toBe('You said: hello there\nReasoning continuity: first turn.');
  });

  it('sends the API key header on AI Studio and a bearer token on Vertex, and the emulator redacts both', async () => {
    await turn(studio(), [{ role: 'user', content: 'hi' }]);
    const studioRequest = emulator.requests[emulator.requests.length - 1]!;
    expect(studioRequest.headers['x-goog-api-key']).toBe('REDACTED');
    await turn(vertex(), [{ role: 'user', content: 'hi' }]);
    const vertexRequest = emulator.requests[emulator.requests.length - 1]!;
    expect(vertexRequest.headers['authorization']).toBe('REDACTED');
    expect(vertexRequest.path).toBe(
      `/v1/projects/hermes-emulator/locations/us-central1/publishers/google/models/${MODEL}:streamGenerateContent`,
    );
    expect(vertexRequest.query).toBe('alt=sse');
  });

  it('an unknown field is rejected with Google proto-JSON wording', async () => {
    const response = await fetch(`${emulator.baseUrl}/models/${MODEL}:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi', extra_content: {} }] }] }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      `Invalid JSON payload received. Unknown name "extra_content" at 'contents[0].parts[0]': Cannot find field.`,
    );
  });

  it('aborting ends the stream with an AbortError', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = transport.send({
      route: studio(),
      history: [{ role: 'user', content: 'hi' }],
      tools: [],
      reasoning: { enabled: false },
      apiKey: 'k',
      signal: controller.signal,
    });
    await expect(result.result()).rejects.toMatchObject({ name: 'AbortError' });
  });
});
