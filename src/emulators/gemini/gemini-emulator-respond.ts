import type { ScriptOutput } from '../shared/scripted-model.js';
import type { GeminiPart, GeminiResponse } from '../../transports/gemini/gemini-wire.js';
import { functionCallBinding, signPart, TEXT_BINDING, type EmulatorIssuer } from './gemini-emulator-signatures.js';

/**
 * Turns the scripted model's answer into Gemini wire shapes, the way Gemini 3 answers
 * (WIRE.md §4.2–4.3): thought summary parts first (only with `includeThoughts`), then either
 * function calls with the signature on the first call of the step, or text whose signature sits
 * on the last text part — in a stream, on a trailing EMPTY text part in the final chunk.
 */

/** What a response is built from. */
export interface EmulatorAnswer {
  output: ScriptOutput;
  issuer: EmulatorIssuer;
  model: string;
  includeThoughts: boolean;
  responseId: string;
}

/** The non-streaming `generateContent` response. */
export function buildResponse(answer: EmulatorAnswer): GeminiResponse {
  const parts: GeminiPart[] = [...thoughtParts(answer), ...callParts(answer)];
  if (answer.output.toolCalls.length === 0) {
    parts.push({ text: answer.output.content, thoughtSignature: textSignature(answer) });
  }
  return envelope(answer, parts, true);
}

/** The `streamGenerateContent` chunks, in order. */
export function buildChunks(answer: EmulatorAnswer): GeminiResponse[] {
  const chunks: GeminiResponse[] = [];
  const thoughts = thoughtParts(answer);
  if (thoughts.length > 0) chunks.push(envelope(answer, thoughts, false));
  if (answer.output.toolCalls.length > 0) {
    // A function call arrives whole with its signature; a trailing `{"text":""}` chunk carries finishReason.
    chunks.push(envelope(answer, callParts(answer), false));
    chunks.push(envelope(answer, [{ text: '' }], true));
    return chunks;
  }
  for (const piece of splitText(answer.output.content)) chunks.push(envelope(answer, [{ text: piece }], false));
  chunks.push(envelope(answer, [{ text: '', thoughtSignature: textSignature(answer) }], true));
  return chunks;
}

function thoughtParts(answer: EmulatorAnswer): GeminiPart[] {
  return answer.includeThoughts ? [{ text: answer.output.reasoning, thought: true }] : [];
}

function callParts(answer: EmulatorAnswer): GeminiPart[] {
  return answer.output.toolCalls.map((call, index) => {
    const args = JSON.parse(call.arguments) as Record<string, string>;
    const part: GeminiPart = { functionCall: { name: call.name, args } };
    // Parallel calls: only the first call of a step is signed (ai.google.dev thought-signatures docs).
    if (index === 0) {
      part.thoughtSignature = signPart(
        answer.issuer,
        answer.model,
        functionCallBinding(call.name, args),
        answer.output.reasoning,
      );
    }
    return part;
  });
}

function textSignature(answer: EmulatorAnswer): string {
  return signPart(answer.issuer, answer.model, TEXT_BINDING, answer.output.reasoning);
}

function envelope(answer: EmulatorAnswer, parts: GeminiPart[], final: boolean): GeminiResponse {
  const candidate: Record<string, unknown> = { content: { parts, role: 'model' }, index: 0 };
  if (final) candidate['finishReason'] = 'STOP';
  const output = answer.output;
  const candidatesTokenCount = estimateTokens(output.content + output.toolCalls.map((call) => call.arguments).join(''));
  const thoughtsTokenCount = estimateTokens(output.reasoning);
  return {
    candidates: [candidate],
    usageMetadata: {
      promptTokenCount: 10,
      candidatesTokenCount,
      thoughtsTokenCount,
      totalTokenCount: 10 + candidatesTokenCount + thoughtsTokenCount,
    },
    modelVersion: answer.model,
    responseId: answer.responseId,
  } as GeminiResponse;
}

function splitText(text: string): string[] {
  if (text.length < 12) return [text];
  const third = Math.ceil(text.length / 3);
  return [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)];
}

function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}
