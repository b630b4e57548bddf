import type { JsonObject } from '../../core/json.js';
import { isJsonObject } from '../../core/json.js';
import type { ScriptOutput } from '../shared/scripted-model.js';
import { openPayload, sealPayload } from '../shared/emulator-sealing.js';
import type { EmulatorAnswer } from './chat-emulator-errors.js';
import {
  copilotError,
  copilotInvalidOpaqueError,
  copilotMissingOpaqueError,
  copilotUnknownFieldError,
} from './chat-emulator-errors.js';
import { nativeTurnIndex, stringField, toolCallsOf } from './chat-emulator-request.js';
import type { ChatPersona, PersonaRequestContext } from './chat-persona.js';
import {
  firstRejection,
  fragmentDeltas,
  messageToolCalls,
  openAiContextLengthMessage,
  toolCallDeltas,
} from './chat-persona.js';

/**
 * GitHub Copilot `/chat/completions` (WIRE.md §1.8): message-level `reasoning_text` and
 * `reasoning_opaque`. Claude-on-Copilot streams a fresh opaque before each tool call, superseding
 * the earlier one (SPEC §7.3), and the assistant tool-call message must come back with the latest
 * opaque. An opaque is an HMAC-sealed `{text, call, n}`: `call` binds it to the tool call it
 * preceded (`null` for the one issued after the reasoning), so a stale or altered opaque fails.
 * Like the models behind it (Anthropic's in-flight tool loop, Vertex's current turn), only the
 * tool-call turns after the last user message must bring their opaque. No evidence shows that
 * Copilot forwards Google's placeholder signatures, so a placeholder is an invalid opaque here.
 */

const OPAQUE_PURPOSE = 'copilot-reasoning-opaque';

function opaqueFor(text: string, call: string | null, sequence: number): string {
  return sealPayload(OPAQUE_PURPOSE, { text, call, n: sequence });
}

/** The opaque a non-streaming answer carries: the one bound to the last tool call, if any. */
function latestOpaque(output: ScriptOutput): string {
  const last = output.toolCalls[output.toolCalls.length - 1];
  return last ? opaqueFor(output.reasoning, last.id, output.toolCalls.length) : opaqueFor(output.reasoning, null, 0);
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
    const opaque = stringField(message, 'reasoning_opaque');
    if (opaque === undefined) {
      const firstCall = calls[0];
      if (firstCall && index > lastUser && !context.rejectedKeys.has('reasoning_opaque')) {
        return copilotMissingOpaqueError(firstCall.name, nativeTurnIndex(messages, index) + 1);
      }
      continue;
    }
    const payload = openPayload(OPAQUE_PURPOSE, opaque);
    if (!isJsonObject(payload)) return copilotInvalidOpaqueError();
    const lastCall = calls[calls.length - 1];
    // Only the opaque issued right before the last tool call is accepted on a tool-call turn.
    if (lastCall && payload['call'] !== lastCall.id) return copilotInvalidOpaqueError();
  }
  return undefined;
}

/** The `copilot` persona. */
export const copilotPersona: ChatPersona = {
  name: 'copilot',
  summary: 'GitHub Copilot: reasoning_text + reasoning_opaque (fresh before each tool call); 400 without the latest',
  defaultModel: 'claude-sonnet-4.5',
  strict: false,
  acceptedAssistantKeys: [],
  acceptedToolCallKeys: [],
  rejectKeys: (rejections) => {
    const rejection = firstRejection(rejections);
    return copilotUnknownFieldError(rejection);
  },
  readReasoning: (message) => stringField(message, 'reasoning_text'),
  // Every turn Copilot issues carries `reasoning_opaque`; one without it is another model's (SPEC §26.8).
  foreignTurn: (message) => stringField(message, 'reasoning_opaque') === undefined,
  checkReplay,
  message(output: ScriptOutput) {
    const message: JsonObject = {
      role: 'assistant',
      content: output.content === '' ? null : output.content,
      reasoning_text: output.reasoning,
      reasoning_opaque: latestOpaque(output),
    };
    if (output.toolCalls.length > 0) message['tool_calls'] = messageToolCalls(output);
    return message;
  },
  deltas(output: ScriptOutput) {
    return [
      ...fragmentDeltas(output.reasoning, (fragment) => ({
        content: null,
        role: 'assistant',
        reasoning_text: fragment,
      })),
      { content: null, role: 'assistant', reasoning_opaque: opaqueFor(output.reasoning, null, 0) },
      ...fragmentDeltas(output.content, (fragment) => ({ content: fragment, role: 'assistant' })),
      // Copilot sends each tool call whole, without `type`, preceded by a fresh opaque.
      ...toolCallDeltas(output, {
        whole: true,
        includeType: false,
        before: (index) => {
          const call = output.toolCalls[index];
          return call
            ? { content: null, role: 'assistant', reasoning_opaque: opaqueFor(output.reasoning, call.id, index + 1) }
            : undefined;
        },
      }),
    ];
  },
  finalDelta: { content: null, role: 'assistant' },
  usageOnFinishChunk: false,
  completionExtras: {},
  choiceExtras: () => ({}),
  errorEnvelope: (status, message) =>
    copilotError(
      status,
      message,
      status === 429 ? 'rate_limited' : status >= 500 ? 'server_error' : 'invalid_request_body',
    ),
  contextLengthMessage: openAiContextLengthMessage,
};
