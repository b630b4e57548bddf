import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useE2e } from '../support/e2e.js';
import { MAX_REQUEST_BYTES } from '../../src/gateway/gateway-chat.js';
import { sessionDocument } from '../../src/storage/session-documents.js';
import { startDeepseekApp, type testApp } from './gateway-test-helpers.js';

/**
 * `app.request()` (STYLE rule 7 (docs/architecture.md)): the OpenAI response shapes
 * (JSON and SSE), session selection, the error envelope and statuses, tool approval, and the
 * session endpoints (SPEC §2 shape, §17 branch, §23.3 decisions).
 */

const e2e = useE2e();

async function setup(extra: Parameters<typeof testApp>[3] = {}) {
  const { emulator, sandbox, store, app } = await startDeepseekApp(e2e.defer, extra);
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    app.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  return { emulator, sandbox, store, app, post };
}

const ask = (text: string, extra: Record<string, unknown> = {}) => ({
  model: 'whatever-the-client-says',
  messages: [{ role: 'user', content: text }],
  ...extra,
});

/** The parts of a `chat.completion.chunk` the tests read. */
interface ChunkJson {
  choices: {
    index: number;
    delta: { role?: string; content?: string; reasoning_content?: string; tool_calls?: unknown };
    finish_reason: string | null;
    logprobs: null;
  }[];
  hermes?: Record<string, unknown>;
  session_id?: string;
  usage?: { total_tokens: number };
}

/** `data:` payloads of an SSE body. */
function sseData(text: string): string[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: '))
    .map((frame) => frame.slice('data: '.length));
}

describe('POST /v1/chat/completions', () => {
  it('non-streaming: chat.completion with reasoning_content, session header, Server-Timing', async () => {
    const { post, store } = await setup();
    const response = await post('/v1/chat/completions', ask('hello there'));
    expect(response.status).toBe(200);
    const sessionId = response.headers.get('x-hermes-session-id') ?? '';
    expect(response.headers.get('server-timing')).toMatch(/^provider;dur=\d+\.\d\d$/);
    const stored = await store.listMessages(sessionId);
    const answer = stored[1];
    expect(answer?.role).toBe('assistant');
    expect(await response.json()).toEqual({
      id: expect.stringMatching(/^chatcmpl-[0-9a-f]{24}$/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'deepseek-v4-flash',
      session_id: sessionId,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'You said: hello there\nReasoning continuity: first turn.',
            reasoning_content: answer?.role === 'assistant' ? answer.reasoning_content : 'missing',
          },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage: {
        prompt_tokens: expect.any(Number),
        completion_tokens: expect.any(Number),
        total_tokens: expect.any(Number),
        completion_tokens_details: { reasoning_tokens: expect.any(Number) },
      },
      hermes: { tool_calls: [], iterations: 1 },
    });
  });

  it('the session_id body field continues a session; the header wins over it', async () => {
    const { post, store } = await setup();
    const first = await post('/v1/chat/completions', ask('one'));
    const sessionId = first.headers.get('x-hermes-session-id') ?? '';
    const second = await post('/v1/chat/completions', ask('two', { session_id: sessionId }));
    expect(second.headers.get('x-hermes-session-id')).toBe(sessionId);
    const other = await post('/v1/chat/completions', ask('three', { session_id: 'nope' }), {
      'X-Hermes-Session-Id': sessionId,
    });
    expect(other.status).toBe(200);
    const users = (await store.listMessages(sessionId)).filter((message) => message.role === 'user');
    expect(users.map((message) => message.content)).toEqual(['one', 'two', 'three']);
  });

  it('a new session stores the client system prompt first', async () => {
    const { post, store } = await setup();
    const response = await post('/v1/chat/completions', {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ],
    });
    const messages = await store.listMessages(response.headers.get('x-hermes-session-id') ?? '');
    expect(messages.map((message) => [message.role, message.content])).toEqual([
      ['system', 'Be brief.'],
      ['user', 'hi'],
      ['assistant', 'You said: hi\nReasoning continuity: first turn.'],
    ]);
  });

  it.each([
    {
      name: 'bad JSON',
      body: '{"messages": [',
      headers: {},
      status: 400,
      error: {
        message: 'the request body is not valid JSON',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_json',
      },
    },
    {
      name: 'no user message',
      body: { messages: [{ role: 'assistant', content: 'x' }] },
      headers: {},
      status: 400,
      error: {
        message:
          'no new user message: the gateway answers the user message(s) after the last assistant message in "messages"',
        type: 'invalid_request_error',
        param: 'messages',
        code: 'no_user_message',
      },
    },
    {
      name: 'unknown session id',
      body: ask('hi'),
      headers: { 'X-Hermes-Session-Id': 'no-such-session' },
      status: 404,
      error: {
        message:
          'no session "no-such-session": omit X-Hermes-Session-Id to start a new session, or list sessions with GET /v1/sessions',
        type: 'not_found_error',
        param: null,
        code: 'session_not_found',
      },
    },
    {
      name: 'unknown session id, streaming',
      body: ask('hi', { stream: true }),
      headers: { 'X-Hermes-Session-Id': 'no-such-session' },
      status: 404,
      error: {
        message:
          'no session "no-such-session": omit X-Hermes-Session-Id to start a new session, or list sessions with GET /v1/sessions',
        type: 'not_found_error',
        param: null,
        code: 'session_not_found',
      },
    },
  ])('$status envelope on $name', async ({ body, headers, status, error }) => {
    const { post } = await setup();
    const response = await post('/v1/chat/completions', body, headers);
    expect(response.status).toBe(status);
    expect(await response.json()).toEqual({ error });
  });

  it('413 for a body over the size limit, without reading it all', async () => {
    const { post } = await setup();
    const huge = 'x'.repeat(MAX_REQUEST_BYTES + 1);
    const response = await post('/v1/chat/completions', ask(huge));
    expect(response.status).toBe(413);
    const body = (await response.json()) as { error: { code: string } };
    expect(body.error.code).toBe('request_too_large');
  });

  it('502 with the provider text when the provider fails', async () => {
    const { post, emulator } = await setup();
    emulator.addFault({ kind: 'status', status: 400, body: '{"error":{"message":"upstream exploded: try later"}}' });
    const response = await post('/v1/chat/completions', ask('hi'));
    expect(response.status).toBe(502);
    const body = (await response.json()) as { error: { message: string; type: string; code: string } };
    expect(body.error.type).toBe('provider_error');
    expect(body.error.code).toBe('provider_400');
    expect(body.error.message).toContain('the provider answered HTTP 400');
    expect(body.error.message).toContain('upstream exploded: try later');
  });

  it('streaming: chunks carry reasoning_content then content, a tool result extension, finish, usage, [DONE]', async () => {
    const { post, store } = await setup();
    const response = await post(
      '/v1/chat/completions',
      ask('read the file notes.txt', { stream: true, stream_options: { include_usage: true } }),
    );
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const sessionId = response.headers.get('x-hermes-session-id') ?? '';
    expect(sessionId).not.toBe('');
    const data = sseData(await response.text());
    expect(data[data.length - 1]).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((text) => JSON.parse(text) as ChunkJson);
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
    const reasoning = chunks.map((chunk) => chunk.choices[0]?.delta.reasoning_content ?? '').join('');
    const content = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    const stored = (await store.listMessages(sessionId)).filter((message) => message.role === 'assistant');
    expect(reasoning).toBe(stored.map((message) => message.reasoning_content).join('\n\n'));
    expect(content).toBe(stored[1]?.content);
    const toolResults = chunks.filter((chunk) => chunk.hermes).map((chunk) => chunk.hermes);
    expect(toolResults).toEqual([
      { type: 'tool-result', id: 'call_1_1', name: 'read_file', is_error: false, content: 'alpha beta\n' },
    ]);
    // Tools ran server-side: the client is never asked to run one.
    expect(chunks.some((chunk) => chunk.choices[0]?.delta.tool_calls)).toBe(false);
    const finish = chunks[chunks.length - 2];
    expect(finish?.choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'stop', logprobs: null });
    expect(finish?.session_id).toBe(sessionId);
    const usage = chunks[chunks.length - 1];
    expect(usage?.choices).toEqual([]);
    expect(usage?.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('streaming: a provider failure after the stream started is an error event, then [DONE]', async () => {
    const { post, emulator } = await setup();
    emulator.addFault({ kind: 'status', status: 400, body: '{"error":{"message":"upstream exploded"}}' });
    const response = await post('/v1/chat/completions', ask('hi', { stream: true }));
    expect(response.status).toBe(200);
    const data = sseData(await response.text());
    expect(data[data.length - 1]).toBe('[DONE]');
    const error = JSON.parse(data[data.length - 2] ?? '{}') as { error: { type: string; message: string } };
    expect(error.error.type).toBe('provider_error');
    expect(error.error.message).toContain('upstream exploded');
  });

  it.each([
    {
      yolo: false,
      written: false,
      toolResult: 'error: write_file was not approved by the user (approve interactively, or run with --yolo)',
    },
    { yolo: true, written: true, toolResult: undefined },
  ])('tools needing approval: yolo=$yolo → written=$written', async ({ yolo, written, toolResult }) => {
    const { post, sandbox } = await setup({ yolo });
    const response = await post('/v1/chat/completions', ask("write 'hello' to out.txt"));
    const body = (await response.json()) as {
      hermes: { tool_calls: { name: string; result: string; is_error: boolean }[] };
    };
    expect(body.hermes.tool_calls.map((call) => [call.name, call.is_error])).toEqual([['write_file', !written]]);
    if (toolResult) expect(body.hermes.tool_calls[0]?.result).toBe(toolResult);
    expect(existsSync(join(sandbox.workspace, 'out.txt'))).toBe(written);
    if (written) expect(readFileSync(join(sandbox.workspace, 'out.txt'), 'utf8')).toBe('hello');
  });
});

describe('models and session endpoints', () => {
  it('GET /v1/models lists the configured model', async () => {
    const { app } = await setup();
    const response = await app.request('/v1/models');
    expect(await response.json()).toEqual({
      object: 'list',
      data: [{ id: 'deepseek-v4-flash', object: 'model', created: 0, owned_by: 'deepseek' }],
    });
  });

  it('list, show (SPEC §2 document), requests with decisions (SPEC §23.3), branch (SPEC §17)', async () => {
    const { app, post, store } = await setup();
    const first = await post('/v1/chat/completions', ask('read the file notes.txt'));
    const sessionId = first.headers.get('x-hermes-session-id') ?? '';

    const list = (await (await app.request('/v1/sessions')).json()) as {
      object: string;
      data: Record<string, unknown>[];
    };
    expect(list.object).toBe('list');
    expect(list.data.map((row) => [row['id'], row['title'], row['message_count']])).toEqual([
      [sessionId, 'read the file notes.txt', 4],
    ]);

    const shown = await (await app.request(`/v1/sessions/${sessionId}`)).json();
    expect(shown).toEqual(JSON.parse(JSON.stringify(await sessionDocument(store, sessionId))));

    const requests = (await (await app.request(`/v1/sessions/${sessionId}/requests`)).json()) as {
      data: {
        status: number;
        route_key: string;
        decisions: { messageIndex: number; field: string; action: string; reason: string }[];
      }[];
    };
    expect(requests.data.map((request) => [request.status, request.route_key])).toEqual([
      [200, 'deepseek|127.0.0.1|deepseek-v4-flash'],
      [200, 'deepseek|127.0.0.1|deepseek-v4-flash'],
    ]);
    expect(requests.data[0]?.decisions).toEqual([]);
    expect(
      requests.data[1]?.decisions.some(
        (decision) => decision.messageIndex === 1 && decision.field === 'reasoning_content',
      ),
    ).toBe(true);

    const branched = await app.request(`/v1/sessions/${sessionId}/branch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'what if' }),
    });
    expect(branched.status).toBe(201);
    const child = (await branched.json()) as { id: string; title: string; parent_session_id: string; message: string };
    expect(child).toEqual({
      id: expect.any(String),
      title: 'what if',
      parent_session_id: sessionId,
      message: 'Branched to what if',
    });
    expect(await store.listMessages(child.id)).toEqual(await store.listMessages(sessionId));
    const parent = (await (await app.request(`/v1/sessions/${sessionId}`)).json()) as { children: string[] };
    expect(parent.children).toEqual([child.id]);
    // SPEC §24.9: without a title the branch is numbered in the lineage, and the reply is plain text.
    await store.updateSession(sessionId, { title: 'Plan' });
    const untitled = await app.request(`/v1/sessions/${sessionId}/branch`, { method: 'POST' });
    expect(untitled.status).toBe(201);
    expect(await untitled.json()).toMatchObject({ title: 'Plan #2', message: 'Branched to Plan #2' });
  });

  it.each([
    ['GET', '/v1/sessions/missing'],
    ['GET', '/v1/sessions/missing/requests'],
    ['POST', '/v1/sessions/missing/branch'],
  ])('%s %s → 404 envelope', async (method, path) => {
    const { app } = await setup();
    const response = await app.request(path, { method });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('session_not_found');
  });

  it('an unknown route is a 404 envelope', async () => {
    const { app } = await setup();
    const response = await app.request('/v1/nothing');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: { message: 'no route GET /v1/nothing', type: 'not_found_error', param: null, code: 'unknown_route' },
    });
  });
});
