import { isJsonObject, type JsonObject } from '../core/json.js';
import type { AssistantMessage, ContentPart, Message, ToolCall } from '../core/message.js';
import type { ReasoningEffort, ReasoningOptions } from '../core/reasoning-options.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { keptToolDefinition } from './gateway-tool-definitions.js';
import { badRequest, echoed } from './gateway-errors.js';
import {
  addClientSystemText,
  type ClientHistory,
  type EchoedReasoning,
  type EchoedTurn,
} from './gateway-front-door-handles.js';
import { deepFreeze } from './gateway-json-pieces.js';

/**
 * Reading an Anthropic Messages request (`POST /v1/messages`, WIRE §2.1) into canonical history
 * (SPEC §2). The client holds the conversation and sends all of it every turn:
 *
 * - `system` (a string or text blocks) is the first system message; a `role: "system"` message
 *   inside `messages` (Claude Code sends several) is read by `addClientSystemText`: after the
 *   first turn its text joins the user side where it stands.
 * - Consecutive assistant messages are one turn (the API merges them too): Claude Code sends an
 *   answer whose thinking came after its text as two, and the thinking's handle covers both.
 * - A user message's `tool_result` blocks become tool messages (in order), its other blocks one
 *   user message after them. Images and documents are not forwarded: each is replaced by a short
 *   text saying so, so the conversation goes on.
 * - An assistant message's text blocks are its content, `tool_use` blocks its calls, and its
 *   `thinking` / `redacted_thinking` blocks the echoed reasoning: the `signature` (`data`) is the
 *   handle the gateway returned (or a provider's own), the thinking text the readable reasoning.
 * - `tools` are the client's own tools (it runs them); hosted tools (`web_search_…`, `bash_…`,
 *   any entry with a `type` other than `custom`) are refused with a 400 naming them: the route
 *   cannot run them and silently dropping one would make the model answer without it.
 * - `thinking` chooses reasoning for the turn (`disabled` turns it off, `budget_tokens` sets the
 *   budget) and `output_config.effort` its effort; `max_tokens`, `tool_choice`, `temperature`
 *   and the like are left to the route.
 *
 * A message the body parser froze (one a conversation's next body repeats, gateway-json-pieces.ts)
 * is read once: what it read as is kept with it (frozen too) and taken again, the same objects,
 * by every later request that repeats it, so what is keyed by message downstream finds it.
 */

/** A parsed Messages request. */
export interface MessagesRequest {
  model: string | undefined;
  stream: boolean;
  history: ClientHistory;
  tools: ToolDefinition[];
  reasoning: Partial<ReasoningOptions> | undefined;
}

/** Text put in place of a block the gateway does not forward. */
export function omittedBlockText(type: string): string {
  return `[${type} omitted: the gateway forwards text only]`;
}

/** Parses and validates the body; throws a 400 naming the bad field. */
export function parseMessagesRequest(body: unknown): MessagesRequest {
  if (!isJsonObject(body)) throw badRequest('the request body must be a JSON object with a "messages" array');
  const messages = body['messages'];
  if (!Array.isArray(messages) || messages.length === 0) {
    throw badRequest('"messages" must be a non-empty array of messages', 'messages');
  }
  const model = body['model'];
  if (model !== undefined && typeof model !== 'string') throw badRequest('"model" must be a string', 'model');
  const history: ClientHistory = { messages: [], echoes: new Map() };
  const system = systemText(body['system']);
  if (system) history.messages.push({ role: 'system', content: system });
  eachJoinedTurn(messages, (message, index) => addMessageOnce(history, message, index));
  return {
    model,
    stream: body['stream'] === true,
    history,
    tools: parseTools(body['tools']),
    reasoning: parseThinking(body['thinking'], body['output_config']),
  };
}

/**
 * Calls `each` with every message, each run of consecutive assistant messages joined into one
 * (their blocks in order, at the index of the run's first message).
 */
function eachJoinedTurn(messages: readonly unknown[], each: (message: unknown, index: number) => void): void {
  let held: unknown;
  let heldIndex = -1;
  messages.forEach((message, index) => {
    if (heldIndex >= 0 && isAssistant(held) && isAssistant(message)) {
      const blocks = [...contentBlocks(held['content'], heldIndex), ...contentBlocks(message['content'], index)];
      held = { ...held, content: blocks };
      return;
    }
    if (heldIndex >= 0) each(held, heldIndex);
    held = message;
    heldIndex = index;
  });
  if (heldIndex >= 0) each(held, heldIndex);
}

function isAssistant(message: unknown): message is JsonObject {
  return isJsonObject(message) && message['role'] === 'assistant';
}

function systemText(system: unknown): string {
  if (system === undefined || system === null) return '';
  if (typeof system === 'string') return system;
  if (!Array.isArray(system)) throw badRequest('"system" must be a string or an array of text blocks', 'system');
  return system
    .filter((block): block is JsonObject => isJsonObject(block) && typeof block['text'] === 'string')
    .map((block) => block['text'] as string)
    .join('\n\n');
}

/** What a frozen message read as: its messages, and its echoes by position among them. */
const readMessages = new WeakMap<object, { messages: readonly Message[]; echoes: readonly [number, EchoedTurn][] }>();

/**
 * {@link addMessage}, read once per frozen message (see the file comment). A system message is
 * always read again: where its text goes depends on the messages before it.
 */
function addMessageOnce(history: ClientHistory, message: unknown, index: number): void {
  if (!isJsonObject(message) || !Object.isFrozen(message) || message['role'] === 'system') {
    addMessage(history, message, index);
    return;
  }
  const offset = history.messages.length;
  const known = readMessages.get(message);
  if (known) {
    for (const read of known.messages) history.messages.push(read);
    for (const [position, echo] of known.echoes) history.echoes.set(offset + position, echo);
    return;
  }
  addMessage(history, message, index);
  const messages = history.messages.slice(offset);
  const echoes: [number, EchoedTurn][] = [];
  for (let position = 0; position < messages.length; position += 1) {
    const echo = history.echoes.get(offset + position);
    if (echo) echoes.push([position, echo]);
  }
  readMessages.set(message, deepFreeze({ messages, echoes }));
}

function addMessage(history: ClientHistory, message: unknown, index: number): void {
  if (!isJsonObject(message) || typeof message['role'] !== 'string') {
    throw badRequest(`messages[${index}] must be an object with a "role"`, 'messages');
  }
  const blocks = contentBlocks(message['content'], index);
  switch (message['role']) {
    case 'system':
      addClientSystemText(history, blocksText(blocks));
      return;
    case 'user':
      addUser(history, blocks);
      return;
    case 'assistant':
      addAssistant(history, blocks, index);
      return;
    default:
      throw badRequest(`messages[${index}].role must be "user" or "assistant"`, 'messages');
  }
}

function contentBlocks(content: unknown, index: number): JsonObject[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content) || !content.every(isJsonObject)) {
    throw badRequest(`messages[${index}].content must be a string or an array of content blocks`, 'messages');
  }
  return content;
}

function blocksText(blocks: readonly JsonObject[]): string {
  return blocks
    .map((block) => (block['type'] === 'text' && typeof block['text'] === 'string' ? block['text'] : ''))
    .filter((text) => text !== '')
    .join('\n\n');
}

function addUser(history: ClientHistory, blocks: readonly JsonObject[]): void {
  const parts: ContentPart[] = [];
  for (const block of blocks) {
    if (block['type'] === 'tool_result') {
      history.messages.push({
        role: 'tool',
        tool_call_id: String(block['tool_use_id'] ?? ''),
        content: toolResultText(block),
      });
    } else if (block['type'] === 'text' && typeof block['text'] === 'string') {
      parts.push({ type: 'text', text: block['text'] });
    } else {
      parts.push({ type: 'text', text: omittedBlockText(String(block['type'] ?? 'block')) });
    }
  }
  if (parts.length === 0) return;
  const only = parts.length === 1 ? parts[0] : undefined;
  history.messages.push({ role: 'user', content: only?.type === 'text' ? String(only['text']) : parts });
}

function toolResultText(block: JsonObject): string {
  const content = block['content'];
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content
            .filter(isJsonObject)
            .map((part) => toolResultPartText(part))
            .join('\n')
        : '';
  // The engine's own failed tools answer "error: …" (runtime agent-turn); a client's failure reads the same.
  return block['is_error'] === true && !/^error\b/i.test(text) ? `error: ${text}` : text;
}

/**
 * One block of a tool result as text. A `tool_reference` (Claude Code's ToolSearch answers with
 * them) names a tool the client now offers: the model is told so; other non-text blocks are
 * replaced by a note.
 */
function toolResultPartText(part: JsonObject): string {
  if (part['type'] === 'text' && typeof part['text'] === 'string') return part['text'];
  if (part['type'] === 'tool_reference' && typeof part['tool_name'] === 'string') {
    return `[tool ${part['tool_name']} is available]`;
  }
  return omittedBlockText(String(part['type'] ?? 'block'));
}

function addAssistant(history: ClientHistory, blocks: readonly JsonObject[], index: number): void {
  const texts: string[] = [];
  const calls: ToolCall[] = [];
  const reasoning: EchoedReasoning[] = [];
  blocks.forEach((block, position) => {
    const type = block['type'];
    if (type === 'text' && typeof block['text'] === 'string') texts.push(block['text']);
    else if (type === 'tool_use') {
      if (typeof block['id'] !== 'string' || typeof block['name'] !== 'string') {
        throw badRequest(`messages[${index}].content[${position}]: a tool_use block needs "id" and "name"`, 'messages');
      }
      const input = isJsonObject(block['input']) ? block['input'] : {};
      calls.push({
        id: block['id'],
        type: 'function',
        function: { name: block['name'], arguments: JSON.stringify(input) },
      });
    } else if (type === 'thinking') {
      const text = typeof block['thinking'] === 'string' ? block['thinking'] : '';
      reasoning.push({ field: `content[${position}].signature`, value: block['signature'], text });
    } else if (type === 'redacted_thinking') {
      reasoning.push({ field: `content[${position}].data`, value: block['data'], text: '' });
    }
  });
  // A turn left empty (its thinking dropped by the client, nothing else) has nothing to replay.
  if (texts.length === 0 && calls.length === 0 && reasoning.length === 0) return;
  const message: AssistantMessage = { role: 'assistant', content: texts.length > 0 ? texts.join('') : null };
  if (calls.length > 0) message.tool_calls = calls;
  const messageIndex = history.messages.length;
  history.messages.push(message);
  if (reasoning.length > 0) {
    history.echoes.set(messageIndex, {
      reasoning,
      native: {
        api: 'anthropic_messages',
        key: 'anthropic_content_blocks',
        entries: blocks.map((block) => ({ ...block })),
      },
    });
  }
}

function parseTools(tools: unknown): ToolDefinition[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw badRequest('"tools" must be an array', 'tools');
  const hosted: string[] = [];
  const definitions = tools.flatMap((tool, index): ToolDefinition[] => {
    if (!isJsonObject(tool) || typeof tool['name'] !== 'string') {
      throw badRequest(`tools[${index}] must be an object with a "name"`, 'tools');
    }
    const type = tool['type'];
    if (type !== undefined && type !== null && type !== 'custom') {
      hosted.push(`${echoed(String(tool['name']))} (${echoed(String(type))})`);
      return [];
    }
    return [keptToolDefinition(tool, messagesToolDefinition)];
  });
  if (hosted.length > 0) {
    throw badRequest(
      `hosted tools are not available through the gateway: ${hosted.join(', ')}; the route only calls tools the client runs (remove them, or turn the feature off in the client)`,
      'tools',
      'unsupported_tool',
    );
  }
  return definitions;
}

/** A custom tool's definition (its `input_schema`, or an empty object schema). */
function messagesToolDefinition(tool: JsonObject): ToolDefinition {
  const schema = isJsonObject(tool['input_schema']) ? tool['input_schema'] : { type: 'object', properties: {} };
  const description = typeof tool['description'] === 'string' ? tool['description'] : '';
  return { name: String(tool['name']), description, parameters: schema };
}

/** `output_config.effort` (Claude Code sends its /effort setting there) in the engine's terms. */
const EFFORTS: Readonly<Record<string, ReasoningEffort>> = {
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'max',
  max: 'max',
};

function parseThinking(thinking: unknown, outputConfig: unknown): Partial<ReasoningOptions> | undefined {
  const effortName = isJsonObject(outputConfig) ? outputConfig['effort'] : undefined;
  const effort = typeof effortName === 'string' ? EFFORTS[effortName] : undefined;
  if (!isJsonObject(thinking)) return effort ? { effort } : undefined;
  if (thinking['type'] === 'disabled') return { enabled: false };
  const budget = thinking['budget_tokens'];
  const options: Partial<ReasoningOptions> =
    typeof budget === 'number' && Number.isInteger(budget) && budget > 0
      ? { enabled: true, budgetTokens: budget }
      : { enabled: true };
  if (effort) options.effort = effort;
  return options;
}
