import { StreamError } from '../../core/errors.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import { isJsonObject } from '../../core/json.js';
import type { AssistantMessage, ToolCall } from '../../core/message.js';
import type { Route } from '../../core/route.js';
import type { StreamEvent } from '../../core/stream-event.js';
import type { StreamDecoder } from '../shared/transport-stream-decoder.js';
import type { FinishReason, Usage } from '../../core/usage.js';
import { originStampFor } from '../shared/transport-http.js';
import type { BedrockConverseResponseBody, BedrockStreamEvent, BedrockTokenUsage } from './bedrock-converse-wire.js';

/**
 * Pure decoding of Converse responses and ConverseStream events (WIRE.md §3.2, §3.3) into the
 * stored assistant message (SPEC §2.1, §10): ordered `bedrock_content_blocks` (authoritative for
 * replay), `reasoning_content` = readable reasoning joined by a blank line, Anthropic-shaped
 * `reasoning_details` for signed and redacted blocks (so a turn reloaded without the sidecar
 * still replays), tool calls, finish reason and the origin stamp.
 */

/** A decoded turn. */
export interface BedrockDecodedTurn {
  message: AssistantMessage;
  finishReason: FinishReason;
  usage: Usage | null;
}

/**
 * gpt-oss on Bedrock may return tool names with its harmony channel marker appended, e.g.
 * `json<|channel|>commentary` (`fixtures/bedrock-converse/vercel-gpt-oss-tool-name-channel.json`);
 * the tool that was offered is the part before `<|`.
 */
export function cleanBedrockToolName(name: string): string {
  const marker = name.indexOf('<|');
  return marker > 0 ? name.slice(0, marker) : name;
}

/** Maps a Converse `stopReason` to the unified finish reason. */
export function bedrockFinishReason(stopReason: string | undefined): FinishReason {
  const raw = stopReason ?? null;
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
      return { unified: 'stop', raw };
    case 'tool_use':
      return { unified: 'tool-calls', raw };
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return { unified: 'length', raw };
    case 'guardrail_intervened':
    case 'content_filtered':
      return { unified: 'content-filter', raw };
    default:
      return { unified: 'other', raw };
  }
}

/** Maps Converse token usage; null when the response carried none. */
export function bedrockUsage(usage: BedrockTokenUsage | undefined): Usage | null {
  if (usage === undefined) return null;
  const inputTokens = usage.inputTokens ?? 0;
  const outputTokens = usage.outputTokens ?? 0;
  const mapped: Usage = { inputTokens, outputTokens, totalTokens: usage.totalTokens ?? inputTokens + outputTokens };
  if (usage.cacheReadInputTokens !== undefined) mapped.cacheReadTokens = usage.cacheReadInputTokens;
  return mapped;
}

/** Builds the stored assistant message from the ordered wire content blocks. */
export function assembleBedrockAssistantMessage(
  wireBlocks: readonly JsonObject[],
  stopReason: string | undefined,
  route: Route,
): AssistantMessage {
  // A blank text block cannot be sent back (Bedrock: "The text field in the ContentBlock object
  // … is blank"); Kimi streams several (`vercel-kimi-k2-thinking-glob-search.chunks.txt`).
  const blocks = wireBlocks.filter((block) => !(typeof block['text'] === 'string' && block['text'].trim() === ''));
  const texts: string[] = [];
  const readable: string[] = [];
  const details: JsonObject[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of blocks) {
    if (typeof block['text'] === 'string') texts.push(block['text']);
    const reasoning = block['reasoningContent'];
    if (isJsonObject(reasoning)) {
      if (typeof reasoning['redactedContent'] === 'string') {
        details.push({ type: 'redacted_thinking', data: reasoning['redactedContent'] });
      } else if (isJsonObject(reasoning['reasoningText']) && typeof reasoning['reasoningText']['text'] === 'string') {
        const { text, signature } = reasoning['reasoningText'];
        if (text !== '') readable.push(text);
        if (typeof signature === 'string' && signature !== '') {
          details.push({ type: 'thinking', thinking: text, signature });
        }
      }
    }
    const toolUse = block['toolUse'];
    if (isJsonObject(toolUse)) {
      toolCalls.push({
        id: typeof toolUse['toolUseId'] === 'string' ? toolUse['toolUseId'] : '',
        type: 'function',
        function: {
          name: cleanBedrockToolName(typeof toolUse['name'] === 'string' ? toolUse['name'] : ''),
          arguments: JSON.stringify(toolUse['input'] ?? {}),
        },
      });
    }
  }
  const text = texts.join('');
  const message: AssistantMessage = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (readable.length > 0) {
    const joined = readable.join('\n\n');
    message.reasoning = joined;
    message.reasoning_content = joined;
  }
  if (details.length > 0) message.reasoning_details = details;
  message.bedrock_content_blocks = blocks.map((block) => structuredClone(block));
  if (stopReason !== undefined) message.finish_reason = stopReason;
  message.origin = originStampFor(route);
  return message;
}

/** Decodes a non-streaming Converse response body. */
export function decodeBedrockConverseResponse(body: BedrockConverseResponseBody, route: Route): BedrockDecodedTurn {
  const content = body.output?.message?.content ?? [];
  return {
    message: assembleBedrockAssistantMessage(content, body.stopReason, route),
    finishReason: bedrockFinishReason(body.stopReason),
    usage: bedrockUsage(body.usage),
  };
}

/** The display events a non-streaming turn is replayed as (start, deltas, usage, finish). */
export function eventsForDecodedTurn(turn: BedrockDecodedTurn): StreamEvent[] {
  const events: StreamEvent[] = [{ type: 'start' }];
  let toolIndex = 0;
  for (const block of turn.message.bedrock_content_blocks ?? []) {
    const reasoning = block['reasoningContent'];
    if (isJsonObject(reasoning) && isJsonObject(reasoning['reasoningText'])) {
      const text = reasoning['reasoningText']['text'];
      if (typeof text === 'string' && text !== '') events.push({ type: 'reasoning-delta', text });
    }
    if (typeof block['text'] === 'string') events.push({ type: 'text-delta', text: block['text'] });
  }
  for (const call of turn.message.tool_calls ?? []) {
    events.push({ type: 'tool-call-start', index: toolIndex, id: call.id, name: call.function.name });
    events.push({ type: 'tool-call-delta', index: toolIndex, argumentsDelta: call.function.arguments });
    toolIndex += 1;
  }
  if (turn.usage) events.push({ type: 'usage', usage: turn.usage });
  events.push({ type: 'finish', message: turn.message, finishReason: turn.finishReason, usage: turn.usage });
  return events;
}

interface BlockState {
  text: string;
  hasText: boolean;
  reasoning: string;
  hasReasoning: boolean;
  signature: string | undefined;
  redacted: string | undefined;
  toolUse: { id: string; name: string; input: string; toolIndex: number } | undefined;
}

/**
 * ConverseStream state machine (WIRE.md §3.3). Blocks are accumulated per `contentBlockIndex`:
 * reasoning and text deltas never mix (a block's reasoning, text and tool use are kept apart);
 * there is no `contentBlockStart` for reasoning or text (the first delta opens them); the
 * signature is its own delta; `redactedContent` is one delta per block; the random padding field
 * `p` on every payload is ignored.
 */
export class BedrockConverseStreamDecoder implements StreamDecoder<BedrockStreamEvent> {
  private readonly blocks = new Map<number, BlockState>();
  private started = false;
  private stopReason: string | undefined;
  private stopped = false;
  private usage: Usage | null = null;
  private toolCount = 0;
  private terminal = false;

  /** Decodes for a message that will be stamped with `route`'s origin. */
  constructor(private readonly route: Route) {}

  /** True once the terminal event was returned (an exception event, or `end`). */
  get done(): boolean {
    return this.terminal;
  }

  /** Feeds one event; returns the stream events it produces (an exception event gives the terminal `error`). */
  push(event: BedrockStreamEvent): StreamEvent[] {
    if (this.terminal) return [];
    const { type, payload } = event;
    const events: StreamEvent[] = [];
    if (!this.started) {
      this.started = true;
      events.push({ type: 'start' });
    }
    if (type === 'contentBlockStart') {
      const start = isJsonObject(payload['start']) ? payload['start']['toolUse'] : undefined;
      if (isJsonObject(start)) {
        const state = this.block(payload);
        const id = typeof start['toolUseId'] === 'string' ? start['toolUseId'] : '';
        const name = typeof start['name'] === 'string' ? start['name'] : '';
        state.toolUse = { id, name, input: '', toolIndex: this.toolCount++ };
        events.push({ type: 'tool-call-start', index: state.toolUse.toolIndex, id, name: cleanBedrockToolName(name) });
      }
    } else if (type === 'contentBlockDelta') {
      events.push(...this.delta(payload));
    } else if (type === 'messageStop') {
      this.stopped = true;
      if (typeof payload['stopReason'] === 'string') this.stopReason = payload['stopReason'];
    } else if (type === 'metadata') {
      this.usage = bedrockUsage(isJsonObject(payload['usage']) ? (payload['usage'] as BedrockTokenUsage) : undefined);
      if (this.usage) events.push({ type: 'usage', usage: this.usage });
    } else if (/exception$/i.test(type)) {
      const message = typeof payload['message'] === 'string' ? payload['message'] : JSON.stringify(payload);
      const error = new StreamError(`Bedrock stream failed (${type}): ${message}`, {
        body: message,
        retryable: /throttling|internalServer|serviceUnavailable|modelStreamError/i.test(type),
      });
      this.terminal = true;
      events.push({ type: 'error', error });
    }
    return events;
  }

  /** End of the event source: the terminal event (`[]` after an exception event). */
  end(): StreamEvent[] {
    if (this.terminal) return [];
    this.terminal = true;
    if (!this.stopped) {
      return [
        {
          type: 'error',
          error: new StreamError('Bedrock stream ended before messageStop; the turn is incomplete, retry it.', {
            retryable: true,
          }),
        },
      ];
    }
    const message = assembleBedrockAssistantMessage(this.wireBlocks(), this.stopReason, this.route);
    return [{ type: 'finish', message, finishReason: bedrockFinishReason(this.stopReason), usage: this.usage }];
  }

  /** The ordered wire blocks accumulated so far. */
  wireBlocks(): JsonObject[] {
    const out: JsonObject[] = [];
    for (const [, state] of [...this.blocks.entries()].sort(([left], [right]) => left - right)) {
      if (state.redacted !== undefined) out.push({ reasoningContent: { redactedContent: state.redacted } });
      else if (state.hasReasoning || state.signature !== undefined) {
        const reasoningText: JsonObject = { text: state.reasoning };
        if (state.signature !== undefined) reasoningText['signature'] = state.signature;
        out.push({ reasoningContent: { reasoningText } });
      }
      if (state.hasText) out.push({ text: state.text });
      if (state.toolUse) {
        const { id, name, input } = state.toolUse;
        out.push({ toolUse: { toolUseId: id, name, input: parseToolInput(input) } });
      }
    }
    return out;
  }

  private delta(payload: JsonObject): StreamEvent[] {
    const delta = payload['delta'];
    if (!isJsonObject(delta)) return [];
    const state = this.block(payload);
    if (typeof delta['text'] === 'string') {
      state.hasText = true;
      state.text += delta['text'];
      return delta['text'] === '' ? [] : [{ type: 'text-delta', text: delta['text'] }];
    }
    const reasoning = delta['reasoningContent'];
    if (isJsonObject(reasoning)) {
      if (typeof reasoning['redactedContent'] === 'string')
        state.redacted = (state.redacted ?? '') + reasoning['redactedContent'];
      if (typeof reasoning['signature'] === 'string')
        state.signature = (state.signature ?? '') + reasoning['signature'];
      if (typeof reasoning['text'] === 'string') {
        state.hasReasoning = true;
        state.reasoning += reasoning['text'];
        if (reasoning['text'] !== '') return [{ type: 'reasoning-delta', text: reasoning['text'] }];
      }
      return [];
    }
    const toolUse = delta['toolUse'];
    if (isJsonObject(toolUse) && typeof toolUse['input'] === 'string') {
      state.toolUse ??= { id: '', name: '', input: '', toolIndex: this.toolCount++ };
      state.toolUse.input += toolUse['input'];
      return [{ type: 'tool-call-delta', index: state.toolUse.toolIndex, argumentsDelta: toolUse['input'] }];
    }
    return [];
  }

  private block(payload: JsonObject): BlockState {
    const index = typeof payload['contentBlockIndex'] === 'number' ? payload['contentBlockIndex'] : 0;
    let state = this.blocks.get(index);
    if (!state) {
      state = {
        text: '',
        hasText: false,
        reasoning: '',
        hasReasoning: false,
        signature: undefined,
        redacted: undefined,
        toolUse: undefined,
      };
      this.blocks.set(index, state);
    }
    return state;
  }
}

function parseToolInput(text: string): JsonValue {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    // A truncated stream can leave half a JSON document; keep the raw text visible instead of losing it.
    return text;
  }
}
