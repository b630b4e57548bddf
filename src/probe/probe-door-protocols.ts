import type { JsonObject, JsonValue } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import { PROBE_TOOL } from './probe-prompts.js';

/**
 * The gateway's doors as their clients speak them (docs/gateway.md "Front doors"): what a
 * request body is, what the client keeps of an answer, and how it answers a tool call. Each
 * client holds its history and sends it whole, echoing what the gateway returned unchanged (the
 * thinking block's signature, the reasoning item's encrypted content, the chat message's
 * `reasoning_content`), and names its session in its own header, as Claude Code, Codex and
 * OpenCode do.
 */

/** What a client reads from one answer. */
export interface DoorAnswer {
  /** The items the client appends to its history, exactly as returned. */
  items: JsonValue[];
  /** The readable reasoning shown to the client ('' when none). */
  reasoning: string;
  text: string;
  /** Tool calls the client must answer. */
  calls: { id: string; name: string }[];
  usage: { input: number; output: number };
}

/** Options of one request body. */
export interface DoorBodyOptions {
  model: string;
  system: string;
}

/** One door as a client speaks it. */
export interface DoorProtocol {
  /** Short id (`messages`), the way in's name. */
  name: string;
  /** `POST /v1/messages`. */
  label: string;
  /** The request path for a model (a Gemini-wire door names the model in its path). */
  path(model: string): string;
  /** The header that names the client's session (none: the client's turns are stateless). */
  sessionHeader?: string;
  headers: Readonly<Record<string, string>>;
  body(history: readonly JsonValue[], options: DoorBodyOptions): JsonObject;
  userItem(text: string): JsonValue;
  read(answer: JsonObject): DoorAnswer;
  /**
   * A door the client streams from (`path` asks for server-sent events): what the client keeps of
   * the answer's `data:` chunks, in order. Without it the answer is one JSON body for `read`.
   */
  readStream?(chunks: readonly JsonObject[]): DoorAnswer;
  toolResults(calls: readonly { id: string; name: string }[], result: string): JsonValue[];
  /** The history as the client sends it after its own resume (unchanged when absent). */
  resumed?(history: readonly JsonValue[]): JsonValue[];
}

const objects = (value: unknown): JsonObject[] => (Array.isArray(value) ? value.filter(isJsonObject) : []);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const count = (value: unknown): number => (typeof value === 'number' ? value : 0);

/** Anthropic Messages, as Claude Code and `@anthropic-ai/sdk` send it. */
export const MESSAGES_DOOR: DoorProtocol = {
  name: 'messages',
  label: 'POST /v1/messages',
  path: () => '/v1/messages',
  sessionHeader: 'x-claude-code-session-id',
  headers: { 'anthropic-version': '2023-06-01', 'x-api-key': 'hermes-probe' },
  body: (history, options) => ({
    model: options.model,
    max_tokens: 8192,
    system: options.system,
    messages: [...history],
    tools: [{ name: PROBE_TOOL.name, description: PROBE_TOOL.description, input_schema: PROBE_TOOL.parameters }],
  }),
  userItem: (content) => ({ role: 'user', content }),
  read(answer) {
    const blocks = objects(answer['content']);
    const usage = isJsonObject(answer['usage']) ? answer['usage'] : {};
    return {
      items: [{ role: 'assistant', content: blocks }],
      reasoning: blocks
        .flatMap((block) => (block['type'] === 'thinking' ? [text(block['thinking'])] : []))
        .join('\n\n'),
      text: blocks.map((block) => (block['type'] === 'text' ? text(block['text']) : '')).join(''),
      calls: blocks
        .filter((block) => block['type'] === 'tool_use')
        .map((block) => ({ id: text(block['id']), name: text(block['name']) })),
      usage: { input: count(usage['input_tokens']), output: count(usage['output_tokens']) },
    };
  },
  toolResults: (calls, result) => [
    { role: 'user', content: calls.map((call) => ({ type: 'tool_result', tool_use_id: call.id, content: result })) },
  ],
};

/** OpenAI Responses with `store: false`, as Codex and the `openai` SDK send it. */
export const RESPONSES_DOOR: DoorProtocol = {
  name: 'responses',
  label: 'POST /v1/responses',
  path: () => '/v1/responses',
  sessionHeader: 'session_id',
  headers: { authorization: 'Bearer hermes-probe' },
  body: (history, options) => ({
    model: options.model,
    instructions: options.system,
    input: [...history],
    tools: [
      {
        type: 'function',
        name: PROBE_TOOL.name,
        description: PROBE_TOOL.description,
        parameters: PROBE_TOOL.parameters,
        strict: false,
      },
    ],
    store: false,
    include: ['reasoning.encrypted_content'],
  }),
  userItem: (content) => ({ role: 'user', content }),
  read(answer) {
    const output = objects(answer['output']);
    const usage = isJsonObject(answer['usage']) ? answer['usage'] : {};
    const summaries = output
      .filter((item) => item['type'] === 'reasoning')
      .flatMap((item) => objects(item['summary']).map((part) => text(part['text'])));
    return {
      items: output,
      reasoning: summaries.join('\n\n'),
      text: output
        .filter((item) => item['type'] === 'message')
        .flatMap((item) => objects(item['content']).map((part) => text(part['text'])))
        .join(''),
      calls: output
        .filter((item) => item['type'] === 'function_call')
        .map((item) => ({ id: text(item['call_id']), name: text(item['name']) })),
      usage: { input: count(usage['input_tokens']), output: count(usage['output_tokens']) },
    };
  },
  toolResults: (calls, result) =>
    calls.map((call) => ({ type: 'function_call_output', call_id: call.id, output: result })),
};

/** Chat completions with client tools, as OpenCode and the `openai` SDK send it. */
export const CHAT_DOOR: DoorProtocol = {
  name: 'chat',
  label: 'POST /v1/chat/completions',
  path: () => '/v1/chat/completions',
  sessionHeader: 'x-session-id',
  headers: { authorization: 'Bearer hermes-probe' },
  body: (history, options) => ({
    model: options.model,
    messages: [{ role: 'system', content: options.system }, ...history],
    tools: [{ type: 'function', function: PROBE_TOOL as unknown as JsonObject }],
  }),
  userItem: (content) => ({ role: 'user', content }),
  read(answer) {
    const choice = objects(answer['choices'])[0] ?? {};
    const message = isJsonObject(choice['message']) ? choice['message'] : {};
    const usage = isJsonObject(answer['usage']) ? answer['usage'] : {};
    return {
      items: [message],
      reasoning: text(message['reasoning_content']) || text(message['reasoning']),
      text: text(message['content']),
      calls: objects(message['tool_calls']).map((call) => ({
        id: text(call['id']),
        name: isJsonObject(call['function']) ? text(call['function']['name']) : '',
      })),
      usage: { input: count(usage['prompt_tokens']), output: count(usage['completion_tokens']) },
    };
  },
  toolResults: (calls, result) => calls.map((call) => ({ role: 'tool', tool_call_id: call.id, content: result })),
};
