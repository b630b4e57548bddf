import { describe, expect, it } from 'vitest';
import { BadRequestError, StreamError, type HermesError } from '../../src/core/errors.js';
import { EventStream } from '../../src/core/event-stream.js';
import type { AssistantMessage, Message } from '../../src/core/message.js';
import type { Route } from '../../src/core/route.js';
import { runAgentTurn, TurnInterruptedError } from '../../src/runtime/agent-turn.js';
import { INTERRUPTED_TOOL_RESULT } from '../../src/runtime/runtime-history.js';
import { createMemorySessionStore } from '../../src/storage/memory-session-store.js';
import type { PreparedRequest, Transport, TransportRequest } from '../../src/transports/shared/transport.js';
import { makeWorkspace, turnOptions } from './runtime-test-helpers.js';

type Reply = AssistantMessage | HermesError;

/** A scripted transport: records each request and answers from a list. */
function scriptedTransport(replies: Reply[]): Transport & { requests: TransportRequest[] } {
  const requests: TransportRequest[] = [];
  return {
    api: 'chat_completions',
    requests,
    prepare(request): PreparedRequest {
      const rejected = request.learned?.rejectedCarriers ?? [];
      const sent = (['reasoning_content', 'reasoning_details'] as const).filter(
        (carrier) => !rejected.includes(carrier),
      );
      return {
        url: 'http://x/v1/chat/completions',
        body: {},
        decisions: [],
        carriersSent: [...sent],
        routeKey: 'acme|x|m1',
      };
    },
    send(request) {
      requests.push({ ...request, history: structuredClone([...request.history]) });
      const stream = new EventStream();
      const reply = replies.shift() ?? new StreamError('script ended');
      queueMicrotask(() => {
        if (reply instanceof Error) {
          stream.push({ type: 'text-delta', text: 'half an ans' });
          stream.fail(reply);
        } else {
          stream.push({ type: 'start' });
          stream.end({ type: 'finish', message: reply, finishReason: { unified: 'stop', raw: 'stop' }, usage: null });
        }
      });
      return stream;
    },
  };
}

const route: Route = { api: 'chat_completions', provider: 'acme', model: 'm1', baseUrl: 'http://x/v1' };

async function setup(replies: Reply[]) {
  const store = createMemorySessionStore();
  const session = await store.createSession({});
  const transport = scriptedTransport(replies);
  const options = turnOptions({ store, sessionId: session.id, route, workspace: makeWorkspace(), transport });
  return { store, session, transport, options };
}

const toolCall: AssistantMessage = {
  role: 'assistant',
  content: null,
  reasoning_content: 'I should read notes.txt.',
  tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"notes.txt"}' } }],
};
const answer: AssistantMessage = { role: 'assistant', content: 'It says alpha beta.', reasoning_content: 'Done.' };

describe('agent turn', () => {
  it('runs the tool loop and stores every message with an origin stamp', async () => {
    const { store, session, transport, options } = await setup([toolCall, answer]);
    const result = await runAgentTurn('What does notes.txt say?', options);
    expect(result.answer).toBe('It says alpha beta.');
    expect(result.toolCalls).toEqual([
      { id: 'call_1', name: 'read_file', arguments: '{"path":"notes.txt"}', result: 'alpha beta\n', is_error: false },
    ]);
    const stored = await store.listMessages(session.id);
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect((stored[1] as AssistantMessage).origin).toEqual({
      api: 'chat_completions',
      provider: 'acme',
      host: 'x',
      model: 'm1',
    });
    expect((stored[1] as AssistantMessage).reasoning_content).toBe('I should read notes.txt.');
    // The second request carried the stored tool-call turn and its result.
    expect(transport.requests[1]?.history.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
  });

  it('a stream that fails mid-way stores nothing of the partial answer', async () => {
    const { store, session, options } = await setup([new StreamError('connection dropped mid-stream')]);
    await expect(runAgentTurn('hello', options)).rejects.toThrow('connection dropped mid-stream');
    const stored = await store.listMessages(session.id);
    expect(stored.map((message) => message.role)).toEqual(['user']);
  });

  it('learns a rejected carrier, persists it and retries exactly once without it (SPEC §13.3)', async () => {
    const rejection = new BadRequestError('400', {
      status: 400,
      body: "'messages.1' : for 'role:assistant' the following must be satisfied[('messages.1' : property 'reasoning_details' is unsupported)]",
    });
    const { store, session, transport, options } = await setup([rejection, answer]);
    const result = await runAgentTurn('hi', options);
    expect(result.answer).toBe('It says alpha beta.');
    expect(transport.requests.map((request) => request.learned?.rejectedCarriers)).toEqual([[], ['reasoning_details']]);
    const config = (await store.getSession(session.id))?.modelConfig;
    expect(config?.['reasoning_rejected_carriers']).toEqual([['acme', 'x', 'm1', ['reasoning_details']]]);
    expect((await store.getVerdict('acme|x|m1'))?.fields).toEqual(['reasoning_details']);
  });

  it('a second identical rejection is not learned again: two requests, then the error (SPEC §13.3)', async () => {
    const body = "property 'reasoning_details' is unsupported";
    const rejection = () => new BadRequestError('400', { status: 400, body });
    const { transport, options } = await setup([rejection(), rejection(), answer]);
    await expect(runAgentTurn('hi', options)).rejects.toThrow(/hermes routes verdicts/);
    expect(transport.requests).toHaveLength(2);
  });

  it('a generic "Provider returned error" is never treated as a field rejection', async () => {
    const { transport, options } = await setup([
      new BadRequestError('400', { status: 400, body: 'Provider returned error' }),
      answer,
    ]);
    await expect(runAgentTurn('hi', options)).rejects.toThrow();
    expect(transport.requests).toHaveLength(1);
  });

  it('tool calls left without results (killed process) are answered before the next request', async () => {
    const { store, session, transport, options } = await setup([answer]);
    const dangling: Message[] = [{ role: 'user', content: 'read it' }, toolCall];
    await store.appendMessages(session.id, dangling);
    await runAgentTurn('again', options);
    const sent = transport.requests[0]?.history ?? [];
    expect(sent.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(sent[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_1', content: INTERRUPTED_TOOL_RESULT });
  });

  it('an abort during the stream is an interruption and the history stays valid', async () => {
    const { store, session, options } = await setup([toolCall, answer]);
    const controller = new AbortController();
    const result = runAgentTurn('What does notes.txt say?', {
      ...options,
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'tool-result') controller.abort();
      },
    });
    await expect(result).rejects.toBeInstanceOf(TurnInterruptedError);
    const stored = await store.listMessages(session.id);
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
  });

  it('logs and records the decisions of the newest 20 assistant turns only (bounded per request)', async () => {
    const { store, session, transport, options } = await setup([answer]);
    const long: Message[] = [];
    for (let turn = 0; turn < 30; turn += 1) {
      long.push(
        { role: 'user', content: `q${turn}` },
        { role: 'assistant', content: `a${turn}`, reasoning_content: 'r' },
      );
    }
    await store.appendMessages(session.id, long);
    transport.prepare = (request) => ({
      url: 'http://x',
      body: {},
      decisions: request.history.flatMap((message, index) =>
        message.role === 'assistant'
          ? [{ messageIndex: index, field: 'reasoning_content', action: 'kept' as const, reason: 'route reads it' }]
          : [],
      ),
      carriersSent: ['reasoning_content'],
      routeKey: 'acme|x|m1',
    });
    await runAgentTurn('more', options);
    const [record] = await store.listRequests(session.id);
    const indexes = (record?.decisions ?? []).map((decision) => decision['messageIndex'] as number);
    expect(indexes).toHaveLength(20);
    expect(Math.min(...indexes)).toBe(21);
  });
});
