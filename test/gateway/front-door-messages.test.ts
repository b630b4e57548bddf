import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { estimateClientTurnTokens } from '../../src/runtime/runtime-client-turn.js';
import { parseMessagesRequest } from '../../src/gateway/gateway-messages-request.js';
import { readableHistory } from '../../src/gateway/gateway-front-door-handles.js';
import { messageText, messagesConversation, READ_FILE_SCHEMA, statuses, useFrontDoors } from './front-door-helpers.js';

/**
 * The Anthropic Messages front door (SPEC §25.6, docs/gateway.md): the official SDK holds the
 * history and runs the tools; the gateway returns the upstream carriers in the thinking block's
 * `signature` and replays them on the next turn by the route table.
 */

const doors = useFrontDoors();

describe('POST /v1/messages through the Anthropic SDK', () => {
  it('streams the real event sequence: thinking deltas, one signature_delta before the stop, then text', async () => {
    const { gateway } = await doors.gateway(['deepseek']);
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: 'deepseek',
        max_tokens: 100,
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await response.text())
      .split('\n\n')
      .filter((frame) => frame.startsWith('event: '))
      .map((frame) => {
        const [eventLine, dataLine] = frame.split('\n');
        const data = JSON.parse((dataLine ?? '').slice('data: '.length)) as { type: string; delta?: { type: string } };
        expect(eventLine).toBe(`event: ${data.type}`);
        return data.delta?.type ? `${data.type}:${data.delta.type}` : data.type;
      });
    const collapsed = events.filter((event, index) => event !== events[index - 1]);
    expect(collapsed).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta:thinking_delta',
      'content_block_delta:signature_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta:text_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events.filter((event) => event.endsWith('signature_delta'))).toHaveLength(1);
  });

  it('count_tokens answers the replay estimate of the request on its route (opaque bytes free)', async () => {
    const { gateway, upstreams } = await doors.gateway(['deepseek']);
    const body = {
      model: 'deepseek',
      system: 'be brief',
      messages: [
        { role: 'user', content: 'read the file notes.txt' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'plan it', signature: 'x'.repeat(5000) }] },
        { role: 'user', content: 'go on' },
      ],
      tools: [{ name: 'read_file', description: 'Read a file', input_schema: READ_FILE_SCHEMA }],
    };
    const counted = await doors.anthropic(gateway).messages.countTokens(body as Anthropic.MessageCountTokensParams);
    const parsed = parseMessagesRequest(body);
    const expected = estimateClientTurnTokens(
      readableHistory(parsed.history),
      parsed.tools,
      upstreams['deepseek']!.route.route,
      {
        reasoning: { enabled: true },
      },
    );
    expect(counted.input_tokens).toBe(expected);
    expect(counted.input_tokens).toBeGreaterThan(10);
    expect(counted.input_tokens).toBeLessThan(200); // the 5,000-byte signature costs nothing
  });

  it("accepts the gateway token as x-api-key (Claude Code) or as a bearer (this SDK), refusing a wrong one in Anthropic's envelope", async () => {
    const { gateway } = await doors.gateway(['deepseek'], { token: 'gateway-secret' });
    const ask = (client: Anthropic) =>
      client.messages.create({ model: 'deepseek', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    const withKey = (key: string) =>
      new Anthropic({ baseURL: gateway.url, apiKey: null, defaultHeaders: { 'x-api-key': key }, maxRetries: 0 });
    expect(messageText(await ask(withKey('gateway-secret')))).toContain('You said: hi');
    const asBearer = new Anthropic({ baseURL: gateway.url, apiKey: 'gateway-secret', maxRetries: 0 });
    expect(messageText(await ask(asBearer))).toContain('You said: hi');
    const refused = await ask(withKey('wrong')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((refused as { error?: unknown }).error).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error' },
    });
  });

  it('refuses hosted tools with a 400 naming them, and answers a provider 400 as a 400 with its text', async () => {
    const { gateway, upstreams } = await doors.gateway(['deepseek']);
    const client = doors.anthropic(gateway);
    const hosted = await client.messages
      .create({
        model: 'deepseek',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'search' }],
        tools: [{ type: 'web_search_20250305', name: 'web_search' }],
      })
      .catch((error: unknown) => error);
    expect(hosted).toBeInstanceOf(Anthropic.BadRequestError);
    expect((hosted as Error).message).toContain('web_search (web_search_20250305)');
    upstreams['deepseek']!.addFault?.({
      kind: 'status',
      status: 400,
      body: JSON.stringify({
        error: { message: 'prompt is too long: 300000 tokens > 200000 maximum', type: 'invalid_request_error' },
      }),
    });
    const tooLong = await client.messages
      .create({ model: 'deepseek', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(tooLong).toBeInstanceOf(Anthropic.BadRequestError);
    expect((tooLong as Error).message).toContain('prompt is too long');
  });

  it('a real Anthropic signature (a client that talked to Anthropic directly) passes through on the Anthropic route only', async () => {
    const { gateway, upstreams } = await doors.gateway(['anthropic', 'deepseek']);
    const direct = new Anthropic({
      baseURL: upstreams['anthropic']!.route.route.baseUrl,
      apiKey: null,
      defaultHeaders: { 'x-api-key': 'sk-ant-test' },
      maxRetries: 0,
    });
    const first = await direct.messages.create({
      model: 'claude-opus-4-8',
      max_tokens: 4096,
      thinking: { type: 'enabled', budget_tokens: 2048 },
      messages: [{ role: 'user', content: 'hello' }],
    });
    const chat = {
      messages: [
        { role: 'user' as const, content: 'hello' },
        { role: 'assistant' as const, content: first.content },
      ],
    };
    const signed = first.content[0] as Anthropic.ThinkingBlock;
    expect(signed.type).toBe('thinking');
    expect(signed.signature).not.toMatch(/^hermes\./);
    const viaGateway = messagesConversation(doors.anthropic(gateway), 'anthropic');
    viaGateway.messages.push(...chat.messages);
    const [answer] = await viaGateway.turn('again', { stream: true });
    expect(messageText(answer!)).toContain('Reasoning continuity: intact (1/1).');
    expect(upstreams['anthropic']!.requests.at(-1)?.raw).toContain(JSON.stringify(signed.signature));
    const elsewhere = messagesConversation(doors.anthropic(gateway), 'deepseek');
    elsewhere.messages.push(...chat.messages);
    await elsewhere.turn('again', { stream: false });
    expect(upstreams['deepseek']!.requests.at(-1)?.raw).not.toContain(signed.signature);
    expect(statuses(upstreams['anthropic']!)).toEqual([200, 200]);
  });

  it.each([
    ['dropped', (): Anthropic.ContentBlockParam[] => []],
    ['kept unsigned', (block: Anthropic.ThinkingBlock): Anthropic.ContentBlockParam[] => [{ ...block, signature: '' }]],
  ] as const)(
    'takes what Claude Code sends after a model change (thinking %s) and a system message inside messages: the must-echo pad keeps DeepSeek answering',
    async (_how, rewrite) => {
      const { gateway, upstreams } = await doors.gateway(['deepseek', 'anthropic']);
      const chat = messagesConversation(doors.anthropic(gateway), 'anthropic');
      await chat.turn('read the file notes.txt', { stream: true });
      for (const message of chat.messages) {
        if (message.role !== 'assistant' || typeof message.content === 'string') continue;
        message.content = message.content.flatMap((block): Anthropic.ContentBlockParam[] =>
          block.type === 'thinking' ? rewrite(block as Anthropic.ThinkingBlock) : [block],
        );
      }
      chat.messages.splice(1, 0, { role: 'system', content: 'Use the tools.' } as unknown as Anthropic.MessageParam);
      const answers = await chat.turn('read the file notes.txt again', { stream: false, model: 'deepseek' });
      expect(messageText(answers.at(-1)!)).toContain('The tool returned: alpha beta');
      expect(statuses(upstreams['deepseek']!)).toEqual([200, 200]);
      const sent = upstreams['deepseek']!.requests[1]?.body as { messages: Record<string, unknown>[] };
      // A system message after the first turn joins the user turn before it (addClientSystemText).
      expect(sent.messages.filter((message) => message['role'] === 'system')).toEqual([]);
      expect(JSON.stringify(sent.messages[0]?.['content'])).toContain('Use the tools.');
      // Every tool-call turn carries reasoning_content (DeepSeek's must-echo): the pad, or the unsigned text.
      const calling = sent.messages.filter((entry) => Array.isArray(entry['tool_calls']));
      expect(calling).toHaveLength(2);
      for (const message of calling) expect(typeof message['reasoning_content']).toBe('string');
      expect(calling[0]?.['reasoning_content']).toEqual(
        _how === 'dropped' ? ' ' : expect.stringContaining('I should call read_file'),
      );
    },
  );
});

describe('reading a Messages request', () => {
  it('keeps tool results before the text of their user turn, replaces images, skips an emptied assistant turn', () => {
    const parsed = parseMessagesRequest({
      model: 'm',
      system: [{ type: 'text', text: 'be brief' }],
      messages: [
        { role: 'user', content: 'look' },
        { role: 'assistant', content: [] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a' } }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'and this' },
            { type: 'tool_result', tool_use_id: 't1', content: 'boom', is_error: true },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
          ],
        },
      ],
    });
    expect(parsed.history.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'look' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 't1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }],
      },
      { role: 'tool', tool_call_id: 't1', content: 'error: boom' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'and this' },
          { type: 'text', text: '[image omitted: the gateway forwards text only]' },
        ],
      },
    ]);
  });
});
