import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { READ_FILE_SCHEMA, runClientTool } from './front-door-helpers.js';

/**
 * One client per front door, each driving its door with the official SDK as the real clients
 * do (streamed answers, the client holding the history and running `read_file`), and doing to
 * the reasoning it was given what real clients do (SPEC §26.1):
 *
 * - `keep`: echo everything as received;
 * - `strip`: drop every thinking block / reasoning item / `reasoning_content` (Claude Code on a
 *   model switch);
 * - `blank`: `"signature": ""` (Messages), `encrypted_content: null` (Responses);
 * - `tamper`: change one character of every handle;
 * - `fragment`: keep only the last streamed `reasoning_content` chunk (chat: the `openai` SDK's
 *   stream helper).
 *
 * The client keeps what it received and applies its behaviour to every earlier turn of each
 * request it sends.
 */

export type Door = 'messages' | 'responses' | 'chat';
export type Behaviour = 'keep' | 'strip' | 'blank' | 'tamper' | 'fragment';

/** A conversation on one door. */
export interface DoorClient {
  /**
   * One user turn: requests until an answer without tool calls (at most 4); `model` names the
   * route of the first request, `followUp` that of the later ones (a switch mid-loop). Returns
   * the final answer's text.
   */
  turn(text: string, model: string, followUp?: string): Promise<string>;
  /** Sends the next requests to another gateway. */
  moveTo(url: string): void;
}

/** Options of {@link doorClient}. */
export interface DoorClientOptions {
  behaviour: Behaviour;
  /** The session the client names in its door's session header; none: stateless. */
  session?: string;
}

/** A client of `door` at the gateway `url`. */
export function doorClient(door: Door, url: string, options: DoorClientOptions): DoorClient {
  if (door === 'messages') return messagesClient(url, options);
  if (door === 'responses') return responsesClient(url, options);
  return chatClient(url, options);
}

/** One character of a handle changed (to a different one). */
export function tampered(handle: string): string {
  const at = Math.min(41, handle.length - 1);
  const replacement = handle[at] === 'A' ? 'B' : 'A';
  return handle.slice(0, at) + replacement + handle.slice(at + 1);
}

async function loop(
  text: string,
  model: string,
  followUp: string | undefined,
  step: (model: string) => Promise<{ text: string; calls: { id: string; name: string; args: string }[] }>,
  addUser: (text: string) => void,
  addResults: (calls: { id: string; name: string; args: string }[]) => void,
): Promise<string> {
  addUser(text);
  for (let index = 0; index < 4; index += 1) {
    const answer = await step(index === 0 ? model : (followUp ?? model));
    if (answer.calls.length === 0) return answer.text;
    addResults(answer.calls);
  }
  throw new Error('no final answer after 4 requests');
}

function resultOf(call: { name: string; args: string }): string {
  return runClientTool(call.name, JSON.parse(call.args || '{}') as Record<string, unknown>);
}

function messagesClient(url: string, options: DoorClientOptions): DoorClient {
  const headers: Record<string, string> = options.session ? { 'x-claude-code-session-id': options.session } : {};
  let client = new Anthropic({ baseURL: url, apiKey: 'client-key', maxRetries: 0, defaultHeaders: headers });
  const messages: Anthropic.MessageParam[] = [];
  const tools: Anthropic.Tool[] = [{ name: 'read_file', description: 'Read a file', input_schema: READ_FILE_SCHEMA }];
  const echoed = (): Anthropic.MessageParam[] =>
    messages.map((message) => {
      if (message.role !== 'assistant' || !Array.isArray(message.content)) return message;
      const content = message.content.flatMap((block): Anthropic.ContentBlockParam[] => {
        if (block.type !== 'thinking') return [block];
        if (options.behaviour === 'strip') return [];
        if (options.behaviour === 'blank') return [{ ...block, signature: '' }];
        if (options.behaviour === 'tamper') return [{ ...block, signature: tampered(block.signature) }];
        return [block];
      });
      return { role: 'assistant', content };
    });
  return {
    moveTo: (next) => {
      client = new Anthropic({ baseURL: next, apiKey: 'client-key', maxRetries: 0, defaultHeaders: headers });
    },
    turn: (text, model, followUp) =>
      loop(
        text,
        model,
        followUp,
        async (stepModel) => {
          const response = await client.messages
            .stream({ model: stepModel, max_tokens: 4096, messages: echoed(), tools })
            .finalMessage();
          messages.push({ role: 'assistant', content: response.content });
          return {
            text: response.content.map((block) => (block.type === 'text' ? block.text : '')).join(''),
            calls: response.content.flatMap((block) =>
              block.type === 'tool_use' ? [{ id: block.id, name: block.name, args: JSON.stringify(block.input) }] : [],
            ),
          };
        },
        (user) => messages.push({ role: 'user', content: user }),
        (calls) =>
          messages.push({
            role: 'user',
            content: calls.map((call) => ({
              type: 'tool_result' as const,
              tool_use_id: call.id,
              content: resultOf(call),
            })),
          }),
      ),
  };
}

function responsesClient(url: string, options: DoorClientOptions): DoorClient {
  const headers: Record<string, string> = options.session ? { session_id: options.session } : {};
  let client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'client-key', maxRetries: 0, defaultHeaders: headers });
  const input: OpenAI.Responses.ResponseInputItem[] = [];
  const tools: OpenAI.Responses.Tool[] = [
    { type: 'function', name: 'read_file', description: 'Read a file', parameters: READ_FILE_SCHEMA, strict: false },
  ];
  const echoed = (): OpenAI.Responses.ResponseInputItem[] =>
    input.flatMap((item): OpenAI.Responses.ResponseInputItem[] => {
      if ((item as { type?: string }).type !== 'reasoning') return [item];
      const reasoning = item as OpenAI.Responses.ResponseReasoningItem;
      if (options.behaviour === 'strip') return [];
      if (options.behaviour === 'blank') return [{ ...reasoning, encrypted_content: null }];
      if (options.behaviour === 'tamper') {
        return [{ ...reasoning, encrypted_content: tampered(reasoning.encrypted_content ?? '') }];
      }
      return [item];
    });
  return {
    moveTo: (next) => {
      client = new OpenAI({ baseURL: `${next}/v1`, apiKey: 'client-key', maxRetries: 0, defaultHeaders: headers });
    },
    turn: (text, model, followUp) =>
      loop(
        text,
        model,
        followUp,
        async (stepModel) => {
          const response = await client.responses
            .stream({
              model: stepModel,
              input: echoed(),
              tools,
              store: false,
              include: ['reasoning.encrypted_content'],
              instructions: 'You are a coding agent.',
            })
            .finalResponse();
          input.push(...(response.output as OpenAI.Responses.ResponseInputItem[]));
          return {
            text: response.output
              .flatMap((item) => (item.type === 'message' ? item.content : []))
              .map((part) => (part.type === 'output_text' ? part.text : ''))
              .join(''),
            calls: response.output.flatMap((item) =>
              item.type === 'function_call' ? [{ id: item.call_id, name: item.name, args: item.arguments }] : [],
            ),
          };
        },
        (user) => input.push({ role: 'user', content: user }),
        (calls) => {
          for (const call of calls)
            input.push({ type: 'function_call_output', call_id: call.id, output: resultOf(call) });
        },
      ),
  };
}

function chatClient(url: string, options: DoorClientOptions): DoorClient {
  const headers: Record<string, string> = options.session ? { 'x-session-id': options.session } : {};
  let client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'client-key', maxRetries: 0, defaultHeaders: headers });
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [];
  const tools: OpenAI.Chat.ChatCompletionTool[] = [
    { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: READ_FILE_SCHEMA } },
  ];
  return {
    moveTo: (next) => {
      client = new OpenAI({ baseURL: `${next}/v1`, apiKey: 'client-key', maxRetries: 0, defaultHeaders: headers });
    },
    turn: (text, model, followUp) =>
      loop(
        text,
        model,
        followUp,
        async (stepModel) => {
          const stream = client.chat.completions.stream({ model: stepModel, messages, tools });
          let whole = '';
          for await (const chunk of stream) {
            whole += (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? '';
          }
          const choice = (await stream.finalChatCompletion()).choices[0]!;
          const { parsed: _parsed, ...message } = choice.message as OpenAI.Chat.ChatCompletionMessage & {
            parsed?: unknown;
            reasoning_content?: string;
          };
          // `fragment`: what the SDK's helper kept (the last chunk) stays as it is.
          if (options.behaviour === 'keep' && whole !== '') message.reasoning_content = whole;
          if (options.behaviour === 'strip') delete message.reasoning_content;
          messages.push(message as OpenAI.Chat.ChatCompletionMessageParam);
          return {
            text: message.content ?? '',
            calls: (message.tool_calls ?? []).flatMap((call) =>
              call.type === 'function'
                ? [{ id: call.id, name: call.function.name, args: call.function.arguments }]
                : [],
            ),
          };
        },
        (user) => messages.push({ role: 'user', content: user }),
        (calls) => {
          for (const call of calls) messages.push({ role: 'tool', tool_call_id: call.id, content: resultOf(call) });
        },
      ),
  };
}
