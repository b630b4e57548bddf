import pino from 'pino';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { addClientSystemText, type ClientHistory } from '../../src/gateway/gateway-front-door-handles.js';
import { parseMessagesRequest } from '../../src/gateway/gateway-messages-request.js';
import { responseIdentity, responsesResponseBody } from '../../src/gateway/gateway-responses-answer.js';
import { parseResponsesRequest } from '../../src/gateway/gateway-responses-request.js';
import { parseResponsesTools } from '../../src/gateway/gateway-responses-tools.js';
import type { FrontDoorAnswer } from '../../src/gateway/gateway-front-door.js';
import { startUpstream, useFrontDoors } from './front-door-helpers.js';

/**
 * The request shapes the real clients send (measured with Claude Code 2.1.332 and Codex 0.171.0,
 * test/fixtures/clients/README.md), read one rule at a time; front-door-clients.test.ts replays
 * the whole captured requests.
 */

const doors = useFrontDoors();

describe('Responses tools as Codex sends them', () => {
  const namespace = {
    type: 'namespace',
    name: 'multi_agent_v1',
    description: 'Tools for spawning and managing sub-agents.',
    tools: [
      { type: 'function', name: 'close_agent', description: 'Close an agent.', parameters: { type: 'object' } },
      { type: 'custom', name: 'note', description: 'Free text.' },
    ],
  };

  it('offers namespace members as NAMESPACE__NAME, the namespace description first, and leaves hosted tools out', () => {
    const parsed = parseResponsesTools(
      [{ type: 'function', name: 'exec_command', parameters: { type: 'object' } }, namespace, { type: 'web_search' }],
      'auto',
    );
    expect(parsed.tools.map((tool) => [tool.name, tool.description])).toEqual([
      ['exec_command', ''],
      ['multi_agent_v1__close_agent', 'Tools for spawning and managing sub-agents.\n\nClose an agent.'],
      ['multi_agent_v1__note', 'Tools for spawning and managing sub-agents.\n\nFree text.'],
    ]);
    expect([...parsed.names]).toEqual([
      ['exec_command', { name: 'exec_command', custom: false }],
      ['multi_agent_v1__close_agent', { name: 'close_agent', namespace: 'multi_agent_v1', custom: false }],
      ['multi_agent_v1__note', { name: 'note', namespace: 'multi_agent_v1', custom: true }],
    ]);
    expect(parsed.omitted).toEqual(['web_search']);
  });

  it.each([
    ['a tool_choice forcing a hosted tool', [{ type: 'web_search' }], { type: 'web_search' }, /tool_choice forces/],
    [
      'a name declared twice',
      [namespace, { type: 'function', name: 'multi_agent_v1__close_agent' }],
      'auto',
      /declared twice/,
    ],
    ['a namespace without tools', [{ type: 'namespace', name: 'x' }], 'auto', /tools must be an array/],
  ])('refuses %s with a 400', (_what, tools, toolChoice, message) => {
    expect(() => parseResponsesTools(tools, toolChoice)).toThrow(message);
  });

  it('reads an echoed namespaced call as its upstream name and answers a call with name and namespace', () => {
    const parsed = parseResponsesRequest({
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go' }] },
        { type: 'function_call', name: 'close_agent', namespace: 'multi_agent_v1', arguments: '{}', call_id: 'c1' },
        { type: 'function_call_output', call_id: 'c1', output: 'done' },
      ],
      tools: [namespace],
    });
    const assistant = parsed.history.messages[1];
    expect(assistant?.role === 'assistant' ? assistant.tool_calls?.[0]?.function.name : '').toBe(
      'multi_agent_v1__close_agent',
    );
    const answer = {
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c2', type: 'function', function: { name: 'multi_agent_v1__close_agent', arguments: '{}' } },
          { id: 'c3', type: 'function', function: { name: 'multi_agent_v1__note', arguments: '{"input":"hi"}' } },
        ],
      },
      handle: 'hermes.1.k.x',
      hasCarriers: false,
      usage: null,
      finishReason: null,
    } as unknown as FrontDoorAnswer;
    const body = responsesResponseBody(answer, responseIdentity('deepseek', parsed.toolNames));
    expect(body['model']).toBe('deepseek');
    expect(body['output']).toEqual([
      expect.objectContaining({ type: 'function_call', name: 'close_agent', namespace: 'multi_agent_v1' }),
      expect.objectContaining({ type: 'custom_tool_call', name: 'note', namespace: 'multi_agent_v1', input: 'hi' }),
    ]);
  });

  it('says once per gateway which hosted tools it leaves out, and answers', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    const { gateway } = await doors.gateway(['deepseek'], { logger });
    const openai = doors.openai(gateway);
    for (const input of ['hi', 'again']) {
      const answer = await openai.responses.create({
        model: 'deepseek',
        input,
        tools: [{ type: 'web_search' }],
      });
      expect(answer.status).toBe('completed');
    }
    expect(lines.filter((line) => line.includes('hosted tools left out')).length).toBe(1);
  });
});

describe('system notes among the turns', () => {
  const history = (): ClientHistory => ({ messages: [], echoes: new Map() });

  it('are the system prompt before the first turn, then user text where they stand', () => {
    const client = history();
    addClientSystemText(client, 'You are Claude Code.');
    addClientSystemText(client, 'Be brief.');
    client.messages.push({ role: 'user', content: 'hello' });
    addClientSystemText(client, '# Environment');
    client.messages.push({ role: 'assistant', content: 'hi' });
    addClientSystemText(client, '<model_switch>');
    client.messages.push({ role: 'tool', tool_call_id: 'c1', content: 'ok' });
    addClientSystemText(client, '<total_tokens>9 left</total_tokens>');
    addClientSystemText(client, '');
    expect(client.messages).toEqual([
      { role: 'system', content: 'You are Claude Code.' },
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hello' },
          { type: 'text', text: '# Environment' },
        ],
      },
      { role: 'assistant', content: 'hi' },
      { role: 'user', content: '<model_switch>' },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      { role: 'user', content: '<total_tokens>9 left</total_tokens>' },
    ]);
  });

  it("reach an Anthropic route's user turns, never its system prompt", async () => {
    const { gateway, upstreams } = await doors.gateway(['anthropic']);
    const claude = doors.anthropic(gateway);
    const note = { role: 'system', content: 'You are powered by the model anthropic.' };
    await claude.messages.create({
      model: 'anthropic',
      max_tokens: 1024,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'hello' }, note] as never,
    });
    const sent = upstreams['anthropic']!.requests[0]?.body as { system: unknown; messages: unknown[] };
    expect(sent.system).toBe('Be brief.');
    expect(JSON.stringify(sent.messages)).toContain('You are powered by the model anthropic.');
  });
});

describe('Messages requests as Claude Code sends them', () => {
  it('joins consecutive assistant messages into one turn, the handle of the second block included', () => {
    const parsed = parseMessagesRequest({
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] },
        { role: 'assistant', content: [{ type: 'thinking', thinking: '', signature: 'hermes.1.k.x' }] },
        { role: 'user', content: 'again' },
      ],
    });
    expect(parsed.history.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(parsed.history.messages[1]).toEqual({ role: 'assistant', content: 'Hello.' });
    expect(parsed.history.echoes.get(1)?.reasoning).toEqual([
      { field: 'content[1].signature', value: 'hermes.1.k.x', text: '' },
    ]);
  });

  it.each([
    [{ type: 'adaptive', display: 'omitted' }, { effort: 'high' }, { enabled: true, effort: 'high' }],
    [{ type: 'enabled', budget_tokens: 4096 }, { effort: 'max' }, { enabled: true, budgetTokens: 4096, effort: 'max' }],
    [undefined, { effort: 'xhigh' }, { effort: 'max' }],
    [{ type: 'disabled' }, { effort: 'low' }, { enabled: false }],
    [undefined, { effort: 'unheard-of' }, undefined],
  ])('reads thinking %j with output_config %j as %j', (thinking, outputConfig, reasoning) => {
    const parsed = parseMessagesRequest({
      messages: [{ role: 'user', content: 'hi' }],
      thinking,
      output_config: outputConfig,
    });
    expect(parsed.reasoning).toEqual(reasoning);
  });

  it('names the model the client asked for in the answer, streamed or not, whatever the route runs', async () => {
    const upstream = await startUpstream('deepseek');
    const { gateway } = await doors.gateway(['deepseek'], {
      models: [{ name: 'claude-sonnet-4-5', route: upstream.route }],
    });
    const claude = doors.anthropic(gateway);
    const request = {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      messages: [{ role: 'user' as const, content: 'hi' }],
    };
    expect((await claude.messages.create(request)).model).toBe('claude-sonnet-4-5');
    expect((await claude.messages.stream(request).finalMessage()).model).toBe('claude-sonnet-4-5');
    await upstream.close();
  });

  it.each([
    [
      'a refused token',
      { 'x-api-key': 'wrong' },
      { model: 'deepseek', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] },
      401,
      'false',
    ],
    ['a bad request', { 'x-api-key': 'right' }, { messages: [] }, 400, 'false'],
  ])(
    'answers %s with x-should-retry: false (Claude Code would resend it for minutes)',
    async (_what, headers, body, status, retry) => {
      const { gateway } = await doors.gateway(['deepseek'], { token: 'right' });
      const response = await fetch(`${gateway.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(status);
      expect(response.headers.get('x-should-retry')).toBe(retry);
    },
  );
});
