import { StreamError } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';
import type { JsonObject } from '../../core/json.js';
import type { AssistantMessage, ToolCall } from '../../core/message.js';
import type { OriginStamp } from '../../core/origin.js';
import type { StreamDecoder } from '../shared/transport-stream-decoder.js';
import type { StreamEvent } from '../../core/stream-event.js';
import type { FinishReason, Usage } from '../../core/usage.js';
import {
  ISSUER_KIND_KEY,
  PRECEDES_CALL_ID_KEY,
  TEMPORARY_REASONING_ID_PREFIX,
} from '../../replay/responses-replay-policy.js';
import type { ResponsesIssuerKind } from '../../replay/responses-replay-policy.js';
import type { ResponsesOutputItem, ResponsesResponse, ResponsesUsage } from './responses-wire.js';

/**
 * Pure decoding of Responses API output: a streamed-event state machine and a non-streaming
 * response decoder, both assembling the stored assistant message of SPEC §2 with every
 * reasoning item captured from its FINAL form (WIRE.md §5.3).
 */

// ---------------------------------------------------------------------------------------------
// Context
// ---------------------------------------------------------------------------------------------

/** Who is decoding: stamped on the message (`origin`) and on each captured item (`_issuer_kind`). */
export interface ResponsesCaptureContext {
  origin: OriginStamp;
  issuerKind: ResponsesIssuerKind;
}

/** The terminal outcome of a decoded response. */
export type ResponsesTerminalEvent = Extract<StreamEvent, { type: 'finish' | 'error' }>;

// ---------------------------------------------------------------------------------------------
// Stream state machine
// ---------------------------------------------------------------------------------------------

interface OutputSlot {
  type: string | undefined;
  /** The `.done` copy: the only one replayed (its encrypted_content differs from `.added`'s). */
  done: ResponsesOutputItem | undefined;
  toolIndex: number | undefined;
  /** `phase` seen on `.added`: some hosts drop it from the `.done` copy (Azure fixture). */
  addedPhase: string | undefined;
  reasoningText: string;
  text: string;
  argumentsText: string;
}

/**
 * Turns Responses stream events into {@link StreamEvent}s and assembles the stored message.
 * Items are keyed on `output_index`, never on `id`: GitHub Copilot rotates ids between
 * `output_item.added` and `output_item.done` (WIRE.md §5.3, fixture
 * `vercel-github-copilot-id-rotation`).
 */
export class ResponsesStreamDecoder implements StreamDecoder<string> {
  private readonly slots = new Map<number, OutputSlot>();
  private started = false;
  private nextToolIndex = 0;
  private lastReasoningKey: string | undefined;
  private terminal: ResponsesTerminalEvent | undefined;

  constructor(private readonly context: ResponsesCaptureContext) {}

  /** True once the terminal event was returned. */
  get done(): boolean {
    return this.terminal !== undefined;
  }

  /** Feeds one SSE `data:` payload; returns the events to emit (terminal included). `[DONE]` is ignored. */
  push(data: string): StreamEvent[] {
    if (this.terminal !== undefined || data === '[DONE]') return [];
    let payload: unknown;
    try {
      payload = JSON.parse(data);
    } catch (error) {
      this.terminal = {
        type: 'error',
        error: new StreamError('The Responses stream sent a frame that is not JSON.', {
          body: data.slice(0, 400),
          cause: error,
        }),
      };
      return [this.terminal];
    }
    return this.pushPayload(payload);
  }

  private pushPayload(payload: unknown): StreamEvent[] {
    if (!isJsonObject(payload)) return [];
    const events: StreamEvent[] = [];
    if (!this.started) {
      this.started = true;
      events.push({ type: 'start' });
    }
    const type = typeof payload['type'] === 'string' ? payload['type'] : '';
    const index = typeof payload['output_index'] === 'number' ? payload['output_index'] : -1;
    switch (type) {
      case 'response.output_item.added':
        if (isJsonObject(payload['item'])) this.onItem(index, payload['item'] as ResponsesOutputItem, false, events);
        break;
      case 'response.output_item.done':
        if (isJsonObject(payload['item'])) this.onItem(index, payload['item'] as ResponsesOutputItem, true, events);
        break;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        if (typeof payload['delta'] === 'string') {
          const key = `${index}:${type}:${String(payload['summary_index'] ?? payload['content_index'] ?? 0)}`;
          this.emitReasoning(this.slot(index), key, payload['delta'], events);
        }
        break;
      case 'response.output_text.delta':
        if (typeof payload['delta'] === 'string' && payload['delta'] !== '') {
          this.slot(index).text += payload['delta'];
          events.push({ type: 'text-delta', text: payload['delta'] });
        }
        break;
      case 'response.function_call_arguments.delta':
        if (typeof payload['delta'] === 'string') {
          const slot = this.slot(index);
          slot.argumentsText += payload['delta'];
          if (slot.toolIndex !== undefined) {
            events.push({ type: 'tool-call-delta', index: slot.toolIndex, argumentsDelta: payload['delta'] });
          }
        }
        break;
      case 'response.completed':
      case 'response.incomplete':
        this.finishWith(isJsonObject(payload['response']) ? (payload['response'] as ResponsesResponse) : {}, events);
        break;
      case 'response.failed':
        this.failWith(isJsonObject(payload['response']) ? payload['response']['error'] : undefined, events);
        break;
      case 'error':
        this.failWith(payload, events);
        break;
    }
    return events;
  }

  /** End of input: `[]` after a terminal event, else the terminal error of a stream cut before `response.completed`. */
  end(): StreamEvent[] {
    if (this.terminal !== undefined) return [];
    this.terminal = {
      type: 'error',
      error: new StreamError('The Responses stream ended before response.completed; retry the turn.'),
    };
    return [this.terminal];
  }

  /** The message assembled from what arrived so far (used for finish, and by tests on cut streams). */
  assemble(): AssistantMessage {
    const ordered = [...this.slots.entries()].sort(([left], [right]) => left - right).map(([, slot]) => slot);
    return assembleMessage(ordered, this.context);
  }

  private slot(index: number): OutputSlot {
    let slot = this.slots.get(index);
    if (slot === undefined) {
      slot = {
        type: undefined,
        done: undefined,
        toolIndex: undefined,
        addedPhase: undefined,
        reasoningText: '',
        text: '',
        argumentsText: '',
      };
      this.slots.set(index, slot);
    }
    return slot;
  }

  private onItem(index: number, item: ResponsesOutputItem, done: boolean, events: StreamEvent[]): void {
    const slot = this.slot(index);
    slot.type = item.type;
    if (done) slot.done = item;
    else if (typeof item['phase'] === 'string') slot.addedPhase = item['phase'];
    if (item.type === 'function_call' && slot.toolIndex === undefined) {
      slot.toolIndex = this.nextToolIndex++;
      events.push({
        type: 'tool-call-start',
        index: slot.toolIndex,
        id: stringOf(item['call_id']),
        name: stringOf(item['name']),
      });
    }
    if (!done) return;
    // Hosts that skip deltas still surface the final text live.
    if (item.type === 'function_call' && slot.argumentsText === '' && slot.toolIndex !== undefined) {
      const argumentsText = stringOf(item['arguments']);
      if (argumentsText !== '')
        events.push({ type: 'tool-call-delta', index: slot.toolIndex, argumentsDelta: argumentsText });
    }
    if (item.type === 'message' && slot.text === '') {
      const text = messageText(item);
      if (text !== '') events.push({ type: 'text-delta', text });
    }
    if (item.type === 'reasoning' && slot.reasoningText === '') {
      const text = reasoningTextOf(item);
      if (text !== '') this.emitReasoning(slot, `${index}:done`, text, events);
    }
  }

  private emitReasoning(slot: OutputSlot, key: string, delta: string, events: StreamEvent[]): void {
    if (delta === '') return;
    const separator = this.lastReasoningKey !== undefined && this.lastReasoningKey !== key ? '\n\n' : '';
    this.lastReasoningKey = key;
    slot.reasoningText += (slot.reasoningText === '' ? '' : separator) + delta;
    events.push({ type: 'reasoning-delta', text: separator + delta });
  }

  private finishWith(response: ResponsesResponse, events: StreamEvent[]): void {
    // An item the stream never closed (some gateways skip `.done`) is taken from the final response.
    (response.output ?? []).forEach((item, index) => {
      const slot = this.slot(index);
      if (slot.done === undefined && isJsonObject(item)) {
        slot.type = item.type;
        slot.done = item;
      }
    });
    const ordered = [...this.slots.entries()].sort(([left], [right]) => left - right).map(([, slot]) => slot);
    this.terminal = terminalFor(ordered, response, this.context);
    if (this.terminal.type === 'finish' && this.terminal.usage !== null) {
      events.push({ type: 'usage', usage: this.terminal.usage });
    }
    events.push(this.terminal);
  }

  private failWith(error: unknown, events: StreamEvent[]): void {
    const body = isJsonObject(error) ? JSON.stringify(error) : undefined;
    const message = isJsonObject(error) && typeof error['message'] === 'string' ? error['message'] : 'response failed';
    this.terminal = {
      type: 'error',
      error: new StreamError(`The Responses stream reported an error: ${message}`, body === undefined ? {} : { body }),
    };
    events.push(this.terminal);
  }
}

// ---------------------------------------------------------------------------------------------
// Non-streaming
// ---------------------------------------------------------------------------------------------

/** Decodes a non-streaming Responses body into the terminal event (finish with the stored message). */
export function decodeResponsesResponse(response: unknown, context: ResponsesCaptureContext): ResponsesTerminalEvent {
  if (!isJsonObject(response)) {
    return { type: 'error', error: new StreamError('The Responses body was not a JSON object.') };
  }
  const typed = response as ResponsesResponse;
  if (typed.status === 'failed') {
    const message =
      isJsonObject(typed.error) && typeof typed.error['message'] === 'string' ? typed.error['message'] : 'failed';
    return {
      type: 'error',
      error: new StreamError(`The response failed: ${message}`, { body: JSON.stringify(typed.error) }),
    };
  }
  const slots: OutputSlot[] = (typed.output ?? []).filter(isJsonObject).map((item) => ({
    type: item.type,
    done: item,
    toolIndex: undefined,
    addedPhase: undefined,
    reasoningText: '',
    text: '',
    argumentsText: '',
  }));
  return terminalFor(slots, typed, context);
}

// ---------------------------------------------------------------------------------------------
// Assembly
// ---------------------------------------------------------------------------------------------

function stringOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function messageText(item: JsonObject): string {
  const content = Array.isArray(item['content']) ? item['content'] : [];
  return content
    .filter(isJsonObject)
    .map((part) =>
      part['type'] === 'output_text'
        ? stringOf(part['text'])
        : part['type'] === 'refusal'
          ? stringOf(part['refusal'])
          : '',
    )
    .join('');
}

/** Readable reasoning of one item: summary texts, else raw `reasoning_text` content (gpt-oss, DeepSeek). */
function reasoningTextOf(item: JsonObject): string {
  const texts = (list: unknown) =>
    (Array.isArray(list) ? list : [])
      .filter(isJsonObject)
      .map((part) => stringOf(part['text']))
      .filter((text) => text !== '');
  const summary = texts(item['summary']);
  return (summary.length > 0 ? summary : texts(item['content'])).join('\n\n');
}

function usageOf(usage: ResponsesUsage | null | undefined): Usage | null {
  if (!isJsonObject(usage)) return null;
  const inputTokens = usage.input_tokens ?? 0;
  const outputTokens = usage.output_tokens ?? 0;
  const result: Usage = { inputTokens, outputTokens, totalTokens: usage.total_tokens ?? inputTokens + outputTokens };
  const reasoningTokens = usage.output_tokens_details?.reasoning_tokens;
  if (typeof reasoningTokens === 'number') result.reasoningTokens = reasoningTokens;
  const cached = usage.input_tokens_details?.cached_tokens;
  if (typeof cached === 'number') result.cacheReadTokens = cached;
  return result;
}

/**
 * True when the output holds reasoning but neither a message nor a function call (SPEC §24.6):
 * summary-only or `rs_tmp_` reasoning, or reasoning cut by `max_output_tokens`. The turn is
 * `incomplete` and the runtime continues it.
 */
function isReasoningOnly(slots: readonly OutputSlot[]): boolean {
  const types = slots.map((slot) => slot.done?.type ?? slot.type);
  return types.includes('reasoning') && !types.includes('message') && !types.includes('function_call');
}

function finishOf(
  response: ResponsesResponse,
  hasToolCalls: boolean,
  reasoningOnly: boolean,
): { reason: FinishReason; stored: string } {
  const reason = stringOf(response.incomplete_details?.reason);
  if (reasoningOnly) {
    const unified = response.status === 'incomplete' && reason === 'max_output_tokens' ? 'length' : 'other';
    return { reason: { unified, raw: 'incomplete' }, stored: 'incomplete' };
  }
  if (response.status === 'incomplete') {
    const raw = reason || 'incomplete';
    if (raw === 'max_output_tokens') return { reason: { unified: 'length', raw }, stored: 'length' };
    if (raw === 'content_filter') return { reason: { unified: 'content-filter', raw }, stored: 'content_filter' };
    return { reason: { unified: 'other', raw }, stored: 'incomplete' };
  }
  const raw = response.status ?? null;
  if (hasToolCalls) return { reason: { unified: 'tool-calls', raw }, stored: 'tool_calls' };
  return { reason: { unified: 'stop', raw }, stored: 'stop' };
}

function terminalFor(
  slots: OutputSlot[],
  response: ResponsesResponse,
  context: ResponsesCaptureContext,
): ResponsesTerminalEvent {
  const message = assembleMessage(slots, context);
  const finish = finishOf(response, (message.tool_calls ?? []).length > 0, isReasoningOnly(slots));
  message.finish_reason = finish.stored;
  return { type: 'finish', message, finishReason: finish.reason, usage: usageOf(response.usage) };
}

/** Builds the stored message (SPEC §2, §12) from output slots in `output_index` order. */
function assembleMessage(slots: OutputSlot[], context: ResponsesCaptureContext): AssistantMessage {
  const stamp = { [ISSUER_KIND_KEY]: context.issuerKind };
  const reasoningItems: JsonObject[] = [];
  const messageItems: JsonObject[] = [];
  const toolCalls: ToolCall[] = [];
  const reasoningTexts: string[] = [];
  const texts: string[] = [];
  let pendingReasoning: JsonObject[] = [];

  for (const slot of slots) {
    const item = slot.done;
    if (item === undefined) continue;
    if (item.type === 'reasoning') {
      const text = reasoningTextOf(item) || slot.reasoningText;
      if (text !== '') reasoningTexts.push(text);
      if (stringOf(item.id).startsWith(TEMPORARY_REASONING_ID_PREFIX)) continue;
      const stored: JsonObject = { ...structuredClone(item), ...stamp };
      reasoningItems.push(stored);
      pendingReasoning.push(stored);
    } else if (item.type === 'compaction') {
      reasoningItems.push({ ...structuredClone(item), ...stamp });
    } else if (item.type === 'message') {
      texts.push(messageText(item) || slot.text);
      const messageItem: JsonObject = { type: 'message', id: stringOf(item.id) };
      const phase = typeof item['phase'] === 'string' ? item['phase'] : slot.addedPhase;
      if (phase !== undefined) messageItem['phase'] = phase;
      messageItems.push({ ...messageItem, ...stamp });
      pendingReasoning = [];
    } else if (item.type === 'function_call') {
      const callId = stringOf(item['call_id']);
      for (const reasoning of pendingReasoning) reasoning[PRECEDES_CALL_ID_KEY] = callId;
      pendingReasoning = [];
      const call: ToolCall = {
        id: callId,
        call_id: callId,
        type: 'function',
        function: { name: stringOf(item['name']), arguments: stringOf(item['arguments']) || slot.argumentsText },
      };
      if (typeof item.id === 'string') call.response_item_id = item.id;
      toolCalls.push(call);
    }
  }

  const text = texts.join('');
  const message: AssistantMessage = {
    role: 'assistant',
    content: text === '' && toolCalls.length > 0 ? null : text,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (reasoningTexts.length > 0) message.reasoning = reasoningTexts.join('\n\n');
  if (reasoningItems.length > 0) message.codex_reasoning_items = reasoningItems;
  if (messageItems.length > 0) message.codex_message_items = messageItems;
  // The origin keeps the model id as sent (SPEC §23.2), not the served snapshot name.
  message.origin = { ...context.origin };
  return message;
}
