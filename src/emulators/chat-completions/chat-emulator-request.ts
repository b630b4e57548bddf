import type { JsonObject, JsonValue } from '../../core/json.js';
import { isJsonObject } from '../../core/json.js';
import { estimateTokens } from '../shared/emulator-text.js';

/**
 * Reading a chat-completions request the way a provider does: the fields the emulator needs, and
 * helpers over the assistant messages that carry reasoning back.
 */

/** The parts of a chat-completions request body the emulator acts on. */
export interface ChatWireRequest {
  model: string | undefined;
  stream: boolean;
  /** Messages exactly as received (never normalised: validation must see the client's keys). */
  messages: JsonObject[];
  /** `tools[].function.name`. */
  tools: string[];
}

/** One tool call of an assistant message, as the script sees it. */
export interface WireToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** Parses a body; a string is the reason it is not a valid chat-completions request. */
export function parseChatRequest(body: unknown): ChatWireRequest | string {
  if (!isJsonObject(body)) return 'We could not parse the JSON body of your request.';
  const messages = body['messages'];
  if (!Array.isArray(messages) || messages.length === 0) return "'messages' must be a non-empty array";
  const objects: JsonObject[] = [];
  for (const [index, message] of messages.entries()) {
    if (!isJsonObject(message) || typeof message['role'] !== 'string') {
      return `'messages[${index}]' must be an object with a 'role'`;
    }
    objects.push(message);
  }
  const tools: string[] = [];
  const offered = body['tools'];
  if (Array.isArray(offered)) {
    for (const tool of offered) {
      const functionDefinition = isJsonObject(tool) ? tool['function'] : undefined;
      const name = isJsonObject(functionDefinition) ? functionDefinition['name'] : undefined;
      if (typeof name === 'string') tools.push(name);
    }
  }
  const model = body['model'];
  return {
    model: typeof model === 'string' && model !== '' ? model : undefined,
    stream: body['stream'] === true,
    messages: objects,
    tools,
  };
}

/** The visible text of a message `content` (a string, or an array of `{type:"text",text}` parts). */
export function contentText(content: JsonValue | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) =>
      isJsonObject(part) && part['type'] === 'text' && typeof part['text'] === 'string' ? part['text'] : '',
    )
    .join('');
}

/** Tool calls of an assistant message (entries without a function name are skipped). */
export function toolCallsOf(message: JsonObject): WireToolCall[] {
  const calls = message['tool_calls'];
  if (!Array.isArray(calls)) return [];
  const result: WireToolCall[] = [];
  for (const call of calls) {
    if (!isJsonObject(call)) continue;
    const functionCall = call['function'];
    if (!isJsonObject(functionCall) || typeof functionCall['name'] !== 'string') continue;
    const parameters = functionCall['arguments'];
    result.push({
      id: typeof call['id'] === 'string' ? call['id'] : '',
      name: functionCall['name'],
      arguments: typeof parameters === 'string' ? parameters : JSON.stringify(parameters ?? {}),
    });
  }
  return result;
}

/** A non-empty string field of an object, else undefined. */
export function stringField(object: JsonObject, key: string): string | undefined {
  const value = object[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Position of message `index` in the provider's native conversation (system messages lifted out,
 * consecutive user/tool messages merged into one user turn) — the number Anthropic
 * (`messages.1.content.0`, 0-based) and Google (`position 2` / `the 2. content block`, 1-based)
 * put in their errors.
 */
export function nativeTurnIndex(messages: readonly JsonObject[], index: number): number {
  let turn = -1;
  let previousRole: string | undefined;
  for (const [position, message] of messages.entries()) {
    const role = message['role'] === 'assistant' ? 'assistant' : message['role'] === 'system' ? 'system' : 'user';
    if (role !== 'system' && role !== previousRole) {
      turn += 1;
      previousRole = role;
    }
    if (position === index) return Math.max(turn, 0);
  }
  return Math.max(turn, 0);
}

/**
 * Estimated prompt tokens: readable text only (content, readable reasoning, tool names and
 * arguments) plus a small per-message overhead. Opaque bytes (signatures, encrypted data) are not
 * counted, matching how Hermes prices history (SPEC §15), so compaction tests trip the window on
 * the same text the runtime measures.
 */
export function estimateRequestTokens(request: ChatWireRequest): number {
  let total = 0;
  for (const message of request.messages) {
    total += 4 + estimateTokens(contentText(message['content']));
    for (const key of ['reasoning_content', 'reasoning', 'reasoning_text'] as const) {
      const value = message[key];
      if (typeof value === 'string') total += estimateTokens(value);
    }
    const details = message['reasoning_details'];
    if (Array.isArray(details)) {
      for (const detail of details) {
        if (isJsonObject(detail) && typeof detail['text'] === 'string') total += estimateTokens(detail['text']);
      }
    }
    for (const call of toolCallsOf(message)) total += estimateTokens(call.name + call.arguments);
  }
  return total;
}
