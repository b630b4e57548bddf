import { isJsonObject, type JsonObject } from '../core/json.js';
import type { AssistantMessage, Message, ToolCall } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { keptToolDefinition } from './gateway-tool-definitions.js';
import { errorResponse, SESSION_HEADER } from './gateway-chat.js';
import { badRequest } from './gateway-errors.js';
import type { ClientHistory } from './gateway-front-door-handles.js';
import { serveFrontDoor, type FrontDoorHandler, type ParsedFrontDoorRequest } from './gateway-front-door-serve.js';
import type { DoorStreamWriter } from './gateway-front-door-stream.js';
import { readableReasoning, type FrontDoorAnswer, type FrontDoorContext } from './gateway-front-door.js';
import { omittedBlockText } from './gateway-messages-request.js';
import { randomHex } from './gateway-random-ids.js';
import type { ChatRequestSource } from './gateway-request-source.js';

/**
 * `POST /v1/chat/completions` with client `tools`: the pass-through mode of the chat route
 * (docs/gateway.md "Chat completions with client tools"). Without `tools` the gateway runs the
 * agent loop with its own tools on a stored session (gateway-chat.ts); with them the client runs
 * its tools and holds the history, like the other front doors: its whole `messages` list is the
 * history (its `reasoning_content` / `reasoning` on assistant messages is the readable reasoning
 * sent back — chat clients echo no opaque field, so there is no handle here), the provider's
 * tool calls come back as `tool_calls` with `finish_reason: "tool_calls"`, and a session header
 * mirrors the turn as on the other doors.
 */

/**
 * True when a chat-completions request asks for the pass-through mode: it carries client `tools`,
 * or it names OpenCode's own session (`x-session-id`). OpenCode holds its history and sends its
 * side requests (a title, a summary) without tools: those are plain completions for it, not
 * turns for the gateway's agent loop (which would open a stored session per request and offer
 * the gateway's own tools). `X-Hermes-Session-Id` keeps naming a stored session of that loop.
 */
export function hasClientTools(body: unknown, header: (name: string) => string | null = () => null): boolean {
  if (!isJsonObject(body)) return false;
  if (Array.isArray(body['tools']) && body['tools'].length > 0) return true;
  return Boolean(header(OPENCODE_SESSION_HEADER)?.trim()) && !header(SESSION_HEADER);
}

/** The header OpenCode names its session in (it mirrors the turns, gateway-front-door-session.ts). */
export const OPENCODE_SESSION_HEADER = 'x-session-id';

/** A parsed pass-through request. */
interface ChatToolsRequest extends ParsedFrontDoorRequest {
  includeUsage: boolean;
}

/** The pass-through door's parts (the shared flow is gateway-front-door-serve.ts). */
const CHAT_TOOLS_DOOR: FrontDoorHandler<ChatToolsRequest> = {
  name: 'chat',
  purpose: null,
  live: true,
  parse(body) {
    const record = body as JsonObject;
    const options = record['stream_options'];
    return {
      model: typeof record['model'] === 'string' ? record['model'] : undefined,
      stream: record['stream'] === true,
      history: chatHistory(record['messages']),
      tools: chatTools(record['tools']),
      reasoning: undefined,
      includeUsage: isJsonObject(options) && options['include_usage'] === true,
    };
  },
  answer(parsed, route) {
    const identity = {
      id: `chatcmpl-${randomHex(12)}`,
      created: Math.floor(Date.now() / 1000),
      // The model the client asked for, as the other doors answer (gateway-messages-answer.ts).
      model: parsed.model?.trim() || route.route.model,
    };
    return {
      json: (answer) => completionBody(answer, identity),
      writer: (send) => chatToolsWriter(send, identity, parsed.includeUsage),
    };
  },
  failure: (error) => errorResponse(error),
};

/** Handles one pass-through request (the body is already parsed). */
export function chatToolsResponse(
  body: JsonObject,
  source: ChatRequestSource,
  context: FrontDoorContext,
  onSession?: (sessionId: string) => void,
): Promise<Response> {
  return serveFrontDoor(source, context, CHAT_TOOLS_DOOR, onSession, body);
}

function completionBody(answer: FrontDoorAnswer, identity: { id: string; created: number; model: string }): JsonObject {
  const message: JsonObject = { role: 'assistant', content: answer.message.content };
  const reasoning = readableReasoning(answer.message);
  if (reasoning !== '') message['reasoning_content'] = reasoning;
  const calls = answer.message.tool_calls ?? [];
  if (calls.length > 0) message['tool_calls'] = calls.map((call) => wireCall(call));
  return {
    id: identity.id,
    object: 'chat.completion',
    created: identity.created,
    model: identity.model,
    choices: [{ index: 0, message, finish_reason: finishReason(answer), logprobs: null }],
    usage: usageOf(answer),
  };
}

function finishReason(answer: FrontDoorAnswer): string {
  if ((answer.message.tool_calls ?? []).length > 0) return 'tool_calls';
  return answer.finishReason?.unified === 'length' ? 'length' : 'stop';
}

function usageOf(answer: FrontDoorAnswer): JsonObject {
  const usage = answer.usage;
  return {
    prompt_tokens: usage?.inputTokens ?? 0,
    completion_tokens: usage?.outputTokens ?? 0,
    total_tokens: usage?.totalTokens ?? 0,
    completion_tokens_details: { reasoning_tokens: usage?.reasoningTokens ?? 0 },
  };
}

function wireCall(call: ToolCall): JsonObject {
  return { id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments } };
}

function chatToolsWriter(
  send: (event: string | null, data: string) => void,
  identity: { id: string; created: number; model: string },
  includeUsage: boolean,
): DoorStreamWriter {
  let callIndex = 0;
  const chunk = (delta: JsonObject, finish: string | null = null) =>
    send(
      null,
      JSON.stringify({
        id: identity.id,
        object: 'chat.completion.chunk',
        created: identity.created,
        model: identity.model,
        choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
      }),
    );
  return {
    open: () => chunk({ role: 'assistant', content: '' }),
    event(event) {
      if (event.type === 'reasoning-delta') chunk({ reasoning_content: event.text });
      else if (event.type === 'text-delta') chunk({ content: event.text });
      else if (event.type === 'tool-call') chunk({ tool_calls: [{ index: callIndex++, ...wireCall(event.call) }] });
    },
    close(answer) {
      chunk({}, finishReason(answer));
      if (includeUsage) {
        const { id, created, model } = identity;
        send(
          null,
          JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: usageOf(answer) }),
        );
      }
      send(null, '[DONE]');
    },
    fail(error) {
      send(null, JSON.stringify(error.body()));
      send(null, '[DONE]');
    },
  };
}

/** The client's `messages` as canonical history (no handles: `echoes` stays empty). */
function chatHistory(messages: unknown): ClientHistory {
  if (!Array.isArray(messages) || messages.length === 0) {
    throw badRequest('"messages" must be a non-empty array of chat messages', 'messages');
  }
  const history = messages.map((message, index) => chatMessage(message, index));
  // An assistant message with neither text, calls nor reasoning has nothing to replay.
  const kept = history.filter(
    (message) =>
      message.role !== 'assistant' ||
      message.content !== null ||
      message.tool_calls !== undefined ||
      message.reasoning_content !== undefined ||
      message.reasoning !== undefined,
  );
  return { messages: kept, echoes: new Map() };
}

function chatMessage(message: unknown, index: number): Message {
  if (!isJsonObject(message) || typeof message['role'] !== 'string') {
    throw badRequest(`messages[${index}] must be an object with a "role"`, 'messages');
  }
  const content = message['content'];
  switch (message['role']) {
    case 'system':
    case 'developer':
      return { role: 'system', content: partsText(content) };
    case 'user':
      return { role: 'user', content: partsText(content) };
    case 'tool':
      return { role: 'tool', tool_call_id: String(message['tool_call_id'] ?? ''), content: partsText(content) };
    case 'assistant':
      return assistantMessage(message, index);
    default:
      throw badRequest(`messages[${index}].role must be system, user, assistant or tool`, 'messages');
  }
}

function assistantMessage(message: JsonObject, index: number): AssistantMessage {
  const text = partsText(message['content']);
  const assistant: AssistantMessage = { role: 'assistant', content: text === '' ? null : text };
  const calls = message['tool_calls'];
  if (Array.isArray(calls) && calls.length > 0) {
    assistant.tool_calls = calls.map((call, position) => {
      const fn = isJsonObject(call) && isJsonObject(call['function']) ? call['function'] : null;
      if (!isJsonObject(call) || typeof call['id'] !== 'string' || !fn || typeof fn['name'] !== 'string') {
        throw badRequest(`messages[${index}].tool_calls[${position}] needs "id" and "function.name"`, 'messages');
      }
      const args = typeof fn['arguments'] === 'string' ? fn['arguments'] : JSON.stringify(fn['arguments'] ?? {});
      return { id: call['id'], type: 'function', function: { name: fn['name'], arguments: args } };
    });
  }
  // The readable reasoning the client echoes, verbatim (DeepSeek compares reasoning_content bytes).
  if (typeof message['reasoning_content'] === 'string') assistant.reasoning_content = message['reasoning_content'];
  if (typeof message['reasoning'] === 'string') assistant.reasoning = message['reasoning'];
  return assistant;
}

function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isJsonObject)
    .map((part) => (typeof part['text'] === 'string' ? part['text'] : omittedBlockText(String(part['type'] ?? 'part'))))
    .join('\n');
}

/** A function tool's definition (`function.parameters`, or an empty object schema). */
function chatToolDefinition(tool: JsonObject): ToolDefinition {
  const fn = tool['function'] as JsonObject;
  const parameters = isJsonObject(fn['parameters']) ? fn['parameters'] : { type: 'object', properties: {} };
  return {
    name: String(fn['name']),
    description: typeof fn['description'] === 'string' ? fn['description'] : '',
    parameters,
  };
}

function chatTools(tools: unknown): ToolDefinition[] {
  // Absent for OpenCode's side requests (a title): a plain completion.
  const list = Array.isArray(tools) ? tools : [];
  const hosted: string[] = [];
  const definitions = list.flatMap((tool, index): ToolDefinition[] => {
    if (!isJsonObject(tool)) throw badRequest(`tools[${index}] must be an object`, 'tools');
    const fn = tool['function'];
    if (tool['type'] !== 'function' || !isJsonObject(fn) || typeof fn['name'] !== 'string') {
      hosted.push(String(tool['type'] ?? `tools[${index}]`));
      return [];
    }
    return [keptToolDefinition(tool, chatToolDefinition)];
  });
  if (hosted.length > 0) {
    throw badRequest(
      `only function tools can pass through the gateway, not: ${hosted.join(', ')}`,
      'tools',
      'unsupported_tool',
    );
  }
  return definitions;
}
