import type { JsonObject } from '../../core/json.js';
import { isJsonObject } from '../../core/json.js';
import type { ScriptOutput } from '../shared/scripted-model.js';
import { mistralExtraForbiddenError } from './chat-emulator-errors.js';
import type { ChatPersona } from './chat-persona.js';
import { fragmentDeltas, toolCallDeltas } from './chat-persona.js';

/**
 * Mistral (Magistral): reasoning is not a string field but content chunks
 * `{type:"thinking", thinking:[{type:"text", text}]}` (WIRE.md §1.1, `@mistralai/mistralai`
 * `ThinkChunk`, recorded in `mistral/vercel-issue-13703-mistral-thinking.chunks.txt`). The
 * assistant message schema is closed: any other key is a 422 `extra_forbidden`.
 */

function thinkingChunk(text: string, closed?: boolean): JsonObject {
  const chunk: JsonObject = { type: 'thinking', thinking: [{ type: 'text', text }] };
  if (closed !== undefined) chunk['closed'] = closed;
  return chunk;
}

/** Text of the thinking chunks of an assistant `content` array (what Mistral reads back). */
function thinkingText(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  let text = '';
  let found = false;
  for (const chunk of content) {
    if (!isJsonObject(chunk) || chunk['type'] !== 'thinking' || !Array.isArray(chunk['thinking'])) continue;
    for (const part of chunk['thinking']) {
      if (isJsonObject(part) && typeof part['text'] === 'string') {
        text += part['text'];
        found = true;
      }
    }
  }
  return found && text !== '' ? text : undefined;
}

/** The `strict-mistral` persona. */
export const strictMistralPersona: ChatPersona = {
  name: 'strict-mistral',
  summary: 'Mistral: thinking as content chunks; 422 extra_forbidden for any extra assistant or tool-call key',
  defaultModel: 'magistral-medium-2509',
  strict: true,
  acceptedAssistantKeys: [],
  // Mistral's own tool calls carry `index`, and clients echo them back as received.
  acceptedToolCallKeys: ['index'],
  rejectKeys: (rejections) => mistralExtraForbiddenError(rejections),
  readReasoning: (message) => thinkingText(message['content']),
  checkReplay: () => undefined,
  message(output: ScriptOutput) {
    const content: JsonObject[] = [thinkingChunk(output.reasoning)];
    if (output.content !== '') content.push({ type: 'text', text: output.content });
    const message: JsonObject = { role: 'assistant', content };
    if (output.toolCalls.length > 0) {
      message['tool_calls'] = output.toolCalls.map((call, index) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
        index,
      }));
    }
    return message;
  },
  deltas(output: ScriptOutput) {
    return [
      { role: 'assistant', content: '' },
      ...fragmentDeltas(output.reasoning, (fragment) => ({ content: [thinkingChunk(fragment, true)] })),
      ...fragmentDeltas(output.content, (fragment) => ({ content: fragment })),
      // Mistral streams each tool call whole, in one delta.
      ...toolCallDeltas(output, { whole: true }),
    ];
  },
  finalDelta: { content: '' },
  usageOnFinishChunk: true,
  completionExtras: {},
  choiceExtras: () => ({}),
  errorEnvelope(status, message) {
    const type = status === 429 ? 'rate_limited' : status >= 500 ? 'internal_server_error' : 'invalid_request_error';
    return { status, body: JSON.stringify({ object: 'error', message, type, param: null, code: null }) };
  },
  // Mistral reuses the vLLM wording for an oversized prompt.
  contextLengthMessage: (limit, used) =>
    `Prompt contains ${used} tokens and 0 draft tokens, too large for model with ${limit} maximum context length`,
};
