import type { JsonObject } from '../../core/json.js';
import type { ScriptOutput } from '../shared/scripted-model.js';
import type { EmulatorAnswer, KeyRejection } from './chat-emulator-errors.js';
import {
  cerebrasUnsupportedError,
  deepseekMustEchoError,
  deepseekUnknownFieldError,
  fireworksExtraInputsError,
  groqUnsupportedError,
  openAiUnknownParameterError,
} from './chat-emulator-errors.js';
import { stringField, toolCallsOf } from './chat-emulator-request.js';
import type { ChatPersona, PersonaRequestContext } from './chat-persona.js';
import {
  firstRejection,
  fragmentDeltas,
  messageToolCalls,
  openAiContextLengthMessage,
  openAiEnvelope,
  toolCallDeltas,
} from './chat-persona.js';
import type { ChatPersonaName } from './chat-emulator-types.js';

/**
 * Personas whose reasoning travels as plain string fields: DeepSeek (`reasoning_content`),
 * local servers (`reasoning` + `reasoning_content`, the chutes.ai/llama.cpp mirror), Groq and
 * Cerebras (`reasoning`), Fireworks (`reasoning_content`). They differ in what they read back,
 * what they reject, and DeepSeek's must-echo rule.
 */

interface PlainPersonaDefinition {
  name: ChatPersonaName;
  summary: string;
  defaultModel: string;
  strict: boolean;
  /** Fields the response carries reasoning in (all with identical text). */
  returns: readonly string[];
  /** Fields read back, first non-empty wins. */
  reads: readonly string[];
  acceptedAssistantKeys: readonly string[];
  rejectKeys(rejections: readonly KeyRejection[]): EmulatorAnswer;
  checkReplay?(context: PersonaRequestContext): EmulatorAnswer | undefined;
  /** DeepSeek's recorded stream shape: `content: null` beside reasoning, `reasoning_content: null` beside content. */
  deepseekNulls?: boolean;
}

function plainPersona(definition: PlainPersonaDefinition): ChatPersona {
  const reasoningFields = (text: string): JsonObject => {
    const fields: JsonObject = {};
    for (const field of definition.returns) fields[field] = text;
    return fields;
  };
  return {
    name: definition.name,
    summary: definition.summary,
    defaultModel: definition.defaultModel,
    strict: definition.strict,
    acceptedAssistantKeys: definition.acceptedAssistantKeys,
    acceptedToolCallKeys: [],
    rejectKeys: (rejections) => definition.rejectKeys(rejections),
    readReasoning(message) {
      for (const field of definition.reads) {
        const text = stringField(message, field);
        if (text !== undefined) return text;
      }
      return undefined;
    },
    checkReplay: (context) => definition.checkReplay?.(context),
    message(output: ScriptOutput) {
      const message: JsonObject = { role: 'assistant', content: output.content, ...reasoningFields(output.reasoning) };
      if (output.toolCalls.length > 0) message['tool_calls'] = messageToolCalls(output);
      return message;
    },
    deltas(output: ScriptOutput) {
      const nulls = definition.deepseekNulls === true;
      const first: JsonObject = nulls
        ? { role: 'assistant', content: null, ...reasoningFields('') }
        : { role: 'assistant', content: '' };
      return [
        first,
        ...fragmentDeltas(output.reasoning, (fragment) =>
          nulls ? { content: null, ...reasoningFields(fragment) } : reasoningFields(fragment),
        ),
        ...fragmentDeltas(output.content, (fragment) =>
          nulls ? { content: fragment, reasoning_content: null } : { content: fragment },
        ),
        ...toolCallDeltas(output),
      ];
    },
    finalDelta: definition.deepseekNulls === true ? { content: '', reasoning_content: null } : {},
    usageOnFinishChunk: definition.deepseekNulls === true,
    completionExtras: definition.deepseekNulls === true ? { system_fingerprint: 'fp_emulator_prod' } : {},
    choiceExtras: () => (definition.deepseekNulls === true ? { logprobs: null } : {}),
    errorEnvelope: openAiEnvelope,
    contextLengthMessage: openAiContextLengthMessage,
  };
}

/** WIRE.md §1.2: an assistant tool-call message must carry `reasoning_content` (`""` is accepted). */
function deepseekMustEcho(context: PersonaRequestContext): EmulatorAnswer | undefined {
  for (const message of context.request.messages) {
    if (message['role'] !== 'assistant' || toolCallsOf(message).length === 0) continue;
    if (typeof message['reasoning_content'] !== 'string') return deepseekMustEchoError();
  }
  return undefined;
}

/** DeepSeek: returns and reads `reasoning_content`; lenient on extras; must-echo on tool-call turns. */
export const deepseekPersona: ChatPersona = plainPersona({
  name: 'deepseek',
  summary: 'DeepSeek: reasoning_content; 400 when a tool-call turn comes back without it (must-echo)',
  defaultModel: 'deepseek-v4-pro',
  strict: false,
  returns: ['reasoning_content'],
  reads: ['reasoning_content'],
  acceptedAssistantKeys: [],
  rejectKeys: (rejections) => deepseekUnknownFieldError(firstRejection(rejections)),
  checkReplay: deepseekMustEcho,
  deepseekNulls: true,
});

/** Local servers (llama.cpp, vLLM, LM Studio): both fields, identical text; no validation. */
export const localPersona: ChatPersona = plainPersona({
  name: 'local',
  summary: 'local server (llama.cpp/vLLM style): reasoning + reasoning_content, identical; no validation',
  defaultModel: 'qwen3-8b',
  strict: false,
  returns: ['reasoning', 'reasoning_content'],
  reads: ['reasoning_content', 'reasoning'],
  acceptedAssistantKeys: [],
  rejectKeys: (rejections) => openAiUnknownParameterError(firstRejection(rejections)),
});

/** Groq: returns `reasoning` (reasoning_format parsed) but accepts no carrier back. */
export const strictGroqPersona: ChatPersona = plainPersona({
  name: 'strict-groq',
  summary: 'Groq: returns reasoning; 400 "property \'X\' is unsupported" for any extra assistant or tool-call key',
  defaultModel: 'openai/gpt-oss-120b',
  strict: true,
  returns: ['reasoning'],
  reads: [],
  acceptedAssistantKeys: [],
  rejectKeys: (rejections) => groqUnsupportedError(firstRejection(rejections)),
});

/** Cerebras: returns and accepts `reasoning`; rejects every other carrier. */
export const strictCerebrasPersona: ChatPersona = plainPersona({
  name: 'strict-cerebras',
  summary: 'Cerebras: returns and accepts reasoning; 400 wrong_api_format for reasoning_content and other extras',
  defaultModel: 'gpt-oss-120b',
  strict: true,
  returns: ['reasoning'],
  reads: ['reasoning'],
  acceptedAssistantKeys: ['reasoning'],
  rejectKeys: (rejections) => cerebrasUnsupportedError(firstRejection(rejections)),
});

/** Fireworks: returns and accepts `reasoning_content` (SPEC §5 row 2); rejects other extras. */
export const strictFireworksPersona: ChatPersona = plainPersona({
  name: 'strict-fireworks',
  summary:
    'Fireworks: returns and accepts reasoning_content; 400 "Extra inputs are not permitted, field: \'messages[N].X\'"',
  defaultModel: 'accounts/fireworks/models/deepseek-v3p2',
  strict: true,
  returns: ['reasoning_content'],
  reads: ['reasoning_content'],
  acceptedAssistantKeys: ['reasoning_content'],
  rejectKeys: (rejections) => fireworksExtraInputsError(firstRejection(rejections)),
});
