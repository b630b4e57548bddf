import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { READ_FILE_SCHEMA, runClientTool, statuses, useFrontDoors } from './front-door-helpers.js';

/**
 * Chat completions with client `tools` (docs/gateway.md "Chat completions with client tools"):
 * the tools pass upstream, the provider's calls come back as `tool_calls`, the client's
 * `reasoning_content` goes back to the route; without `tools` the gateway's own agent loop runs
 * (test/gateway/gateway-openai-client.test.ts).
 */

const doors = useFrontDoors();

type ChatMessage = OpenAI.Chat.ChatCompletionMessageParam;

const tools: OpenAI.Chat.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: READ_FILE_SCHEMA } },
];

describe('POST /v1/chat/completions with client tools', () => {
  it.each([false, true])(
    'returns tool_calls to the client and takes its tool results back (stream %s)',
    async (stream) => {
      const { gateway, upstreams, store } = await doors.gateway(['deepseek']);
      const client = doors.openai(gateway);
      const messages: ChatMessage[] = [{ role: 'user', content: 'read the file notes.txt' }];
      let reasoning = '';
      const ask = async () => {
        if (!stream) {
          const choice = (await client.chat.completions.create({ model: 'deepseek', messages, tools })).choices[0]!;
          reasoning = (choice.message as unknown as { reasoning_content: string }).reasoning_content;
          return choice;
        }
        // The SDK's accumulator keeps only the last delta of a field it does not know: collect it here.
        const events = client.chat.completions.stream({ model: 'deepseek', messages, tools });
        reasoning = '';
        for await (const chunk of events) {
          reasoning += (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? '';
        }
        return (await events.finalChatCompletion()).choices[0]!;
      };
      const first = await ask();
      expect(first.finish_reason).toBe('tool_calls');
      const call = first.message.tool_calls?.[0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
      expect(call.function).toEqual({ name: 'read_file', arguments: '{"path":"notes.txt"}' });
      expect(reasoning).toContain('I should call read_file');
      messages.push({ ...first.message, reasoning_content: reasoning } as ChatMessage);
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: runClientTool('read_file', { path: 'notes.txt' }),
      });
      const second = await ask();
      expect(second.finish_reason).toBe('stop');
      expect(second.message.content).toContain('The tool returned: alpha beta');
      expect(second.message.content).toContain('Reasoning continuity: intact (1/1).');
      expect(statuses(upstreams['deepseek']!)).toEqual([200, 200]);
      // The client held the history: no stored session, no tool ran in the gateway.
      expect(await store.listSessions()).toEqual([]);
    },
  );
});
