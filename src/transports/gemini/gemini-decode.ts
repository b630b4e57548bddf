import { StreamError } from '../../core/errors.js';
import { randomSuffix } from '../../core/ids.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.js';
import type { AssistantMessage, ToolCall } from '../../core/message.js';
import type { OriginStamp } from '../../core/origin.js';
import type { StreamEvent } from '../../core/stream-event.js';
import type { StreamDecoder } from '../shared/transport-stream-decoder.js';
import type { FinishReason, Usage } from '../../core/usage.js';
import { usableSignature } from '../../replay/gemini-replay-policy.js';
import { buildCarrierRecord } from '../../replay/replay-carrier-record.js';
import { geminiStreamError } from './gemini-errors.js';
import {
  type GeminiFunctionCall,
  type GeminiPart,
  type GeminiPartialArgument,
  type GeminiResponse,
  type GeminiUsageMetadata,
} from './gemini-wire.js';

/**
 * Pure Gemini response decoding (SPEC §11, WIRE.md §4.2–4.3): a state machine fed one parsed
 * chunk at a time (a non-streaming response is a single chunk) that emits stream events and
 * assembles the stored assistant message with every `thoughtSignature` on the part it came on.
 */

// ---------------------------------------------------------------------------------------------
// Context
// ---------------------------------------------------------------------------------------------

/** What the decoder stamps on the message it assembles. */
export interface GeminiDecodeContext {
  origin: OriginStamp;
  /** Signature issuer of the route (see `GeminiRouteFacts.issuer`). */
  issuer: string;
  /** Id for a function call that arrived without one (Gemini < 3 never sends ids). */
  createToolCallId?: (index: number) => string;
}

/** The assembled result. */
export interface GeminiDecodedResponse {
  message: AssistantMessage;
  finishReason: FinishReason;
  usage: Usage | null;
}

// ---------------------------------------------------------------------------------------------
// State machine
// ---------------------------------------------------------------------------------------------

type OpenPart = { kind: 'text' | 'thought'; part: GeminiPart } | { kind: 'call'; part: GeminiPart; call: PendingCall };

interface PendingCall {
  id: string;
  name: string;
  args: JsonObject;
  signature?: string;
}

/**
 * Chunk → events. Stream text chunks of one kind merge into one part; a signature attaches to
 * the part it arrives with or to the open one (the trailing empty-text signature chunk of
 * WIRE.md §4.3 lands on the last text part, where a non-streaming response puts it). A second
 * signature, a change of kind or a function call starts a new part.
 */
export class GeminiDecoder implements StreamDecoder<string> {
  private readonly parts: GeminiPart[] = [];
  private open: OpenPart | null = null;
  private readonly calls: PendingCall[] = [];
  private text = '';
  private reasoning = '';
  private textSignature: string | undefined;
  private fallbackSignature: string | undefined;
  private finishRaw: string | null = null;
  private blockReason: string | null = null;
  private usageMetadata: GeminiUsageMetadata | undefined;
  private sawChunk = false;
  private started = false;
  private terminal = false;
  private readonly context: GeminiDecodeContext;

  constructor(context: GeminiDecodeContext) {
    this.context = context;
  }

  /** True once the terminal event was returned (an error chunk, malformed JSON, or `end`). */
  get done(): boolean {
    return this.terminal;
  }

  /**
   * Feeds one chunk: the SSE `data` text (blank data is skipped; text that is not JSON ends the
   * stream with an error) or the parsed chunk. Returns its events; an error chunk gives the
   * terminal `error`. The first chunk is preceded by `start`.
   */
  push(chunk: string | GeminiResponse): StreamEvent[] {
    if (this.terminal) return [];
    let parsed: GeminiResponse;
    if (typeof chunk === 'string') {
      if (chunk.trim() === '') return [];
      try {
        parsed = JSON.parse(chunk) as GeminiResponse;
      } catch (error) {
        return this.fail(
          new StreamError('Gemini sent a chunk that is not JSON', { body: chunk.slice(0, 500), cause: error }),
        );
      }
    } else parsed = chunk;
    const events: StreamEvent[] = [];
    if (!this.started) {
      this.started = true;
      events.push({ type: 'start' });
    }
    if (parsed.error) {
      this.terminal = true;
      events.push({ type: 'error', error: geminiStreamError(parsed.error) });
      return events;
    }
    this.sawChunk = true;
    if (parsed.usageMetadata) this.usageMetadata = parsed.usageMetadata;
    if (parsed.promptFeedback?.blockReason) this.blockReason = parsed.promptFeedback.blockReason;
    const candidate = parsed.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) this.pushPart(part, events);
    if (candidate?.finishReason) this.finishRaw = candidate.finishReason;
    return events;
  }

  /** True once a finish reason (or a prompt block) arrived: the response is complete. */
  get complete(): boolean {
    return this.finishRaw !== null || this.blockReason !== null;
  }

  /**
   * End of input: the closing events, `usage`, and `finish`; a response without a finish reason
   * ends with a retryable `error` instead. `[]` after a terminal event.
   */
  end(): StreamEvent[] {
    if (this.terminal) return [];
    let finished: { events: StreamEvent[]; result: GeminiDecodedResponse };
    try {
      finished = this.completeResponse();
    } catch (error) {
      return this.fail(error instanceof StreamError ? error : new StreamError(String(error)));
    }
    this.terminal = true;
    const { events, result } = finished;
    if (!this.started) {
      this.started = true;
      events.unshift({ type: 'start' });
    }
    events.push({ type: 'finish', message: result.message, finishReason: result.finishReason, usage: result.usage });
    return events;
  }

  /**
   * The assembled response without the terminal event (for {@link decodeGeminiResponse});
   * throws {@link StreamError} when it ended before a finish reason. Streams use `end()`.
   */
  completeResponse(): { events: StreamEvent[]; result: GeminiDecodedResponse } {
    if (!this.complete) {
      throw new StreamError(
        this.sawChunk
          ? 'the Gemini stream ended before a finishReason; the response is incomplete, retry the turn'
          : 'the Gemini response held no candidates; retry the turn',
        { retryable: true },
      );
    }
    const events: StreamEvent[] = [];
    this.closeOpen(events);
    const usage = decodeUsage(this.usageMetadata);
    if (usage) events.push({ type: 'usage', usage });
    const finishReason = mapFinishReason(this.finishRaw ?? this.blockReason, this.calls.length > 0, this.blockReason);
    return { events, result: { message: this.assemble(), finishReason, usage } };
  }

  private fail(error: StreamError): StreamEvent[] {
    this.terminal = true;
    return [{ type: 'error', error }];
  }

  private pushPart(part: GeminiPart, events: StreamEvent[]): void {
    const signature = usableSignature(part.thoughtSignature);
    if (part.functionCall) {
      this.pushFunctionCall(part, part.functionCall, signature, events);
      return;
    }
    if (typeof part.text === 'string') {
      const kind = part.thought === true ? 'thought' : 'text';
      if (kind === 'text' && signature) this.textSignature = signature;
      if (kind === 'thought' && signature) this.fallbackSignature = signature;
      if (part.text !== '') {
        if (kind === 'thought') this.reasoning += part.text;
        else this.text += part.text;
        events.push({ type: kind === 'thought' ? 'reasoning-delta' : 'text-delta', text: part.text });
      }
      const open = this.open;
      if (open && open.kind === kind && !(signature && open.part.thoughtSignature)) {
        open.part.text = (open.part.text ?? '') + part.text;
        if (signature) open.part.thoughtSignature = signature;
        return;
      }
      // An empty text chunk without a signature carries nothing (Gemini's trailing `{"text":""}` + finishReason).
      if (part.text === '' && !signature) return;
      this.closeOpen(events);
      const stored = structuredClone(part);
      this.parts.push(stored);
      this.open = { kind, part: stored };
      return;
    }
    // Any other part (inlineData, executableCode, a bare signature) is kept verbatim.
    if (signature) this.fallbackSignature = signature;
    this.closeOpen(events);
    this.parts.push(structuredClone(part));
  }

  private pushFunctionCall(
    part: GeminiPart,
    functionCall: GeminiFunctionCall,
    signature: string | undefined,
    events: StreamEvent[],
  ): void {
    const open = this.open;
    // Vertex `streamFunctionCallArguments`: fragments without a name continue the open call.
    if (open?.kind === 'call' && functionCall.name === undefined) {
      for (const fragment of functionCall.partialArgs ?? []) applyPartialArgument(open.call.args, fragment);
      if (functionCall.willContinue !== true) this.closeOpen(events);
      return;
    }
    this.closeOpen(events);
    const index = this.calls.length;
    const call: PendingCall = {
      id: functionCall.id ?? this.context.createToolCallId?.(index) ?? `call_${randomSuffix(12)}`,
      name: functionCall.name ?? '',
      args: structuredClone(functionCall.args ?? {}),
    };
    if (signature) call.signature = signature;
    this.calls.push(call);
    events.push({ type: 'tool-call-start', index, id: call.id, name: call.name });
    if (functionCall.willContinue === true) {
      for (const fragment of functionCall.partialArgs ?? []) applyPartialArgument(call.args, fragment);
      const stored: GeminiPart = { functionCall: { name: call.name, args: call.args } };
      if (functionCall.id !== undefined) stored.functionCall!.id = functionCall.id;
      if (part.thoughtSignature !== undefined) stored.thoughtSignature = part.thoughtSignature;
      this.parts.push(stored);
      this.open = { kind: 'call', part: stored, call };
      return;
    }
    this.parts.push(structuredClone(part));
    events.push({ type: 'tool-call-delta', index, argumentsDelta: JSON.stringify(call.args) });
  }

  private closeOpen(events: StreamEvent[]): void {
    const open = this.open;
    this.open = null;
    if (open?.kind !== 'call') return;
    const index = this.calls.indexOf(open.call);
    events.push({ type: 'tool-call-delta', index, argumentsDelta: JSON.stringify(open.call.args) });
  }

  private assemble(): AssistantMessage {
    const toolCalls: ToolCall[] = this.calls.map((call) => {
      const toolCall: ToolCall = {
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.args) },
      };
      if (call.signature) toolCall.extra_content = { google: { thought_signature: call.signature } };
      return toolCall;
    });
    const message: AssistantMessage = {
      role: 'assistant',
      content: this.text === '' && toolCalls.length > 0 ? null : this.text,
    };
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    if (this.reasoning !== '') {
      message.reasoning = this.reasoning;
      message.reasoning_content = this.reasoning;
    }
    const signature = this.textSignature ?? this.fallbackSignature;
    if (signature) {
      const record = buildCarrierRecord({ signature });
      if (record) message.reasoning_details = [record];
    }
    if (this.finishRaw !== null || this.blockReason !== null)
      message.finish_reason = this.finishRaw ?? this.blockReason!;
    message.origin = { ...this.context.origin };
    message.gemini_content_parts = this.parts as JsonObject[];
    message.gemini_issuer = this.context.issuer;
    return message;
  }
}

/** Decodes a whole non-streaming `generateContent` response. */
export function decodeGeminiResponse(response: GeminiResponse, context: GeminiDecodeContext): GeminiDecodedResponse {
  if (response.error) throw geminiStreamError(response.error);
  const decoder = new GeminiDecoder(context);
  decoder.push(response);
  return decoder.completeResponse().result;
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/**
 * Applies one Vertex argument fragment at its JSONPath (`$.recipe.ingredients[0].amount`).
 * String fragments at the same path concatenate: Vertex splits long strings across chunks.
 */
export function applyPartialArgument(args: JsonObject, fragment: GeminiPartialArgument): void {
  const record = fragment as unknown as Record<string, unknown>;
  const path = typeof record['jsonPath'] === 'string' ? record['jsonPath'] : '';
  const keys = [...path.replace(/^\$/, '').matchAll(/\.([^.[\]]+)|\[(\d+)\]/g)].map((match) =>
    match[2] !== undefined ? Number(match[2]) : (match[1] ?? ''),
  );
  if (keys.length === 0) return;
  let container: JsonObject | JsonValue[] = args;
  for (let index = 0; index < keys.length - 1; index++) {
    const key = keys[index]!;
    const nextIsIndex = typeof keys[index + 1] === 'number';
    const current: JsonValue | undefined = (container as Record<string | number, JsonValue | undefined>)[key];
    if (current === undefined || current === null || typeof current !== 'object') {
      const created: JsonObject | JsonValue[] = nextIsIndex ? [] : {};
      (container as Record<string | number, JsonValue>)[key] = created;
      container = created;
    } else container = current;
  }
  const last = keys[keys.length - 1]!;
  const target = container as Record<string | number, JsonValue | undefined>;
  if (typeof record['stringValue'] === 'string') {
    const previous = target[last];
    target[last] = (typeof previous === 'string' ? previous : '') + record['stringValue'];
  } else if (typeof record['numberValue'] === 'number') target[last] = record['numberValue'];
  else if (typeof record['boolValue'] === 'boolean') target[last] = record['boolValue'];
  else if ('nullValue' in record) target[last] = null;
  else if (isJsonObject(record['structValue']) || Array.isArray(record['listValue'])) {
    target[last] = structuredClone((record['structValue'] ?? record['listValue']) as JsonValue);
  }
}

function decodeUsage(metadata: GeminiUsageMetadata | undefined): Usage | null {
  if (!metadata) return null;
  const input = metadata.promptTokenCount ?? 0;
  const reasoning = metadata.thoughtsTokenCount ?? 0;
  // Usage.outputTokens includes reasoning; Gemini reports thoughts separately from candidates.
  const output = (metadata.candidatesTokenCount ?? 0) + reasoning;
  const usage: Usage = {
    inputTokens: input,
    outputTokens: output,
    totalTokens: metadata.totalTokenCount ?? input + output,
  };
  if (metadata.thoughtsTokenCount !== undefined) usage.reasoningTokens = reasoning;
  if (metadata.cachedContentTokenCount !== undefined) usage.cacheReadTokens = metadata.cachedContentTokenCount;
  return usage;
}

const CONTENT_FILTER_REASONS = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
]);

function mapFinishReason(raw: string | null, hasCalls: boolean, blockReason: string | null): FinishReason {
  if (blockReason !== null && raw === blockReason) return { unified: 'content-filter', raw };
  if (raw === 'STOP') return { unified: hasCalls ? 'tool-calls' : 'stop', raw };
  if (raw === 'MAX_TOKENS') return { unified: 'length', raw };
  if (raw !== null && CONTENT_FILTER_REASONS.has(raw)) return { unified: 'content-filter', raw };
  if (raw === 'MALFORMED_FUNCTION_CALL' || raw === 'UNEXPECTED_TOOL_CALL') return { unified: 'error', raw };
  return { unified: hasCalls ? 'tool-calls' : 'other', raw };
}
