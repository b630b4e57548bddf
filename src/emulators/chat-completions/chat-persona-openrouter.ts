import { createHash } from 'node:crypto';
import type { JsonObject } from '../../core/json.js';
import { isJsonObject } from '../../core/json.js';
import type { ScriptOutput } from '../shared/scripted-model.js';
import { openPayload, sealPayload, signText, verifyTextSignature } from '../shared/emulator-sealing.js';
import type { EmulatorAnswer } from './chat-emulator-errors.js';
import {
  anthropicRequestId,
  openRouterExtraInputError,
  openRouterInvalidSignatureError,
  openRouterMissingThinkingError,
} from './chat-emulator-errors.js';
import { contentText, nativeTurnIndex, stringField, toolCallsOf } from './chat-emulator-request.js';
import type { ChatPersona, PersonaRequestContext } from './chat-persona.js';
import { firstRejection, fragmentDeltas, messageToolCalls, toolCallDeltas } from './chat-persona.js';

/**
 * OpenRouter in front of a reasoning model that signs its thinking (WIRE.md §1.7). Every answer
 * carries `reasoning` plus `reasoning_details`: a `reasoning.text` entry with a `signature`
 * (Anthropic format) and a `reasoning.encrypted` entry with `data` (OpenAI Responses format).
 * Both are verifiable without state: signature = HMAC of the text; data = HMAC-sealed JSON of
 * the text; the encrypted id is derived from the text. A later request must bring every detail
 * back unchanged, or Anthropic's own error comes back inside OpenRouter's envelope.
 */

const THINKING_SIGNATURE_PURPOSE = 'openrouter-thinking-signature';
const ENCRYPTED_REASONING_PURPOSE = 'openrouter-encrypted-reasoning';

/** Deterministic `rs_…` id of the encrypted item for `text`. */
function encryptedItemId(text: string): string {
  return `rs_${createHash('sha256').update('openrouter-item').update('\0').update(text).digest('hex').slice(0, 32)}`;
}

/** The two reasoning details issued for `text` (non-streaming shape). */
export function openRouterReasoningDetails(text: string): JsonObject[] {
  return [
    {
      type: 'reasoning.text',
      text,
      signature: signText(THINKING_SIGNATURE_PURPOSE, text),
      format: 'anthropic-claude-v1',
      index: 0,
    },
    {
      type: 'reasoning.encrypted',
      data: sealPayload(ENCRYPTED_REASONING_PURPOSE, { text }),
      id: encryptedItemId(text),
      format: 'openai-responses-v1',
      index: 1,
    },
  ];
}

type DetailsVerdict = { kind: 'none' } | { kind: 'invalid' } | { kind: 'valid'; text: string };

/** Checks the details of one assistant message against what this persona issues. */
function verifyDetails(message: JsonObject): DetailsVerdict {
  const details = message['reasoning_details'];
  if (!Array.isArray(details)) return { kind: 'none' };
  const texts: string[] = [];
  const sealed: string[] = [];
  for (const detail of details) {
    if (!isJsonObject(detail)) continue;
    if (detail['type'] === 'reasoning.text') {
      const text = detail['text'];
      const signature = detail['signature'];
      if (typeof text !== 'string' || typeof signature !== 'string') return { kind: 'invalid' };
      if (!verifyTextSignature(THINKING_SIGNATURE_PURPOSE, text, signature)) return { kind: 'invalid' };
      texts.push(text);
    } else if (detail['type'] === 'reasoning.encrypted') {
      const data = detail['data'];
      const payload = typeof data === 'string' ? openPayload(ENCRYPTED_REASONING_PURPOSE, data) : undefined;
      if (!isJsonObject(payload) || typeof payload['text'] !== 'string') return { kind: 'invalid' };
      if (detail['id'] !== encryptedItemId(payload['text'])) return { kind: 'invalid' };
      sealed.push(payload['text']);
    }
  }
  if (texts.length === 0 && sealed.length === 0) return { kind: 'none' };
  // Every detail issued must come back: a signed text without its encrypted twin (or the
  // reverse) means the client dropped or rewrote part of the turn.
  const pairs = texts.length === sealed.length && texts.every((text, position) => sealed[position] === text);
  return pairs ? { kind: 'valid', text: texts.join('') } : { kind: 'invalid' };
}

function checkReplay(context: PersonaRequestContext): EmulatorAnswer | undefined {
  const { messages } = context.request;
  const requestId = anthropicRequestId(context.raw);
  // Anthropic (WIRE.md §2.4, §2.6a) requires thinking only on the in-flight tool loop: the
  // assistant tool-call turns after the last user message. Earlier turns may lack it.
  let lastUser = -1;
  messages.forEach((message, index) => {
    if (message['role'] === 'user') lastUser = index;
  });
  for (const [index, message] of messages.entries()) {
    if (message['role'] !== 'assistant') continue;
    const verdict = verifyDetails(message);
    const turn = nativeTurnIndex(messages, index);
    if (verdict.kind === 'invalid') return openRouterInvalidSignatureError(turn, requestId);
    const requiresThinking =
      index > lastUser && !context.rejectedKeys.has('reasoning_details') && toolCallsOf(message).length > 0;
    if (verdict.kind === 'none' && requiresThinking) {
      const found = contentText(message['content']) === '' ? 'tool_use' : 'text';
      return openRouterMissingThinkingError(turn, found, requestId);
    }
  }
  return undefined;
}

/** The `openrouter` persona. */
export const openRouterPersona: ChatPersona = {
  name: 'openrouter',
  summary: 'OpenRouter: reasoning + signed reasoning_details; 400 (Anthropic text) if a detail is altered or missing',
  defaultModel: 'anthropic/claude-sonnet-4.5',
  strict: false,
  acceptedAssistantKeys: [],
  acceptedToolCallKeys: [],
  rejectKeys: (rejections, context) => {
    const rejection = firstRejection(rejections);
    return openRouterExtraInputError(rejection, anthropicRequestId(context.raw));
  },
  readReasoning(message) {
    const verdict = verifyDetails(message);
    if (verdict.kind === 'valid') return verdict.text;
    return stringField(message, 'reasoning');
  },
  checkReplay,
  message(output: ScriptOutput) {
    const message: JsonObject = {
      role: 'assistant',
      content: output.content,
      refusal: null,
      reasoning: output.reasoning,
      reasoning_details: openRouterReasoningDetails(output.reasoning),
    };
    if (output.toolCalls.length > 0) message['tool_calls'] = messageToolCalls(output);
    return message;
  },
  deltas(output: ScriptOutput) {
    const [textDetail, encryptedDetail] = openRouterReasoningDetails(output.reasoning);
    const frame = (fields: JsonObject): JsonObject => ({
      role: 'assistant',
      content: '',
      reasoning: null,
      reasoning_details: [],
      ...fields,
    });
    return [
      frame({}),
      ...fragmentDeltas(output.reasoning, (fragment) =>
        frame({
          reasoning: fragment,
          reasoning_details: [{ type: 'reasoning.text', text: fragment, format: 'anthropic-claude-v1', index: 0 }],
        }),
      ),
      // Recorded Claude streams send the signature last, in a fragment with empty text.
      frame({
        reasoning_details: [
          {
            type: 'reasoning.text',
            text: '',
            signature: textDetail?.['signature'] ?? '',
            format: 'anthropic-claude-v1',
            index: 0,
          },
        ],
      }),
      // Encrypted details arrive whole, in one chunk.
      frame({ reasoning_details: encryptedDetail ? [encryptedDetail] : [] }),
      ...fragmentDeltas(output.content, (fragment) => frame({ content: fragment })),
      ...toolCallDeltas(output),
    ];
  },
  finalDelta: { role: 'assistant', content: '', reasoning: null, reasoning_details: [] },
  usageOnFinishChunk: false,
  streamComment: 'OPENROUTER PROCESSING',
  completionExtras: { provider: 'Anthropic' },
  choiceExtras: (finishReason) => ({ native_finish_reason: finishReason, logprobs: null }),
  errorEnvelope: (status, message) => ({ status, body: JSON.stringify({ error: { message, code: status } }) }),
  contextLengthMessage: (limit, used) =>
    `This endpoint's maximum context length is ${limit} tokens. However, you requested about ${used} tokens (${used} of text input). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.`,
};
