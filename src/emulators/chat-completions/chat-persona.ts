import type { JsonObject } from '../../core/json.js';
import type { ScriptOutput } from '../shared/scripted-model.js';
import { splitIntoFragments } from '../shared/emulator-text.js';
import type { EmulatorAnswer, KeyRejection } from './chat-emulator-errors.js';
import { openAiStyleError } from './chat-emulator-errors.js';
import type { ChatWireRequest } from './chat-emulator-request.js';
import type { ChatPersonaName } from './chat-emulator-types.js';

/**
 * What a persona is: data (defaults, accepted keys) plus the few functions that differ between
 * providers (how reasoning is returned, read back and verified, and the error envelope). The
 * server (`chat-emulator.ts`) runs the same pipeline for every persona.
 */

/** What replay checks see. */
export interface PersonaRequestContext {
  request: ChatWireRequest;
  /** Exact request body text (some providers derive request ids from it). */
  raw: string;
  /** Keys this instance was told to reject: a persona never requires a key it rejects. */
  rejectedKeys: ReadonlySet<string>;
}

/** One provider behaviour. */
export interface ChatPersona {
  name: ChatPersonaName;
  /** One line for `hermes emulate chat --help`. */
  summary: string;
  defaultModel: string;
  /** Strict schema: any assistant / tool-call / function key not accepted is rejected. */
  strict: boolean;
  /** Assistant-message keys accepted beyond `role`, `content`, `name`, `tool_calls` (strict personas). */
  acceptedAssistantKeys: readonly string[];
  /** Tool-call keys accepted beyond `id`, `type`, `function` (strict personas). */
  acceptedToolCallKeys: readonly string[];
  /** The provider's unknown-field answer for the offending keys (in request order). */
  rejectKeys(rejections: readonly KeyRejection[], context: PersonaRequestContext): EmulatorAnswer;
  /** Readable reasoning this provider reads back from one earlier assistant message. */
  readReasoning(message: JsonObject): string | undefined;
  /**
   * A signed persona's test of an earlier assistant message that brought no reasoning back: true
   * when the message carries none of the marks this provider puts on every turn it issues, so it
   * is another model's turn (SPEC §26.8: counted apart, never as missing). Unsigned personas
   * cannot tell and leave it out.
   */
  foreignTurn?(message: JsonObject): boolean;
  /** Provider-specific replay rules (must-echo, signatures); an answer means "reject with this". */
  checkReplay(context: PersonaRequestContext): EmulatorAnswer | undefined;
  /** The non-streaming `choices[0].message`. */
  message(output: ScriptOutput): JsonObject;
  /** Stream deltas in order (the server adds the finish chunk and the usage). */
  deltas(output: ScriptOutput): JsonObject[];
  /** Delta of the chunk that carries `finish_reason`. */
  finalDelta: JsonObject;
  /** DeepSeek puts `usage` on the finish chunk; others send a separate usage chunk. */
  usageOnFinishChunk: boolean;
  /** Extra top-level fields of every completion and chunk (OpenRouter's `provider`). */
  completionExtras: JsonObject;
  /** Extra fields of every choice (OpenRouter's `native_finish_reason`, `logprobs`). */
  choiceExtras(finishReason: string | null): JsonObject;
  /** SSE comment sent before the first chunk (OpenRouter's `OPENROUTER PROCESSING` keep-alive). */
  streamComment?: string;
  /** The provider's generic error envelope (faults, context length). */
  errorEnvelope(status: number, message: string): EmulatorAnswer;
  /** The provider's context-length message. */
  contextLengthMessage(limit: number, used: number): string;
}

/** Assistant keys every persona accepts. */
export const BASE_ASSISTANT_KEYS: readonly string[] = ['role', 'content', 'name', 'tool_calls'];
/** Tool-call keys every persona accepts. */
export const BASE_TOOL_CALL_KEYS: readonly string[] = ['id', 'type', 'function'];
/** Tool-call `function` keys every persona accepts. */
export const BASE_FUNCTION_KEYS: readonly string[] = ['name', 'arguments'];

/** Every key that carries reasoning back on some route (used by `rejectAlways`). */
export const CARRIER_KEYS: readonly string[] = [
  'reasoning_content',
  'reasoning',
  'reasoning_details',
  'reasoning_text',
  'reasoning_opaque',
  'extra_content',
  'thought_signature',
];

/** OpenAI's context-length wording (DeepSeek, Groq, Cerebras, Fireworks and local servers reuse it). */
export function openAiContextLengthMessage(limit: number, used: number): string {
  return `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${used} tokens. Please reduce the length of the messages.`;
}

/** OpenAI-style generic envelope with a type chosen by status. */
export function openAiEnvelope(status: number, message: string): EmulatorAnswer {
  const type = status === 429 ? 'rate_limit_error' : status >= 500 ? 'server_error' : 'invalid_request_error';
  const code = status === 400 && message.includes('maximum context length') ? 'context_length_exceeded' : null;
  return openAiStyleError(status, message, type, code);
}

/** Non-streaming `tool_calls`, each optionally decorated (Gemini `extra_content`). */
export function messageToolCalls(
  output: ScriptOutput,
  decorate: (index: number) => JsonObject = () => ({}),
): JsonObject[] {
  return output.toolCalls.map((call, index) => ({
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
    ...decorate(index),
  }));
}

/** Options of {@link toolCallDeltas}. */
export interface ToolCallDeltaOptions {
  /** Send each call whole in one delta (Mistral, Copilot, Gemini) instead of argument fragments. */
  whole?: boolean;
  /** Fields added to the first delta of call `index`. */
  decorate?: (index: number) => JsonObject;
  /** A delta emitted right before call `index` (Copilot's fresh opaque). */
  before?: (index: number) => JsonObject | undefined;
  /** Include `type: "function"` in the first delta (default true). */
  includeType?: boolean;
}

/** Stream deltas of the tool calls: a header delta, then argument fragments (OpenAI style). */
export function toolCallDeltas(output: ScriptOutput, options: ToolCallDeltaOptions = {}): JsonObject[] {
  const deltas: JsonObject[] = [];
  output.toolCalls.forEach((call, index) => {
    const before = options.before?.(index);
    if (before) deltas.push(before);
    const header: JsonObject = { index, id: call.id };
    if (options.includeType !== false) header['type'] = 'function';
    const decoration = options.decorate?.(index) ?? {};
    if (options.whole) {
      deltas.push({
        tool_calls: [{ ...header, function: { name: call.name, arguments: call.arguments }, ...decoration }],
      });
      return;
    }
    deltas.push({ tool_calls: [{ ...header, function: { name: call.name, arguments: '' }, ...decoration }] });
    for (const fragment of splitIntoFragments(call.arguments, 8)) {
      deltas.push({ tool_calls: [{ index, function: { arguments: fragment } }] });
    }
  });
  return deltas;
}

/** One delta per fragment of `text`. */
export function fragmentDeltas(text: string, build: (fragment: string) => JsonObject, size = 12): JsonObject[] {
  return splitIntoFragments(text, size).map(build);
}

/** The first key rejection; `rejectKeys` is only called with at least one. */
export function firstRejection(rejections: readonly KeyRejection[]): KeyRejection {
  const rejection = rejections[0];
  if (!rejection) throw new Error('rejectKeys called without a rejection');
  return rejection;
}
