import { StreamError } from '../../core/errors.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.js';
import type { AssistantMessage, ToolCall } from '../../core/message.js';
import type { StreamEvent } from '../../core/stream-event.js';
import type { FinishReason, Usage } from '../../core/usage.js';
import { appendCarrierRecord, StreamCarriers } from '../../replay/replay-carrier-record.js';
import { ThinkTagSplitter } from '../shared/transport-think-tags.js';
import { streamErrorFromChunkError } from './chat-completions-errors.js';
import type { StreamDecoder } from '../shared/transport-stream-decoder.js';

/**
 * Pure chat-completions decoder: chunks (or one whole response) in, stream events and the
 * stored assistant message out, built exactly as SPEC §2.1 and §7.2–§7.3 say. No I/O: the
 * transport feeds it SSE `data` payloads; tests feed recorded fixtures.
 */

/** Options fixed per request. */
export interface ChatCompletionsDecoderOptions {
  /** The route is in the must-echo tier (SPEC §4): a tool-call turn always stores `reasoning_content`. */
  mustEcho: boolean;
  /** Provider id used in error messages (default `provider`). */
  provider?: string;
}

/** The terminal event of a decoded response. */
export type ChatCompletionsTerminalEvent = Extract<StreamEvent, { type: 'finish' | 'error' }>;

/**
 * Streaming decoder state machine ({@link StreamDecoder} over SSE `data` text). `push` takes
 * `[DONE]` or chunk JSON text (malformed JSON ends the stream with an error); `end` gives an
 * optional `usage` event then exactly one terminal event (empty when already ended); `done` is
 * true after `[DONE]` or a terminal event.
 */
export type ChatCompletionsDecoder = StreamDecoder<string>;

interface ToolCallState {
  id: string;
  name: string;
  arguments: string;
  thoughtSignature?: string;
  extraContent?: JsonObject;
  started: boolean;
}

const UNIFIED_FINISH: Record<string, FinishReason['unified']> = {
  stop: 'stop',
  end_turn: 'stop',
  length: 'length',
  max_tokens: 'length',
  tool_calls: 'tool-calls',
  function_call: 'tool-calls',
  content_filter: 'content-filter',
  error: 'error',
};

/**
 * `{unified, raw}` for a provider finish reason. A missing or empty one (Snowflake sends
 * `finish_reason: ""`, and its streams end with `[DONE]` only) means the turn ended normally:
 * `tool-calls` when calls were made, else `stop`.
 */
export function unifyFinishReason(raw: string | null | undefined, hasToolCalls: boolean): FinishReason {
  if (raw === undefined || raw === null || raw === '')
    return { unified: hasToolCalls ? 'tool-calls' : 'stop', raw: raw ?? null };
  return { unified: UNIFIED_FINISH[raw] ?? 'other', raw };
}

function numberOr(value: JsonValue | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Maps a wire usage object (OpenAI shape plus DeepSeek cache counters) to {@link Usage}. */
export function usageFromWire(usage: JsonObject): Usage {
  const inputTokens = numberOr(usage['prompt_tokens']) ?? 0;
  const outputTokens = numberOr(usage['completion_tokens']) ?? 0;
  const result: Usage = {
    inputTokens,
    outputTokens,
    totalTokens: numberOr(usage['total_tokens']) ?? inputTokens + outputTokens,
  };
  const completionDetails = usage['completion_tokens_details'];
  const reasoningTokens = isJsonObject(completionDetails) ? numberOr(completionDetails['reasoning_tokens']) : undefined;
  if (reasoningTokens !== undefined) result.reasoningTokens = reasoningTokens;
  const promptDetails = usage['prompt_tokens_details'];
  const cached =
    (isJsonObject(promptDetails) ? numberOr(promptDetails['cached_tokens']) : undefined) ??
    numberOr(usage['prompt_cache_hit_tokens']);
  if (cached !== undefined) result.cacheReadTokens = cached;
  return result;
}

function firstNonEmpty(...values: (JsonValue | undefined)[]): string | undefined {
  for (const value of values) if (typeof value === 'string' && value !== '') return value;
  return undefined;
}

/** Accumulates `reasoning_details` fragments (WIRE.md §1.7, SPEC §25.4). */
class ReasoningDetailsAccumulator {
  readonly entries: JsonObject[] = [];
  /** Entries by `index` and `type`: OpenRouter numbers a summary and its encrypted twin both 0. */
  private readonly byKey = new Map<string, JsonObject>();
  /** The type each index last received, for fragments that leave `type` out. */
  private readonly lastType = new Map<number, string>();

  /** Adds a whole entry (non-streaming responses keep entries exactly as sent). */
  addWhole(entry: JsonObject): void {
    this.entries.push({ ...entry });
  }

  /**
   * Merges a stream fragment into the entry with the same (`index`, `type`) (SPEC §25.4): `text` /
   * `summary` concatenated, the last non-empty `signature`, `data` whole, `id`/`format` kept. Two
   * types at one index are two entries however their fragments interleave; a fragment without a
   * `type` continues the entry its index last touched.
   */
  addFragment(fragment: JsonObject): void {
    const index = typeof fragment['index'] === 'number' ? fragment['index'] : 0;
    const type = typeof fragment['type'] === 'string' ? fragment['type'] : (this.lastType.get(index) ?? '');
    this.lastType.set(index, type);
    const key = `${index}\0${type}`;
    const current = this.byKey.get(key);
    if (current === undefined) {
      const entry = { ...fragment };
      this.entries.push(entry);
      this.byKey.set(key, entry);
      return;
    }
    for (const [field, value] of Object.entries(fragment)) {
      if (value === undefined) continue;
      const previous = current[field];
      if ((field === 'text' || field === 'summary') && typeof value === 'string') {
        current[field] = typeof previous === 'string' ? previous + value : value;
      } else if (field === 'index') {
        continue;
      } else if (value === null || value === '') {
        if (!(field in current)) current[field] = value;
      } else {
        current[field] = value;
      }
    }
  }
}

class ChatCompletionsDecoderState implements ChatCompletionsDecoder {
  private ended = false;
  private started = false;
  private sawDone = false;
  private rawReasoningContent: string | undefined;
  private fieldReasoning = '';
  private thinkReasoning = '';
  private visibleText = '';
  private readonly thinkTags = new ThinkTagSplitter();
  private readonly details = new ReasoningDetailsAccumulator();
  private readonly carriers = new StreamCarriers();
  private readonly toolCalls = new Map<number, ToolCallState>();
  private finishRaw: string | null | undefined;
  private usage: JsonObject | undefined;
  private readonly provider: string;

  constructor(private readonly options: ChatCompletionsDecoderOptions) {
    this.provider = options.provider ?? 'provider';
  }

  get done(): boolean {
    return this.ended || this.sawDone;
  }

  push(data: string): StreamEvent[] {
    if (this.ended) return [];
    if (data.trim() === '[DONE]') {
      this.sawDone = true;
      return [];
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      return this.fail([], `${this.provider} sent a malformed stream chunk (not JSON): ${data.slice(0, 200)}`, data);
    }
    return this.feedChunk(chunk);
  }

  private feedChunk(chunk: unknown): StreamEvent[] {
    if (this.ended) return [];
    const events: StreamEvent[] = [];
    if (!isJsonObject(chunk))
      return this.fail(
        events,
        `${this.provider} sent a malformed stream chunk: ${JSON.stringify(chunk)}`.slice(0, 300),
      );
    this.markStarted(events);
    if (chunk['error'] !== undefined && chunk['error'] !== null) {
      return this.terminate(events, { type: 'error', error: streamErrorFromChunkError(chunk['error'], this.provider) });
    }
    if (isJsonObject(chunk['usage'])) this.usage = chunk['usage'];
    const choice = this.primaryChoice(chunk['choices']);
    if (choice === undefined) return events;
    if (isJsonObject(choice['delta'])) this.feedDelta(events, choice['delta'], false);
    return this.noteFinishReason(events, choice['finish_reason']);
  }

  /** Feeds a whole non-streaming `chat.completion` body; returns every event including the terminal one. */
  feedResponse(response: unknown): StreamEvent[] {
    const events: StreamEvent[] = [];
    if (!isJsonObject(response))
      return this.fail(events, `${this.provider} answered with a body that is not a JSON object`);
    this.markStarted(events);
    if (response['error'] !== undefined && response['error'] !== null) {
      return this.terminate(events, {
        type: 'error',
        error: streamErrorFromChunkError(response['error'], this.provider),
      });
    }
    const choice = this.primaryChoice(response['choices']);
    if (choice === undefined || !isJsonObject(choice['message'])) {
      return this.fail(
        events,
        `${this.provider} answered without choices[0].message`,
        JSON.stringify(response).slice(0, 2000),
      );
    }
    if (isJsonObject(response['usage'])) this.usage = response['usage'];
    this.feedDelta(events, choice['message'], true);
    this.sawDone = true;
    this.noteFinishReason(events, choice['finish_reason']);
    return this.ended ? events : [...events, ...this.end()];
  }

  end(): StreamEvent[] {
    if (this.ended) return [];
    const events: StreamEvent[] = [];
    this.markStarted(events);
    this.pushContentPieces(events, this.thinkTags.end());
    if (!this.sawDone && this.finishRaw === undefined) {
      // A truncated stream is never returned as a complete message ("never yield a half message").
      return this.fail(
        events,
        `${this.provider} stream ended before the response finished (no finish_reason, no [DONE]); the partial answer was discarded`,
      );
    }
    const message = this.buildMessage();
    const usage = this.usage === undefined ? null : usageFromWire(this.usage);
    if (usage !== null) events.push({ type: 'usage', usage });
    const finishReason = unifyFinishReason(this.finishRaw, (message.tool_calls?.length ?? 0) > 0);
    return this.terminate(events, { type: 'finish', message, finishReason, usage });
  }

  private primaryChoice(choices: JsonValue | undefined): JsonObject | undefined {
    if (!Array.isArray(choices)) return undefined;
    // n = 1 is all Hermes asks for; take choice 0 (or the only one when a vendor omits `index`).
    const choice = choices.find((candidate) => isJsonObject(candidate) && (candidate['index'] ?? 0) === 0);
    return isJsonObject(choice) ? choice : undefined;
  }

  private noteFinishReason(events: StreamEvent[], raw: JsonValue | undefined): StreamEvent[] {
    if (typeof raw !== 'string' || raw === '') return events;
    this.finishRaw = raw;
    if (raw === 'error') return this.fail(events, `${this.provider} ended the stream with finish_reason "error"`);
    return events;
  }

  private markStarted(events: StreamEvent[]): void {
    if (this.started) return;
    this.started = true;
    events.push({ type: 'start' });
  }

  private feedDelta(events: StreamEvent[], delta: JsonObject, whole: boolean): void {
    // Raw `reasoning_content` counts as carried whenever a string arrived, even "" (SPEC §2.1 rule 1).
    if (typeof delta['reasoning_content'] === 'string')
      this.rawReasoningContent = (this.rawReasoningContent ?? '') + delta['reasoning_content'];
    // First non-empty reader (WIRE.md §1.1): chutes.ai-style hosts mirror the same text in
    // `reasoning` and `reasoning_content`; concatenating both would double it.
    let fragment = firstNonEmpty(delta['reasoning_content'], delta['reasoning'], delta['reasoning_text']);
    if (Array.isArray(delta['reasoning_details'])) {
      let detailText = '';
      for (const entry of delta['reasoning_details']) {
        if (!isJsonObject(entry)) continue;
        if (whole) this.details.addWhole(entry);
        else this.details.addFragment(entry);
        detailText += firstNonEmpty(entry['text'], entry['summary']) ?? '';
      }
      // Snowflake Cortex streams reasoning only inside `reasoning_details`.
      if (fragment === undefined && detailText !== '') fragment = detailText;
    }
    const display = this.carriers.feed(delta, fragment);
    if (display !== undefined) {
      this.fieldReasoning += display;
      events.push({ type: 'reasoning-delta', text: display });
    }
    this.feedContent(events, delta['content']);
    if (Array.isArray(delta['tool_calls'])) this.feedToolCalls(events, delta['tool_calls'], whole);
  }

  private feedContent(events: StreamEvent[], content: JsonValue | undefined): void {
    if (typeof content === 'string') {
      if (content !== '') this.pushContentPieces(events, this.thinkTags.push(content));
      return;
    }
    if (!Array.isArray(content)) return;
    // Mistral-style content parts: `{type:"text",text}` and `{type:"thinking",thinking:[{type:"text",text}]}`.
    for (const part of content) {
      if (!isJsonObject(part)) continue;
      if (part['type'] === 'text' && typeof part['text'] === 'string')
        this.pushContentPieces(events, this.thinkTags.push(part['text']));
      if (part['type'] === 'thinking' && Array.isArray(part['thinking'])) {
        const text = part['thinking']
          .map((inner) => (isJsonObject(inner) && typeof inner['text'] === 'string' ? inner['text'] : ''))
          .join('');
        this.pushContentPieces(events, [{ kind: 'think', text }]);
      }
    }
  }

  private pushContentPieces(events: StreamEvent[], pieces: readonly { kind: 'text' | 'think'; text: string }[]): void {
    for (const piece of pieces) {
      if (piece.text === '') continue;
      if (piece.kind === 'text') {
        this.visibleText += piece.text;
        events.push({ type: 'text-delta', text: piece.text });
      } else {
        this.thinkReasoning += piece.text;
        // Think-tag text is the reasoning only when no reasoning field exists (SPEC §2.1).
        if (this.fieldReasoning === '') events.push({ type: 'reasoning-delta', text: piece.text });
      }
    }
  }

  private feedToolCalls(events: StreamEvent[], deltas: JsonValue[], whole: boolean): void {
    deltas.forEach((delta, position) => {
      if (!isJsonObject(delta)) return;
      const index = this.toolCallIndex(delta, position, whole);
      let state = this.toolCalls.get(index);
      if (state === undefined) {
        state = { id: '', name: '', arguments: '', started: false };
        this.toolCalls.set(index, state);
      }
      if (typeof delta['id'] === 'string' && delta['id'] !== '' && state.id === '') state.id = delta['id'];
      const fn = isJsonObject(delta['function']) ? delta['function'] : {};
      if (typeof fn['name'] === 'string' && fn['name'] !== '' && state.name === '') state.name = fn['name'];
      const argumentsDelta =
        typeof fn['arguments'] === 'string'
          ? fn['arguments']
          : isJsonObject(fn['arguments'])
            ? JSON.stringify(fn['arguments'])
            : '';
      state.arguments += argumentsDelta;
      if (typeof fn['thought_signature'] === 'string' && fn['thought_signature'] !== '')
        state.thoughtSignature = fn['thought_signature'];
      if (isJsonObject(delta['extra_content'])) state.extraContent = delta['extra_content'];
      if (!state.started && state.name !== '') {
        state.started = true;
        events.push({ type: 'tool-call-start', index, id: state.id, name: state.name });
        if (state.arguments !== '') events.push({ type: 'tool-call-delta', index, argumentsDelta: state.arguments });
      } else if (state.started && argumentsDelta !== '') {
        events.push({ type: 'tool-call-delta', index, argumentsDelta });
      }
    });
  }

  private toolCallIndex(delta: JsonObject, position: number, whole: boolean): number {
    if (typeof delta['index'] === 'number') return delta['index'];
    if (whole) return position;
    // A stream without indices: a new non-empty id starts a new call, anything else continues the last one.
    const last = Math.max(-1, ...this.toolCalls.keys());
    const id = delta['id'];
    if (last < 0 || (typeof id === 'string' && id !== '' && this.toolCalls.get(last)?.id !== id)) return last + 1;
    return last;
  }

  private buildMessage(): AssistantMessage {
    const toolCalls: ToolCall[] = [...this.toolCalls.entries()]
      .sort(([left], [right]) => left - right)
      .map(([, state]) => {
        const call: ToolCall = {
          id: state.id,
          type: 'function',
          function: { name: state.name, arguments: state.arguments },
        };
        if (state.thoughtSignature !== undefined) call.function.thought_signature = state.thoughtSignature;
        if (state.extraContent !== undefined) call.extra_content = state.extraContent;
        return call;
      });
    const extracted =
      this.fieldReasoning !== '' ? this.fieldReasoning : this.thinkReasoning !== '' ? this.thinkReasoning : undefined;
    const message: AssistantMessage = {
      role: 'assistant',
      content: this.visibleText !== '' ? this.visibleText : toolCalls.length > 0 ? null : '',
    };
    if (extracted !== undefined) message.reasoning = extracted;
    // SPEC §2.1: raw verbatim; else must-echo tool-call turn → text or " "; else the text if any.
    if (this.rawReasoningContent !== undefined) message.reasoning_content = this.rawReasoningContent;
    else if (toolCalls.length > 0 && this.options.mustEcho) message.reasoning_content = extracted ?? ' ';
    else if (extracted !== undefined) message.reasoning_content = extracted;
    const details = appendCarrierRecord(this.details.entries, this.carriers.record());
    if (details !== null) message.reasoning_details = details;
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    if (typeof this.finishRaw === 'string') message.finish_reason = this.finishRaw;
    return message;
  }

  private fail(events: StreamEvent[], message: string, body?: string): StreamEvent[] {
    return this.terminate(events, {
      type: 'error',
      error: new StreamError(message, body === undefined ? {} : { body }),
    });
  }

  private terminate(events: StreamEvent[], terminal: ChatCompletionsTerminalEvent): StreamEvent[] {
    this.ended = true;
    events.push(terminal);
    return events;
  }
}

/** Creates a streaming decoder for one response. */
export function createChatCompletionsDecoder(options: ChatCompletionsDecoderOptions): ChatCompletionsDecoder {
  return new ChatCompletionsDecoderState(options);
}

/** Decoded non-streaming response: the events a stream would have produced, and its terminal event. */
export interface ChatCompletionsDecodedResponse {
  events: StreamEvent[];
  terminal: ChatCompletionsTerminalEvent;
}

/** Decodes a non-streaming `chat.completion` body into the same stored message a stream would give. */
export function decodeChatCompletionsResponse(
  json: unknown,
  options: ChatCompletionsDecoderOptions,
): ChatCompletionsDecodedResponse {
  const events = new ChatCompletionsDecoderState(options).feedResponse(json);
  const terminal = events[events.length - 1] as ChatCompletionsTerminalEvent;
  return { events, terminal };
}
