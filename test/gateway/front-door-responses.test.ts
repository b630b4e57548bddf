import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import {
  READ_FILE_SCHEMA,
  responsesConversation,
  responseText,
  runClientTool,
  statuses,
  useFrontDoors,
} from './front-door-helpers.js';

/**
 * The OpenAI Responses front door (SPEC §25.6, docs/gateway.md): the official SDK holds the
 * history (`store: false`) and runs the tools; the gateway returns the upstream carriers in the
 * reasoning item's `encrypted_content` and replays them on the next turn by the route table.
 */

const doors = useFrontDoors();

type Item = OpenAI.Responses.ResponseInputItem;

describe('POST /v1/responses through the openai SDK', () => {
  it('streams the real event names in order, every event numbered', async () => {
    const { gateway } = await doors.gateway(['deepseek']);
    const stream = await doors.openai(gateway).responses.create({ model: 'deepseek', input: 'hi', stream: true });
    const types: string[] = [];
    const numbers: number[] = [];
    for await (const event of stream) {
      types.push(event.type);
      numbers.push(event.sequence_number);
    }
    expect(numbers).toEqual(numbers.map((_unused, index) => index));
    const collapsed = types.filter((type, index) => type !== types[index - 1]);
    expect(collapsed).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
  });

  it('custom tools go upstream as a one-string function and come back as custom_tool_call', async () => {
    const { gateway, upstreams } = await doors.gateway(['deepseek']);
    const client = doors.openai(gateway);
    const tools: OpenAI.Responses.Tool[] = [{ type: 'custom', name: 'read_file', description: 'Read a file' }];
    const input: Item[] = [{ role: 'user', content: 'read the file notes.txt' }];
    const first = await client.responses.create({ model: 'deepseek', input, tools, store: false });
    const call = first.output.find(
      (item) => item.type === 'custom_tool_call',
    ) as OpenAI.Responses.ResponseCustomToolCall;
    expect(call).toMatchObject({ type: 'custom_tool_call', name: 'read_file', call_id: 'call_1_1' });
    const offered = (upstreams['deepseek']!.requests[0]?.body as { tools: { function: { parameters: unknown } }[] })
      .tools;
    expect(offered[0]?.function.parameters).toMatchObject({ required: ['input'] });
    input.push(...(first.output as Item[]), {
      type: 'custom_tool_call_output',
      call_id: call.call_id,
      output: 'alpha beta\n',
    });
    const second = await client.responses.create({ model: 'deepseek', input, tools, store: false });
    expect(responseText(second)).toContain('The tool returned: alpha beta');
    expect(statuses(upstreams['deepseek']!)).toEqual([200, 200]);
  });

  it('takes what Codex and opencode send: content and encrypted_content null, no item ids', async () => {
    const { gateway, upstreams } = await doors.gateway(['deepseek']);
    const input: Item[] = [
      { role: 'user', content: 'read the file notes.txt' },
      {
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: 'I will read it' }],
        content: null,
        encrypted_content: null,
      } as unknown as Item,
      { type: 'function_call', call_id: 'call_x', name: 'read_file', arguments: '{"path":"notes.txt"}' } as Item,
      { type: 'function_call_output', call_id: 'call_x', output: runClientTool('read_file', { path: 'notes.txt' }) },
    ];
    const tools: OpenAI.Responses.Tool[] = [
      { type: 'function', name: 'read_file', parameters: READ_FILE_SCHEMA, strict: false },
    ];
    const response = await doors.openai(gateway).responses.create({ model: 'deepseek', input, tools, store: false });
    expect(responseText(response)).toContain('The tool returned: alpha beta');
    expect(statuses(upstreams['deepseek']!)).toEqual([200]);
    const sent = upstreams['deepseek']!.requests[0]?.body as { messages: Record<string, unknown>[] };
    expect(sent.messages[1]).toMatchObject({ role: 'assistant', reasoning_content: 'I will read it' });
  });

  it('a model switch mid-session keeps every turn answering; the stale foreign items stay with their issuer', async () => {
    const { gateway, upstreams } = await doors.gateway(['responses', 'deepseek']);
    const codex = responsesConversation(doors.openai(gateway), 'responses');
    await codex.turn('read the file notes.txt', { stream: true });
    const switched = await codex.turn('read the file notes.txt', { stream: false, model: 'deepseek' });
    expect(responseText(switched.at(-1)!)).toContain('The tool returned');
    const back = await codex.turn('thanks', { stream: true, model: 'responses' });
    expect(responseText(back[0]!)).toContain('Reasoning continuity:');
    expect(
      [...statuses(upstreams['responses']!), ...statuses(upstreams['deepseek']!)].every((status) => status === 200),
    ).toBe(true);
    // DeepSeek never got an encrypted item; the Responses upstream got its own back.
    for (const request of upstreams['deepseek']!.requests) expect(request.raw).not.toContain('encrypted_content');
    expect(upstreams['responses']!.requests.at(-1)?.raw).toContain('encrypted_content');
  });

  it.each([
    ['previous_response_id', { previous_response_id: 'resp_1', input: 'hi' }, /previous_response_id is not supported/],
    ['an item_reference', { input: [{ type: 'item_reference', id: 'rs_1' }] }, /item_reference/],
    [
      'a tool_choice forcing a hosted tool',
      { input: 'hi', tools: [{ type: 'web_search' }], tool_choice: { type: 'web_search' } },
      /tool_choice forces the hosted tool web_search.*left out: web_search/,
    ],
  ])("answers %s with a 400 in OpenAI's envelope", async (_what, body, message) => {
    const { gateway } = await doors.gateway(['deepseek']);
    const refused = await doors
      .openai(gateway)
      .responses.create({ model: 'deepseek', ...body } as OpenAI.Responses.ResponseCreateParamsNonStreaming)
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as Error).message).toMatch(message);
  });
});
