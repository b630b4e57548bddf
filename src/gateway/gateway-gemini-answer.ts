import type { JsonObject } from '../core/json.js';
import type { ToolCall } from '../core/message.js';
import type { GatewayHttpError } from './gateway-errors.js';
import { answerEvents, type DoorStreamWriter } from './gateway-front-door-stream.js';
import type { FrontDoorAnswer } from './gateway-front-door.js';
import { toolInput } from './gateway-messages-answer.js';
import { randomHex } from './gateway-random-ids.js';

/**
 * A front-door answer as a Gemini `generateContent` response (WIRE §4.2, §4.3): one candidate
 * whose content is the thought part (readable reasoning, when the request asked for thoughts),
 * the text, then the function calls. The sealed handle rides in the `thoughtSignature` of the
 * parts clients keep: the first text part and the first function call (Gemini CLI drops thought
 * parts, and joins the text parts of an answer into the first one, keeping only that part's
 * signature); an answer with neither gets an empty text part with it, as Gemini ends a stream.
 *
 * Streamed, thoughts go out live; the handle is sealed over the complete answer, and text that
 * follows reasoning is held until then anyway (gateway-front-door-stream.ts), so its first chunk
 * carries the handle. Text that comes before any reasoning streams live, and the handle follows
 * in a closing empty part (Gemini CLI drops that one: its session copy restores the turn,
 * SPEC §26.1). The calls, the finish reason and usage close the stream in one chunk.
 */

/** What every chunk and response of one answer repeats. */
export interface GeminiAnswerIdentity {
  /** The model the client asked for (its path), not the route's id. */
  modelVersion: string;
  responseId: string;
  /** Return thought parts (`thinkingConfig.includeThoughts`). */
  includeThoughts: boolean;
  /** The request's token estimate, for usage when the provider reported none. */
  estimatedInput: number;
}

/** A fresh response id. */
export function geminiResponseId(): string {
  return randomHex(16);
}

/** Gemini's finish reason for an answer (a function call is `STOP`, as Gemini sends it). */
function finishReason(answer: FrontDoorAnswer): string {
  switch (answer.finishReason?.unified) {
    case 'length':
      return 'MAX_TOKENS';
    case 'content-filter':
      return 'SAFETY';
    default:
      return 'STOP';
  }
}

/** `usageMetadata`: `candidatesTokenCount` excludes the thoughts, as Gemini counts them. */
function usageMetadata(answer: FrontDoorAnswer, estimatedInput: number): JsonObject {
  const usage = answer.usage;
  if (!usage) return { promptTokenCount: estimatedInput, candidatesTokenCount: 0, totalTokenCount: estimatedInput };
  const thoughts = usage.reasoningTokens ?? 0;
  const metadata: JsonObject = {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: Math.max(0, usage.outputTokens - thoughts),
    totalTokenCount: usage.totalTokens || usage.inputTokens + usage.outputTokens,
  };
  if (thoughts > 0) metadata['thoughtsTokenCount'] = thoughts;
  if (usage.cacheReadTokens) metadata['cachedContentTokenCount'] = usage.cacheReadTokens;
  return metadata;
}

/** The function-call parts of an answer, the handle on the first. */
function callParts(calls: readonly ToolCall[], handle: string): JsonObject[] {
  return calls.map((call, index) => {
    const part: JsonObject = { functionCall: { name: call.function.name, args: toolInput(call), id: call.id } };
    if (index === 0) part['thoughtSignature'] = handle;
    return part;
  });
}

/** One response (or chunk) around `parts`. */
function responseObject(identity: GeminiAnswerIdentity, parts: JsonObject[], closing?: JsonObject): JsonObject {
  const candidate: JsonObject = { content: { role: 'model', parts }, index: 0 };
  const body: JsonObject = { candidates: [candidate] };
  if (closing) {
    candidate['finishReason'] = closing['finishReason'];
    body['usageMetadata'] = closing['usageMetadata'];
  }
  body['modelVersion'] = identity.modelVersion;
  body['responseId'] = identity.responseId;
  return body;
}

function closingFields(answer: FrontDoorAnswer, identity: GeminiAnswerIdentity): JsonObject {
  return { finishReason: finishReason(answer), usageMetadata: usageMetadata(answer, identity.estimatedInput) };
}

/** The non-streaming response body. */
export function geminiResponseBody(answer: FrontDoorAnswer, identity: GeminiAnswerIdentity): JsonObject {
  const parts: JsonObject[] = [];
  for (const event of answerEvents(answer)) {
    if (event.type === 'reasoning-end' && identity.includeThoughts && event.text !== '') {
      parts.push({ text: event.text, thought: true });
    } else if (event.type === 'text-end' && event.text !== '') parts.push({ text: event.text });
  }
  const calls = answer.message.tool_calls ?? [];
  const text = parts.find((part) => part['thought'] !== true);
  if (text) text['thoughtSignature'] = answer.handle;
  if (calls.length > 0) parts.push(...callParts(calls, answer.handle));
  else if (!text) parts.push({ text: '', thoughtSignature: answer.handle });
  return responseObject(identity, parts, closingFields(answer, identity));
}

/** The SSE writer of a streamed answer (`:streamGenerateContent?alt=sse`). */
export function geminiStreamWriter(
  send: (event: string | null, data: string) => void,
  identity: GeminiAnswerIdentity,
): DoorStreamWriter {
  const chunk = (parts: JsonObject[], closing?: JsonObject) =>
    send(null, JSON.stringify(responseObject(identity, parts, closing)));
  // The handle is known once the reasoning closes; the first text chunk after it carries it.
  let handle: string | null = null;
  let handleSent = false;
  return {
    open() {
      // Gemini's stream has no opening event: the first chunk is the first part.
    },
    event(event) {
      if (event.type === 'reasoning-delta' && identity.includeThoughts) chunk([{ text: event.text, thought: true }]);
      else if (event.type === 'reasoning-end') handle = event.handle;
      else if (event.type === 'text-delta') {
        const part: JsonObject = { text: event.text };
        if (handle !== null && !handleSent) {
          part['thoughtSignature'] = handle;
          handleSent = true;
        }
        chunk([part]);
      }
    },
    close(answer) {
      const calls = answer.message.tool_calls ?? [];
      const parts = calls.length > 0 ? callParts(calls, answer.handle) : [];
      if (calls.length === 0 && !handleSent) parts.push({ text: '', thoughtSignature: answer.handle });
      chunk(parts, closingFields(answer, identity));
    },
    fail(error: GatewayHttpError) {
      send(null, JSON.stringify(googleErrorBody(error)));
    },
  };
}

/** Google's `status` name for an HTTP status (google.rpc.Code, WIRE §4.5). */
function statusName(status: number): string {
  switch (status) {
    case 400:
    case 413:
      return 'INVALID_ARGUMENT';
    case 401:
      return 'UNAUTHENTICATED';
    case 403:
      return 'PERMISSION_DENIED';
    case 404:
      return 'NOT_FOUND';
    case 409:
      return 'ABORTED';
    case 429:
      return 'RESOURCE_EXHAUSTED';
    case 500:
      return 'INTERNAL';
    default:
      return 'UNAVAILABLE';
  }
}

/** The Google error body for a failure (also the error chunk of a stream). */
export function googleErrorBody(error: GatewayHttpError): { error: { code: number; message: string; status: string } } {
  return { error: { code: error.status, message: error.message, status: statusName(error.status) } };
}
