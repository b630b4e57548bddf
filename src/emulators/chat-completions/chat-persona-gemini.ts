import type { JsonObject } from '../../core/json.js';
import { isJsonObject } from '../../core/json.js';
import type { ScriptOutput } from '../shared/scripted-model.js';
import { openPayload, sealPayload } from '../shared/emulator-sealing.js';
import type { EmulatorAnswer } from './chat-emulator-errors.js';
import {
  geminiCorruptedSignatureError,
  geminiMissingSignatureError,
  geminiUnknownFieldError,
  googleError,
} from './chat-emulator-errors.js';
import { nativeTurnIndex, toolCallsOf } from './chat-emulator-request.js';
import type { ChatPersona, PersonaRequestContext } from './chat-persona.js';
import { firstRejection, fragmentDeltas, messageToolCalls, toolCallDeltas } from './chat-persona.js';

/**
 * Gemini through Google's OpenAI compatibility endpoint (WIRE.md §1.9). Gemini 3 puts the thought
 * signature on the first tool call as `extra_content.google.thought_signature`; a text-only answer
 * carries it at message level (`extra_content.google = {thought: true, thought_signature}`, as
 * recorded in `gemini-openai-compat/pydantic-compatible-api-tool-calls-without-id.cassette.json`).
 * The endpoint returns no readable reasoning, so the signature itself seals the reasoning text:
 * when it comes back the emulator reads the reasoning out of it for the continuity report.
 *
 * As Google documents for Gemini 3 (thought-signatures guide, "current turn" validation), only
 * the current turn is checked: every step after the last user message must bring a signature on
 * its first function call. Google's placeholder values (`skip_thought_signature_validator`,
 * `context_engineering_is_the_way_to_go`) pass that check; they carry no reasoning.
 */

const SIGNATURE_PURPOSE = 'gemini-thought-signature';
/** Reasoning reported for a signature that does not open: the continuity report calls it altered. */
const UNREADABLE_SIGNATURE = '[unreadable thought signature]';

/** Google's documented placeholder signatures (thought-signatures FAQ). */
const PLACEHOLDER_SIGNATURES = new Set(['skip_thought_signature_validator', 'context_engineering_is_the_way_to_go']);

function signatureFor(text: string, call: string | null): string {
  return sealPayload(SIGNATURE_PURPOSE, { text, call });
}

function googleExtra(object: JsonObject): string | undefined {
  const extra = object['extra_content'];
  const google = isJsonObject(extra) ? extra['google'] : undefined;
  const signature = isJsonObject(google) ? google['thought_signature'] : undefined;
  return typeof signature === 'string' && signature.trim() !== '' ? signature : undefined;
}

function firstToolCall(message: JsonObject): JsonObject | undefined {
  const calls = message['tool_calls'];
  const first = Array.isArray(calls) ? calls[0] : undefined;
  return isJsonObject(first) ? first : undefined;
}

function checkReplay(context: PersonaRequestContext): EmulatorAnswer | undefined {
  const { messages } = context.request;
  let lastUser = -1;
  messages.forEach((message, index) => {
    if (message['role'] === 'user') lastUser = index;
  });
  for (const [index, message] of messages.entries()) {
    if (message['role'] !== 'assistant') continue;
    const calls = toolCallsOf(message);
    const firstCall = calls[0];
    const firstWireCall = firstToolCall(message);
    if (!firstCall || !firstWireCall) continue;
    const signature = googleExtra(firstWireCall);
    if (signature === undefined) {
      if (index < lastUser || context.rejectedKeys.has('extra_content')) continue;
      return geminiMissingSignatureError(firstCall.name, nativeTurnIndex(messages, index) + 1);
    }
    if (PLACEHOLDER_SIGNATURES.has(signature)) continue;
    const payload = openPayload(SIGNATURE_PURPOSE, signature);
    if (!isJsonObject(payload) || payload['call'] !== firstCall.id) return geminiCorruptedSignatureError();
  }
  return undefined;
}

function readReasoning(message: JsonObject): string | undefined {
  const call = firstToolCall(message);
  const signature = (call ? googleExtra(call) : undefined) ?? googleExtra(message);
  // A placeholder brings no reasoning back: the turn's reasoning is missing.
  if (signature === undefined || PLACEHOLDER_SIGNATURES.has(signature)) return undefined;
  const payload = openPayload(SIGNATURE_PURPOSE, signature);
  return isJsonObject(payload) && typeof payload['text'] === 'string' ? payload['text'] : UNREADABLE_SIGNATURE;
}

/**
 * Every turn this persona issues carries a signature (on its first tool call, or at message
 * level), so a turn with none or with a placeholder is another model's (SPEC §26.8).
 */
function foreignTurn(message: JsonObject): boolean {
  const call = firstToolCall(message);
  const signature = (call ? googleExtra(call) : undefined) ?? googleExtra(message);
  return signature === undefined || PLACEHOLDER_SIGNATURES.has(signature);
}

/** The `gemini-openai` persona. */
export const geminiOpenAiPersona: ChatPersona = {
  name: 'gemini-openai',
  summary:
    "Gemini OpenAI-compat: extra_content.google.thought_signature on the first tool call; Google's 400 without it",
  defaultModel: 'gemini-3-pro-preview',
  strict: false,
  acceptedAssistantKeys: [],
  acceptedToolCallKeys: [],
  rejectKeys: (rejections) => {
    const rejection = firstRejection(rejections);
    return geminiUnknownFieldError(rejection);
  },
  readReasoning,
  foreignTurn,
  checkReplay,
  message(output: ScriptOutput) {
    const message: JsonObject = { role: 'assistant', content: output.content === '' ? null : output.content };
    if (output.toolCalls.length > 0) {
      message['tool_calls'] = messageToolCalls(output, (index) => {
        const call = output.toolCalls[index];
        return index === 0 && call
          ? { extra_content: { google: { thought_signature: signatureFor(output.reasoning, call.id) } } }
          : {};
      });
    } else {
      message['extra_content'] = { google: { thought: true, thought_signature: signatureFor(output.reasoning, null) } };
    }
    return message;
  },
  deltas(output: ScriptOutput) {
    const content = fragmentDeltas(output.content, (fragment) => ({ content: fragment, role: 'assistant' }));
    const last = content[content.length - 1];
    if (output.toolCalls.length === 0 && last) {
      last['extra_content'] = { google: { thought: true, thought_signature: signatureFor(output.reasoning, null) } };
    }
    return [
      ...content,
      // Google sends each tool call whole, in one delta, the signature on the first call.
      ...toolCallDeltas(output, {
        whole: true,
        decorate: (index) => {
          const call = output.toolCalls[index];
          return index === 0 && call
            ? { extra_content: { google: { thought_signature: signatureFor(output.reasoning, call.id) } } }
            : {};
        },
      }),
    ];
  },
  finalDelta: { role: 'assistant' },
  usageOnFinishChunk: false,
  completionExtras: {},
  choiceExtras: () => ({}),
  errorEnvelope: (status, message) =>
    googleError(
      status,
      message,
      status === 429
        ? 'RESOURCE_EXHAUSTED'
        : status >= 500
          ? 'INTERNAL'
          : status === 404
            ? 'NOT_FOUND'
            : 'INVALID_ARGUMENT',
    ),
  contextLengthMessage: (limit, used) =>
    `The input token count (${used}) exceeds the maximum number of tokens allowed (${limit}).`,
};
