import { isJsonObject, type JsonObject } from '../core/json.js';
import type { ToolCall } from '../core/message.js';
import type { GatewayHttpError } from './gateway-errors.js';
import { anthropicErrorBody } from './gateway-front-door-errors.js';
import type { FrontDoorAnswer } from './gateway-front-door.js';
import { randomHex } from './gateway-random-ids.js';
import { answerEvents, type AnswerEvent, type DoorStreamWriter } from './gateway-front-door-stream.js';

/**
 * A front-door answer as an Anthropic Messages response (WIRE §2.2, §2.3): a `thinking` block
 * (the readable reasoning in `thinking`, the sealed handle in `signature`), then `text` and
 * `tool_use` blocks; `stop_reason` `tool_use` when the model called tools. Streamed, the real
 * event sequence: `message_start`, `ping`, per block `content_block_start` / `_delta`
 * (`thinking_delta`, `signature_delta` just before the block's stop, `text_delta`,
 * `input_json_delta`) / `content_block_stop`, then `message_delta` with the stop reason and usage,
 * and `message_stop`.
 */

/** A fresh Messages id. */
export function messageId(): string {
  return `msg_${randomHex(12)}`;
}

/** Anthropic's stop reason for an answer. */
function stopReason(answer: FrontDoorAnswer): string {
  if ((answer.message.tool_calls ?? []).length > 0) return 'tool_use';
  switch (answer.finishReason?.unified) {
    case 'length':
      return 'max_tokens';
    case 'content-filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}

/** Usage in Anthropic's terms: `input_tokens` excludes what the cache served. */
function usageOf(answer: FrontDoorAnswer, estimatedInput: number): JsonObject {
  const usage = answer.usage;
  if (!usage) return { input_tokens: estimatedInput, output_tokens: 0 };
  const cached = usage.cacheReadTokens ?? 0;
  return {
    input_tokens: Math.max(0, usage.inputTokens - cached),
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: 0,
    output_tokens: usage.outputTokens,
  };
}

/** A tool call's input object (a model's malformed arguments become `{}`, which clients can run or refuse). */
export function toolInput(call: ToolCall): JsonObject {
  try {
    const parsed: unknown = JSON.parse(call.function.arguments || '{}');
    return isJsonObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** The content blocks of an answer, in {@link answerEvents} order. */
function contentBlocks(events: readonly AnswerEvent[]): JsonObject[] {
  const blocks: JsonObject[] = [];
  for (const event of events) {
    if (event.type === 'reasoning-end')
      blocks.push({ type: 'thinking', thinking: event.text, signature: event.handle });
    else if (event.type === 'text-end') blocks.push({ type: 'text', text: event.text });
    else if (event.type === 'tool-call') {
      blocks.push({
        type: 'tool_use',
        id: event.call.id,
        name: event.call.function.name,
        input: toolInput(event.call),
      });
    }
  }
  return blocks;
}

/**
 * The non-streaming response body. `model` is the name the client asked for: Claude Code keeps
 * the answer's `model` with each turn and, resuming a conversation, drops the thinking of every
 * turn whose model differs from the one it now asks for, so a route's own id there would cost
 * every resumed turn its reasoning.
 */
export function messagesResponseBody(
  answer: FrontDoorAnswer,
  identity: { id: string; model: string },
  estimatedInput: number,
): JsonObject {
  return {
    id: identity.id,
    type: 'message',
    role: 'assistant',
    model: identity.model,
    content: contentBlocks(answerEvents(answer)),
    stop_reason: stopReason(answer),
    stop_sequence: null,
    usage: usageOf(answer, estimatedInput),
  };
}

/** The SSE writer of a streamed answer. */
export function messagesStreamWriter(
  send: (event: string | null, data: string) => void,
  options: { id: string; model: string; estimatedInput: number },
): DoorStreamWriter {
  let index = -1;
  const emit = (type: string, payload: JsonObject) => send(type, JSON.stringify({ type, ...payload }));
  const start = (block: JsonObject) => {
    index += 1;
    emit('content_block_start', { index, content_block: block });
  };
  const delta = (value: JsonObject) => emit('content_block_delta', { index, delta: value });
  const stop = () => emit('content_block_stop', { index });
  return {
    open() {
      emit('message_start', {
        message: {
          id: options.id,
          type: 'message',
          role: 'assistant',
          model: options.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: options.estimatedInput, output_tokens: 0 },
        },
      });
      emit('ping', {});
    },
    event(event) {
      switch (event.type) {
        case 'reasoning-start':
          return start({ type: 'thinking', thinking: '', signature: '' });
        case 'reasoning-delta':
          return delta({ type: 'thinking_delta', thinking: event.text });
        case 'reasoning-end':
          delta({ type: 'signature_delta', signature: event.handle });
          return stop();
        case 'text-start':
          return start({ type: 'text', text: '' });
        case 'text-delta':
          return delta({ type: 'text_delta', text: event.text });
        case 'text-end':
          return stop();
        case 'tool-call':
          start({ type: 'tool_use', id: event.call.id, name: event.call.function.name, input: {} });
          delta({ type: 'input_json_delta', partial_json: JSON.stringify(toolInput(event.call)) });
          return stop();
      }
    },
    close(answer) {
      const usage = usageOf(answer, options.estimatedInput);
      emit('message_delta', { delta: { stop_reason: stopReason(answer), stop_sequence: null }, usage });
      emit('message_stop', {});
    },
    fail(error: GatewayHttpError) {
      send('error', JSON.stringify(anthropicErrorBody(error)));
    },
  };
}
