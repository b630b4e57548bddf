import { afterEach, describe, expect, it } from 'vitest';
import { AbortError, BadRequestError, RateLimitError } from '../../../src/core/errors.js';
import type { AssistantMessage, Message } from '../../../src/core/message.js';
import { startResponsesEmulator } from '../../../src/emulators/responses/responses-emulator.js';
import type { ResponsesEmulator } from '../../../src/emulators/responses/responses-emulator.js';
import { isInvalidEncryptedContentError } from '../../../src/replay/responses-rejections.js';
import { NOTHING_LEARNED } from '../../../src/replay/replay-route-profile.js';
import type { TransportRequest } from '../../../src/transports/shared/transport.js';
import { createResponsesTransport, responsesTransport } from '../../../src/transports/responses/responses-transport.js';
import { collectEvents } from '../transport-test-helpers.js';

/**
 * SPEC §12 end to end through the transport over real loopback HTTP against the Responses
 * emulator: a tool loop with encrypted reasoning, the WIRE.md §5.5 rejection of an altered blob,
 * the kill switch, and switching between two issuers (SPEC §23.2).
 */

const TOOLS = [
  {
    name: 'read_file',
    description: 'Read a file',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  },
];
const emulators: ResponsesEmulator[] = [];

afterEach(async () => {
  await Promise.all(emulators.splice(0).map((emulator) => emulator.close()));
});

async function emulator(issuer: string): Promise<ResponsesEmulator> {
  const started = await startResponsesEmulator({ issuer });
  emulators.push(started);
  return started;
}

function request(
  target: ResponsesEmulator,
  history: Message[],
  overrides: Partial<TransportRequest> = {},
): TransportRequest {
  return {
    route: { api: 'codex_responses', provider: 'openai', model: 'gpt-5.4', baseUrl: target.baseUrl },
    history,
    tools: TOOLS,
    reasoning: { enabled: true, effort: 'low' },
    apiKey: 'sk-test-secret',
    ...overrides,
  };
}

/** Turn 1: the user asks to read a file → a tool call with encrypted reasoning. */
async function firstTurn(target: ResponsesEmulator, stream = true): Promise<Message[]> {
  const history: Message[] = [{ role: 'user', content: 'read the file notes.txt' }];
  const turn = await responsesTransport.send(request(target, history, { stream })).result();
  return [...history, turn, { role: 'tool', tool_call_id: 'call_1_1', content: 'hello from notes' }];
}

describe('responses transport round trip against the emulator (SPEC §12, WIRE.md §5.4)', () => {
  for (const stream of [true, false]) {
    it(`tool loop with reasoning (${stream ? 'streaming' : 'non-streaming'}): blob back verbatim, in place, continuity intact`, async () => {
      const target = await emulator('openai');
      const history = await firstTurn(target, stream);
      const turn1 = history[1] as AssistantMessage;
      const issuerKind = `other:${target.baseUrl}`;
      expect(turn1.tool_calls?.map((call) => [call.id, call.function.name, call.function.arguments])).toEqual([
        ['call_1_1', 'read_file', '{"path":"notes.txt"}'],
      ]);
      expect(turn1.codex_reasoning_items).toHaveLength(1);
      const stored = turn1.codex_reasoning_items?.[0] ?? {};
      expect(stored['_issuer_kind']).toBe(issuerKind);
      expect(stored['_precedes_call_id']).toBe('call_1_1');
      expect(turn1.origin).toEqual({ api: 'codex_responses', provider: 'openai', host: '127.0.0.1', model: 'gpt-5.4' });
      expect(turn1.reasoning).toMatch(
        /^Turn 1: to answer "read the file notes.txt" I should call read_file\. \[nonce:[0-9a-f]{12}\]$/,
      );

      const turn2 = await responsesTransport.send(request(target, history, { stream })).result();
      expect(turn2.content).toContain('The tool returned: hello from notes');
      expect(turn2.content).toContain('Reasoning continuity: intact (1/1).');
      expect(target.requests.map((received) => received.status)).toEqual([200, 200]);
      expect(target.requests[1]?.headers['authorization']).toBe('REDACTED');
      expect((target.requests[1]?.body as { input: unknown }).input).toEqual([
        { role: 'user', content: 'read the file notes.txt' },
        { type: 'reasoning', encrypted_content: stored['encrypted_content'], summary: stored['summary'] },
        { type: 'function_call', call_id: 'call_1_1', name: 'read_file', arguments: '{"path":"notes.txt"}' },
        { type: 'function_call_output', call_id: 'call_1_1', output: 'hello from notes' },
      ]);
      expect(target.requests[1]?.raw).not.toContain('sk-test-secret');
    });
  }

  it('streams reasoning, tool-call and usage events before the single finish', async () => {
    const target = await emulator('openai');
    const events = await collectEvents(
      responsesTransport.send(request(target, [{ role: 'user', content: 'read the file notes.txt' }])),
    );
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('start');
    expect(types).toContain('reasoning-delta');
    expect(types).toContain('tool-call-start');
    expect(types).toContain('tool-call-delta');
    expect(types.at(-2)).toBe('usage');
    expect(types.filter((type) => type === 'finish' || type === 'error')).toEqual(['finish']);
  });

  it('an altered blob gets the exact invalid_encrypted_content 400, surfaced as a typed error; the kill switch recovers', async () => {
    const target = await emulator('openai');
    const history = await firstTurn(target);
    const turn1 = structuredClone(history[1]) as AssistantMessage;
    const item = turn1.codex_reasoning_items?.[0] ?? {};
    const original = String(item['encrypted_content']);
    item['encrypted_content'] = `${original.slice(0, 40)}${original[40] === 'A' ? 'B' : 'A'}${original.slice(41)}`;
    const altered: Message[] = [history[0] as Message, turn1, history[2] as Message];

    const error = await responsesTransport
      .send(request(target, altered))
      .result()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BadRequestError);
    const typed = error as BadRequestError;
    const abbreviated = `${String(item['encrypted_content']).slice(0, 4)}...${String(item['encrypted_content']).slice(-4)}`;
    expect(JSON.parse(typed.body)).toEqual({
      error: {
        message: `The encrypted content ${abbreviated} could not be verified.`,
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_encrypted_content',
      },
    });
    expect(typed.message).toContain(`The encrypted content ${abbreviated} could not be verified.`);
    expect(isInvalidEncryptedContentError(typed.body)).toBe(true);
    expect(target.requests.at(-1)?.status).toBe(400);

    const recovered = await responsesTransport
      .send(request(target, altered, { learned: { ...NOTHING_LEARNED, replayEncryptedReasoning: false } }))
      .result();
    expect(recovered.content).toContain('Reasoning continuity: broken (0 intact, 0 altered, 1 missing of 1).');
    expect(target.requests.at(-1)?.status).toBe(200);
    expect(target.requests.at(-1)?.raw).not.toContain('"type":"reasoning"');
  });

  it('switching between two issuers never sends a foreign blob (SPEC §23.2)', async () => {
    const first = await emulator('issuer-a');
    const second = await emulator('issuer-b');
    const history = await firstTurn(first);
    const blob = String((history[1] as AssistantMessage).codex_reasoning_items?.[0]?.['encrypted_content']);
    const prepared = responsesTransport.prepare(request(second, history));
    expect(prepared.decisions).toEqual([
      {
        messageIndex: 1,
        field: 'codex_reasoning_items[0]',
        action: 'dropped',
        reason: `foreign issuer other:${first.baseUrl}`,
        bytes: blob.length,
      },
    ]);
    const turn2 = await responsesTransport.send(request(second, history), prepared).result();
    expect(turn2.content).toContain('The tool returned: hello from notes');
    expect(second.requests.map((received) => received.status)).toEqual([200]);
    expect(second.requests[0]?.raw).not.toContain(blob);
    // Back on the first issuer, its own blob travels again and verifies.
    const turn3 = await responsesTransport
      .send(request(first, [...history, turn2, { role: 'user', content: 'thanks' }]))
      .result();
    expect(first.requests.map((received) => received.status)).toEqual([200, 200]);
    expect(first.requests[1]?.raw).toContain(blob);
    expect(first.requests[1]?.raw).not.toContain(String(turn2.codex_reasoning_items?.[0]?.['encrypted_content']));
    expect(turn3.content).toContain('You said: thanks');
  });

  it('retries a 429 honouring retry-after before any event, then succeeds', async () => {
    const target = await startResponsesEmulator({ faults: [{ kind: 'status', status: 429, retryAfterSeconds: 2 }] });
    emulators.push(target);
    const sleeps: number[] = [];
    const transport = createResponsesTransport({ sleep: async (milliseconds) => void sleeps.push(milliseconds) });
    const events = await collectEvents(transport.send(request(target, [{ role: 'user', content: 'hi' }])));
    expect(events.filter((event) => event.type === 'retry')).toEqual([
      { type: 'retry', attempt: 2, delayMs: 2000, reason: 'HTTP 429' },
    ]);
    expect(sleeps).toEqual([2000]);
    expect(events.at(-1)?.type).toBe('finish');
    expect(target.requests.map((received) => received.status)).toEqual([429, 200]);
  });

  it('a 429 that outlasts the attempts surfaces as a RateLimitError', async () => {
    const target = await startResponsesEmulator({
      faults: [
        { kind: 'status', status: 429 },
        { kind: 'status', status: 429 },
      ],
    });
    emulators.push(target);
    const transport = createResponsesTransport({ sleep: async () => undefined });
    const error = await transport
      .send(request(target, [{ role: 'user', content: 'hi' }], { maxAttempts: 2 }))
      .result()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
  });

  it('a dropped stream ends with one error event; abort gives AbortError', async () => {
    const target = await startResponsesEmulator({ faults: [{ kind: 'drop-mid-stream' }] });
    emulators.push(target);
    const events = await collectEvents(responsesTransport.send(request(target, [{ role: 'user', content: 'hi' }])));
    expect(
      events.filter((event) => event.type === 'finish' || event.type === 'error').map((event) => event.type),
    ).toEqual(['error']);
    const controller = new AbortController();
    controller.abort();
    const aborted = await responsesTransport
      .send(request(target, [{ role: 'user', content: 'hi' }], { signal: controller.signal }))
      .result()
      .catch((caught: unknown) => caught);
    expect(aborted).toBeInstanceOf(AbortError);
  });
});
