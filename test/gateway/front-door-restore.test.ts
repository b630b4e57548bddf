import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import {
  messagesConversation,
  READ_FILE_SCHEMA,
  responsesConversation,
  runClientTool,
  statuses,
  useFrontDoors,
  type UpstreamName,
} from './front-door-helpers.js';

/**
 * SPEC §26.1–§26.2 at the front doors: a client that drops, blanks or cuts the reasoning it was
 * given gets it back from the mirrored session when it names one, and a route that requires a
 * carrier never gets stuck without it (a stand-in, or the foreign turns as text).
 */

const doors = useFrontDoors();

type ChatMessage = OpenAI.Chat.ChatCompletionMessageParam;

const chatTools: OpenAI.Chat.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: READ_FILE_SCHEMA } },
];

/** How a chat client echoes the reasoning it was streamed. */
type ChatEcho = 'whole' | 'last-chunk' | 'none';

/**
 * A chat-completions conversation with client tools, as OpenCode holds it: streamed answers,
 * `reasoning_content` echoed as `echo` says (`last-chunk` is what the `openai` SDK's stream helper
 * keeps of a field it does not know).
 */
function chatConversation(client: OpenAI, model: string, echo: ChatEcho) {
  const messages: ChatMessage[] = [];
  const ask = async (): Promise<{ message: OpenAI.Chat.ChatCompletionMessage; finish: string | null }> => {
    const stream = client.chat.completions.stream({ model, messages, tools: chatTools });
    let whole = '';
    for await (const chunk of stream) {
      whole += (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? '';
    }
    const choice = (await stream.finalChatCompletion()).choices[0]!;
    const message = choice.message as OpenAI.Chat.ChatCompletionMessage & { reasoning_content?: string };
    if (echo === 'whole') message.reasoning_content = whole;
    if (echo === 'none') delete message.reasoning_content;
    return { message, finish: choice.finish_reason };
  };
  return {
    messages,
    async turn(text: string): Promise<string> {
      messages.push({ role: 'user', content: text });
      for (let step = 0; step < 4; step += 1) {
        const { message, finish } = await ask();
        const { parsed: _parsed, ...echoed } = message as typeof message & { parsed?: unknown };
        messages.push(echoed as ChatMessage);
        if (finish !== 'tool_calls') return message.content ?? '';
        for (const call of message.tool_calls ?? []) {
          if (call.type !== 'function') continue;
          const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
          messages.push({ role: 'tool', tool_call_id: call.id, content: runClientTool(call.function.name, args) });
        }
      }
      throw new Error('no final answer after 4 requests');
    },
  };
}

const SESSION = { 'x-session-id': 'ses_restore_1' };

describe('chat completions with client tools (SPEC §26.1)', () => {
  it.each<[UpstreamName, ChatEcho]>([
    ['openrouter', 'whole'],
    ['copilot', 'whole'],
    ['gemini-openai', 'whole'],
    ['deepseek', 'last-chunk'],
    ['openrouter', 'none'],
  ])('%s, reasoning echoed %s, with a session header: every turn intact', async (name, echo) => {
    const { gateway, upstreams } = await doors.gateway([name]);
    const chat = chatConversation(doors.openai(gateway, SESSION), name, echo);
    expect(await chat.turn('read the file notes.txt')).toContain('Reasoning continuity: intact (1/1).');
    expect(await chat.turn('thanks')).toContain('Reasoning continuity: intact (2/2).');
    expect(statuses(upstreams[name]!).filter((status) => status !== 200)).toEqual([]);
  });

  it.each<UpstreamName>(['openrouter', 'copilot', 'gemini-openai'])(
    '%s without a session header: the tool loop completes (no stuck turn)',
    async (name) => {
      const { gateway, upstreams } = await doors.gateway([name]);
      const chat = chatConversation(doors.openai(gateway), name, 'whole');
      expect(await chat.turn('read the file notes.txt')).toContain('The tool returned: alpha beta');
      expect(statuses(upstreams[name]!).filter((status) => status !== 200)).toEqual([]);
    },
  );
});

describe('Messages door (SPEC §26.1, §26.2)', () => {
  it.each<UpstreamName>(['gemini-openai', 'copilot', 'openrouter'])(
    '%s: a tampered handle mid-loop without a session is not a stuck turn',
    async (name) => {
      const { gateway, upstreams } = await doors.gateway([name]);
      const chat = messagesConversation(doors.anthropic(gateway), name);
      chat.messages.push({ role: 'user', content: 'read the file notes.txt' });
      const body = () => ({ model: name, max_tokens: 4096, messages: chat.messages, tools: [readFileTool] });
      const call = await doors.anthropic(gateway).messages.create(body());
      chat.messages.push({ role: 'assistant', content: call.content.map(tamper) });
      const use = call.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use')!;
      chat.messages.push({
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: use.id, content: runClientTool('read_file', { path: 'notes.txt' }) },
        ],
      });
      const answer = await doors.anthropic(gateway).messages.create(body());
      expect(answer.content.map((block) => (block.type === 'text' ? block.text : '')).join('')).toContain(
        'The tool returned: alpha beta',
      );
      expect(statuses(upstreams[name]!).filter((status) => status !== 200)).toEqual([]);
    },
  );

  it.each<UpstreamName>(['gemini-openai', 'copilot', 'openrouter', 'deepseek'])(
    '%s: with a session header, a client that strips every thinking block stays intact',
    async (name) => {
      const { gateway, upstreams } = await doors.gateway([name]);
      const client = doors.anthropic(gateway, { 'x-claude-code-session-id': 'ses_strip_1' });
      const chat = messagesConversation(client, name);
      const strip = () => {
        for (const message of chat.messages) {
          if (message.role === 'assistant' && Array.isArray(message.content)) {
            message.content = message.content.filter((block) => block.type !== 'thinking');
          }
        }
      };
      chat.messages.push({ role: 'user', content: 'read the file notes.txt' });
      const body = () => ({ model: name, max_tokens: 4096, messages: chat.messages, tools: [readFileTool] });
      const call = await client.messages.create(body());
      chat.messages.push({ role: 'assistant', content: call.content });
      const use = call.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use')!;
      chat.messages.push({
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: use.id, content: runClientTool('read_file', { path: 'notes.txt' }) },
        ],
      });
      strip();
      const answer = await client.messages.create(body());
      expect(text(answer)).toContain('Reasoning continuity: intact (1/1).');
      chat.messages.push({ role: 'assistant', content: answer.content });
      strip();
      const [thanks] = await chat.turn('thanks', { stream: true });
      expect(text(thanks!)).toContain('Reasoning continuity: intact (2/2).');
      expect(statuses(upstreams[name]!).filter((status) => status !== 200)).toEqual([]);
    },
  );
});

describe('Responses door (SPEC §26.1)', () => {
  it('encrypted_content null with a session header: restored, intact', async () => {
    const { gateway, upstreams } = await doors.gateway(['openrouter']);
    const codex = responsesConversation(doors.openai(gateway, { session_id: 'ses_codex_1' }), 'openrouter');
    const [call] = await codex.turn('read the file notes.txt', { stream: true }).then((all) => all.slice(0, 1));
    expect(call?.output.some((item) => item.type === 'function_call')).toBe(true);
    for (const item of codex.input) {
      if ((item as { type?: string }).type === 'reasoning')
        (item as { encrypted_content: null }).encrypted_content = null;
    }
    const [thanks] = await codex.turn('thanks', { stream: true });
    const out = thanks!.output
      .flatMap((item) => (item.type === 'message' ? item.content : []))
      .map((part) => (part.type === 'output_text' ? part.text : ''))
      .join('');
    expect(out).toContain('Reasoning continuity: intact (2/2).');
    expect(statuses(upstreams['openrouter']!).filter((status) => status !== 200)).toEqual([]);
  });
});

const readFileTool: Anthropic.Tool = { name: 'read_file', description: 'Read a file', input_schema: READ_FILE_SCHEMA };

function text(message: Anthropic.Message): string {
  return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

function tamper(block: Anthropic.ContentBlock): Anthropic.ContentBlockParam {
  if (block.type !== 'thinking') return block;
  const at = 41;
  const replacement = block.signature[at] === 'A' ? 'B' : 'A';
  return { ...block, signature: block.signature.slice(0, at) + replacement + block.signature.slice(at + 1) };
}

describe('a fork under a new session id (SPEC §26.1)', () => {
  it.each<UpstreamName>(['copilot', 'gemini-openai', 'openrouter'])(
    '%s: the chat door restores the forked turns from the session that answered them',
    async (name) => {
      const { gateway, upstreams, store } = await doors.gateway([name]);
      const chat = chatConversation(doors.openai(gateway, { 'x-session-id': 'ses_parent_1' }), name, 'whole');
      expect(await chat.turn('read the file notes.txt')).toContain('Reasoning continuity: intact (1/1).');
      const fork = chatConversation(doors.openai(gateway, { 'x-session-id': 'ses_fork_1' }), name, 'whole');
      fork.messages.push(...chat.messages);
      expect(await fork.turn('thanks')).toContain('Reasoning continuity: intact (2/2).');
      expect(statuses(upstreams[name]!).filter((status) => status !== 200)).toEqual([]);
      const records = await store.listRequests('ses_fork_1');
      expect(JSON.stringify(records[0]?.decisions)).toContain('restored from session ses_parent_1');
    },
  );
});
