import type { JsonObject } from '../../core/json.js';
import type { ScriptInput, ScriptMessage, ScriptOutput } from '../shared/scripted-model.js';
import { estimateTokens } from '../shared/emulator-text.js';
import type { ChatWireRequest } from './chat-emulator-request.js';
import { contentText, estimateRequestTokens, toolCallsOf } from './chat-emulator-request.js';
import type { ChatPersona } from './chat-persona.js';

/**
 * Turning a request into the scripted model's input, and the scripted model's output into a
 * chat completion or a list of stream chunks in the persona's shape.
 */

/** Identity of one completion (shared by all its chunks). */
export interface CompletionFrame {
  id: string;
  created: number;
  model: string;
}

/** What the scripted model sees: text, tool calls, and the reasoning the persona reads back. */
export function scriptInputFor(request: ChatWireRequest, persona: ChatPersona): ScriptInput {
  const messages = request.messages.map((message): ScriptMessage => {
    const role = message['role'];
    const scriptRole: ScriptMessage['role'] =
      role === 'assistant' || role === 'tool' || role === 'user'
        ? role
        : role === 'system' || role === 'developer'
          ? 'system'
          : 'user';
    const scriptMessage: ScriptMessage = { role: scriptRole, text: contentText(message['content']) };
    if (scriptRole === 'assistant') {
      const calls = toolCallsOf(message);
      if (calls.length > 0) scriptMessage.toolCalls = calls;
      const reasoning = persona.readReasoning(message);
      if (reasoning !== undefined) scriptMessage.reasoning = reasoning;
      else if (persona.foreignTurn?.(message) === true) scriptMessage.foreign = true;
    }
    if (scriptRole === 'tool' && typeof message['tool_call_id'] === 'string') {
      scriptMessage.toolCallId = message['tool_call_id'];
    }
    return scriptMessage;
  });
  return { messages, tools: request.tools };
}

/** Usage with `completion_tokens_details.reasoning_tokens`. */
export function usageFor(request: ChatWireRequest, output: ScriptOutput): JsonObject {
  const promptTokens = estimateRequestTokens(request);
  const reasoningTokens = estimateTokens(output.reasoning);
  const completionTokens =
    reasoningTokens +
    estimateTokens(output.content) +
    output.toolCalls.reduce((sum, call) => sum + estimateTokens(call.name + call.arguments), 0);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    completion_tokens_details: { reasoning_tokens: reasoningTokens },
  };
}

/** `tool_calls` when the model called a tool, else `stop`. */
export function finishReasonFor(output: ScriptOutput): string {
  return output.toolCalls.length > 0 ? 'tool_calls' : 'stop';
}

/** The non-streaming `chat.completion` body. */
export function completionBody(
  persona: ChatPersona,
  frame: CompletionFrame,
  output: ScriptOutput,
  usage: JsonObject,
): JsonObject {
  const finishReason = finishReasonFor(output);
  return {
    id: frame.id,
    object: 'chat.completion',
    created: frame.created,
    model: frame.model,
    ...persona.completionExtras,
    choices: [
      {
        index: 0,
        message: persona.message(output),
        finish_reason: finishReason,
        ...persona.choiceExtras(finishReason),
      },
    ],
    usage,
  };
}

function chunk(
  persona: ChatPersona,
  frame: CompletionFrame,
  choices: JsonObject[],
  extra: JsonObject = {},
): JsonObject {
  return {
    id: frame.id,
    object: 'chat.completion.chunk',
    created: frame.created,
    model: frame.model,
    ...persona.completionExtras,
    choices,
    ...extra,
  };
}

/** Every `data:` payload of the stream, in order (without the closing `[DONE]`). */
export function streamChunks(
  persona: ChatPersona,
  frame: CompletionFrame,
  output: ScriptOutput,
  usage: JsonObject,
): JsonObject[] {
  const choice = (delta: JsonObject, finishReason: string | null): JsonObject => ({
    index: 0,
    delta,
    finish_reason: finishReason,
    ...persona.choiceExtras(finishReason),
  });
  const chunks = persona.deltas(output).map((delta) => chunk(persona, frame, [choice(delta, null)]));
  const finishReason = finishReasonFor(output);
  if (persona.usageOnFinishChunk) {
    chunks.push(chunk(persona, frame, [choice(persona.finalDelta, finishReason)], { usage }));
  } else {
    chunks.push(chunk(persona, frame, [choice(persona.finalDelta, finishReason)]));
    chunks.push(chunk(persona, frame, [], { usage }));
  }
  return chunks;
}

/** OpenRouter's in-band failure: a chunk with `error` and `finish_reason: "error"`. */
export function errorChunk(persona: ChatPersona, frame: CompletionFrame): JsonObject {
  return chunk(
    persona,
    frame,
    [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: 'error', ...persona.choiceExtras('error') }],
    { error: { code: 502, message: 'Upstream error from provider: connection reset by peer' } },
  );
}
