/**
 * Pure decoding of Anthropic Messages responses (WIRE.md §2.2, §2.3): a stream-event state
 * machine and a non-streaming decoder, both assembling the stored assistant message (SPEC §2.1)
 * with every block exactly as received: thinking text and signatures byte for byte, signature-only
 * blocks (`display: "omitted"`, empty text) kept, `redacted_thinking` arriving whole in
 * `content_block_start`, the empty `thinking_delta` before `signature_delta` harmless.
 */
import { StreamError } from '../../core/errors.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import type { AssistantMessage, ToolCall } from '../../core/message.js';
import type { OriginStamp } from '../../core/origin.js';
import type { StreamDecoder } from '../shared/transport-stream-decoder.js';
import type { StreamEvent } from '../../core/stream-event.js';
import type { FinishReason, Usage } from '../../core/usage.js';
import {
  INPUT_TRANSFORMATIONS_KEY,
  type InputTransformation,
  mergeInputTransformations,
  parseInputTransformations,
  transformationsJson,
} from '../../replay/anthropic-input-transformations.js';
import type { AnthropicUsage } from './anthropic-messages-wire.js';

/** A decoded response: the stored message plus its finish reason and usage. */
export interface AnthropicDecodedResponse {
  message: AssistantMessage;
  finishReason: FinishReason;
  usage: Usage | null;
}

interface BlockState {
  block: JsonObject;
  /** Accumulated `input_json_delta` text (tool_use / server_tool_use). */
  partialJson: string;
  /** Ordinal among tool_use blocks (stream event index). */
  toolIndex?: number;
}

/** Maps Anthropic `stop_reason` to the unified finish reason. */
export function anthropicFinishReason(stopReason: string | null | undefined): FinishReason {
  const raw = stopReason ?? null;
  switch (raw) {
    case 'end_turn':
    case 'stop_sequence':
      return { unified: 'stop', raw };
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return { unified: 'length', raw };
    case 'tool_use':
      return { unified: 'tool-calls', raw };
    case 'refusal':
      return { unified: 'content-filter', raw };
    default:
      return { unified: 'other', raw };
  }
}

/** Maps Anthropic usage; the prompt total includes cache writes and reads. */
export function anthropicUsage(usage: AnthropicUsage | undefined): Usage | null {
  if (!usage) return null;
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const input = (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + cacheRead;
  const output = usage.output_tokens ?? 0;
  const result: Usage = { inputTokens: input, outputTokens: output, totalTokens: input + output };
  if (cacheRead > 0) result.cacheReadTokens = cacheRead;
  const thinking = usage.output_tokens_details?.thinking_tokens;
  if (typeof thinking === 'number') result.reasoningTokens = thinking;
  return result;
}

/**
 * Assembles the stored assistant message from ordered blocks (SPEC §2.1): `anthropic_content_blocks`
 * verbatim, Anthropic-shaped `reasoning_details`, readable thinking as `reasoning` and
 * `reasoning_content` ("\n\n"-joined, the mirror SPEC §9.4 compares against), text blocks joined as
 * `content`, `tool_use` blocks as `tool_calls`.
 */
export function assembleAnthropicMessage(
  blocks: readonly JsonObject[],
  stopReason: string | null | undefined,
  origin: OriginStamp,
  argumentsText: ReadonlyMap<number, string> = new Map(),
): AssistantMessage {
  const texts: string[] = [];
  const thoughts: string[] = [];
  const details: JsonObject[] = [];
  const toolCalls: ToolCall[] = [];
  blocks.forEach((block, index) => {
    if (block['type'] === 'text' && typeof block['text'] === 'string') texts.push(block['text']);
    else if (block['type'] === 'thinking') {
      const thinking = typeof block['thinking'] === 'string' ? block['thinking'] : '';
      if (thinking !== '') thoughts.push(thinking);
      details.push({
        type: 'thinking',
        thinking,
        signature: typeof block['signature'] === 'string' ? block['signature'] : '',
      });
    } else if (block['type'] === 'redacted_thinking' && typeof block['data'] === 'string') {
      details.push({ type: 'redacted_thinking', data: block['data'] });
    } else if (block['type'] === 'tool_use' && typeof block['id'] === 'string' && typeof block['name'] === 'string') {
      const input = isJsonObject(block['input']) ? block['input'] : {};
      toolCalls.push({
        id: block['id'],
        type: 'function',
        function: { name: block['name'], arguments: argumentsText.get(index) ?? JSON.stringify(input) },
      });
    }
  });
  const content = texts.join('');
  const message: AssistantMessage = { role: 'assistant', content: content === '' ? null : content };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (thoughts.length > 0) {
    message.reasoning = thoughts.join('\n\n');
    message.reasoning_content = thoughts.join('\n\n');
  }
  if (details.length > 0) message.reasoning_details = details;
  message.anthropic_content_blocks = blocks.map((block) => ({ ...block }));
  if (stopReason) message.finish_reason = stopReason;
  message.origin = { ...origin };
  return message;
}

/**
 * Keeps an answer's `input_transformations` (SPEC §26.4) on the message, private: what the API
 * did to the request that produced it (thinking blocks it dropped). None: the message as it is.
 */
function withTransformations(message: AssistantMessage, entries: readonly InputTransformation[]): AssistantMessage {
  if (entries.length > 0) message[INPUT_TRANSFORMATIONS_KEY] = transformationsJson(entries);
  return message;
}

/** Decodes a non-streaming Messages response body. */
export function decodeAnthropicResponse(body: JsonObject, origin: OriginStamp): AnthropicDecodedResponse {
  const content = Array.isArray(body['content']) ? body['content'].filter(isJsonObject) : [];
  const stopReason = typeof body['stop_reason'] === 'string' ? body['stop_reason'] : null;
  return {
    message: withTransformations(
      assembleAnthropicMessage(content, stopReason, origin),
      parseInputTransformations(body['input_transformations']),
    ),
    finishReason: anthropicFinishReason(stopReason),
    usage: anthropicUsage(isJsonObject(body['usage']) ? (body['usage'] as AnthropicUsage) : undefined),
  };
}

function errorMessageOf(event: JsonObject): string {
  const error = isJsonObject(event['error']) ? event['error'] : {};
  const type = typeof error['type'] === 'string' ? error['type'] : 'error';
  const message = typeof error['message'] === 'string' ? error['message'] : 'the provider sent an error event';
  return `${type}: ${message}`;
}

/**
 * The stream state machine. Feed each event's JSON object in order; every call returns the
 * {@link StreamEvent}s it produced. `message_stop` yields the terminal `finish`; an `error` event
 * yields the terminal `error`; {@link end} reports a stream that stopped before either.
 */
export class AnthropicStreamDecoder implements StreamDecoder<string> {
  private readonly origin: OriginStamp;
  private readonly blocks = new Map<number, BlockState>();
  private usage: AnthropicUsage = {};
  private stopReason: string | null = null;
  private transformations: InputTransformation[] = [];
  private toolCount = 0;
  private started = false;
  private terminal = false;

  /** `origin` is stamped on the assembled message (SPEC §23.2). */
  constructor(origin: OriginStamp) {
    this.origin = origin;
  }

  /** True once a terminal event was produced. */
  get done(): boolean {
    return this.terminal;
  }

  /** Decodes one SSE `data` payload (text); malformed JSON is a terminal error. */
  push(data: string): StreamEvent[] {
    if (this.terminal) return [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      return this.fail(
        new StreamError('the provider sent a stream event that is not JSON', { body: data.slice(0, 500) }),
      );
    }
    if (!isJsonObject(parsed))
      return this.fail(new StreamError('the provider sent a stream event that is not an object'));
    return this.feedEvent(parsed);
  }

  private feedEvent(event: JsonObject): StreamEvent[] {
    if (this.terminal) return [];
    const out: StreamEvent[] = [];
    if (!this.started && event['type'] !== 'ping' && event['type'] !== 'error') {
      this.started = true;
      out.push({ type: 'start' });
    }
    switch (event['type']) {
      case 'message_start': {
        const message = isJsonObject(event['message']) ? event['message'] : {};
        if (isJsonObject(message['usage'])) this.usage = { ...(message['usage'] as AnthropicUsage) };
        this.addTransformations(message['input_transformations']);
        break;
      }
      case 'content_block_start':
        this.startBlock(event, out);
        break;
      case 'content_block_delta':
        this.applyDelta(event, out);
        break;
      case 'content_block_stop':
        this.stopBlock(event);
        break;
      case 'message_delta': {
        const delta = isJsonObject(event['delta']) ? event['delta'] : {};
        if (typeof delta['stop_reason'] === 'string') this.stopReason = delta['stop_reason'];
        if (isJsonObject(event['usage'])) this.usage = { ...this.usage, ...(event['usage'] as AnthropicUsage) };
        // The list may come again (or only) on the final delta, beside or inside `delta`.
        this.addTransformations(event['input_transformations']);
        this.addTransformations(delta['input_transformations']);
        break;
      }
      case 'message_stop':
        out.push(...this.complete());
        break;
      case 'error':
        out.push(
          ...this.fail(
            new StreamError(`the provider ended the stream: ${errorMessageOf(event)}`, { body: JSON.stringify(event) }),
          ),
        );
        break;
      default:
        // `ping` and future event types carry nothing to keep.
        break;
    }
    return out;
  }

  private addTransformations(value: unknown): void {
    if (value === undefined) return;
    this.transformations = mergeInputTransformations(this.transformations, parseInputTransformations(value));
  }

  /** Call when the byte stream ended: a stream without `message_stop` is truncated (terminal error). */
  end(): StreamEvent[] {
    if (this.terminal) return [];
    return this.fail(
      new StreamError('the stream ended before message_stop; the response is incomplete, retry the turn', {
        retryable: true,
      }),
    );
  }

  private startBlock(event: JsonObject, out: StreamEvent[]): void {
    const index = typeof event['index'] === 'number' ? event['index'] : this.blocks.size;
    const block: JsonObject = isJsonObject(event['content_block'])
      ? { ...event['content_block'] }
      : { type: 'unknown' };
    const state: BlockState = { block, partialJson: '' };
    if (block['type'] === 'tool_use') {
      state.toolIndex = this.toolCount;
      this.toolCount += 1;
      out.push({
        type: 'tool-call-start',
        index: state.toolIndex,
        id: String(block['id'] ?? ''),
        name: String(block['name'] ?? ''),
      });
    } else if (block['type'] === 'thinking' && typeof block['thinking'] === 'string' && block['thinking'] !== '') {
      out.push({ type: 'reasoning-delta', text: block['thinking'] });
    } else if (block['type'] === 'text' && typeof block['text'] === 'string' && block['text'] !== '') {
      out.push({ type: 'text-delta', text: block['text'] });
    }
    this.blocks.set(index, state);
  }

  private applyDelta(event: JsonObject, out: StreamEvent[]): void {
    const state = this.blocks.get(typeof event['index'] === 'number' ? event['index'] : -1);
    const delta = isJsonObject(event['delta']) ? event['delta'] : {};
    if (!state) return;
    const block = state.block;
    if (delta['type'] === 'thinking_delta' && typeof delta['thinking'] === 'string') {
      block['thinking'] = `${typeof block['thinking'] === 'string' ? block['thinking'] : ''}${delta['thinking']}`;
      if (delta['thinking'] !== '') out.push({ type: 'reasoning-delta', text: delta['thinking'] });
    } else if (delta['type'] === 'signature_delta' && typeof delta['signature'] === 'string') {
      block['signature'] = `${typeof block['signature'] === 'string' ? block['signature'] : ''}${delta['signature']}`;
    } else if (delta['type'] === 'text_delta' && typeof delta['text'] === 'string') {
      block['text'] = `${typeof block['text'] === 'string' ? block['text'] : ''}${delta['text']}`;
      if (delta['text'] !== '') out.push({ type: 'text-delta', text: delta['text'] });
    } else if (delta['type'] === 'input_json_delta' && typeof delta['partial_json'] === 'string') {
      state.partialJson += delta['partial_json'];
      if (state.toolIndex !== undefined && delta['partial_json'] !== '') {
        out.push({ type: 'tool-call-delta', index: state.toolIndex, argumentsDelta: delta['partial_json'] });
      }
    } else if (delta['type'] === 'citations_delta' && isJsonObject(delta['citation'])) {
      block['citations'] = [...(Array.isArray(block['citations']) ? block['citations'] : []), delta['citation']];
    }
  }

  private stopBlock(event: JsonObject): void {
    const state = this.blocks.get(typeof event['index'] === 'number' ? event['index'] : -1);
    if (!state || state.partialJson === '') return;
    try {
      const parsed: unknown = JSON.parse(state.partialJson);
      if (isJsonObject(parsed)) state.block['input'] = parsed;
    } catch {
      // Kept as raw arguments text; the tool runner reports the malformed JSON to the model.
    }
  }

  private complete(): StreamEvent[] {
    this.terminal = true;
    const ordered = [...this.blocks.entries()].sort((left, right) => left[0] - right[0]);
    const argumentsText = new Map<number, string>();
    ordered.forEach(([, state], position) => {
      if (state.block['type'] === 'tool_use' && state.partialJson !== '')
        argumentsText.set(position, state.partialJson);
    });
    const message = withTransformations(
      assembleAnthropicMessage(
        ordered.map(([, state]) => state.block),
        this.stopReason,
        this.origin,
        argumentsText,
      ),
      this.transformations,
    );
    const usage = anthropicUsage(this.usage);
    const out: StreamEvent[] = [];
    if (usage) out.push({ type: 'usage', usage });
    out.push({ type: 'finish', message, finishReason: anthropicFinishReason(this.stopReason), usage });
    return out;
  }

  private fail(error: StreamError): StreamEvent[] {
    this.terminal = true;
    return [{ type: 'error', error }];
  }
}
