import type { JsonObject } from '../../core/json.js';
import { isJsonObject } from '../../core/json.js';
import {
  effortRefusal,
  type EmulatedEffortRules,
  KIMI_ALWAYS_THINKS_MESSAGE,
  openAiEffortMessage,
  type SentEffort,
} from '../shared/emulator-effort.js';
import type { EmulatorAnswer, KeyRejection } from './chat-emulator-errors.js';
import type { ChatPersona } from './chat-persona.js';
import { BASE_ASSISTANT_KEYS, BASE_FUNCTION_KEYS, BASE_TOOL_CALL_KEYS } from './chat-persona.js';

/**
 * Schema validation of the assistant messages a client sends back: the keys a strict provider
 * does not know, and the keys this instance was told to reject. Only assistant messages, their
 * tool calls and the tool calls' `function` objects are checked — that is where reasoning
 * carriers leak (WIRE.md §6).
 */

/** Every offending key, in request order (message, then tool call, then function). */
export function findKeyRejections(
  messages: readonly JsonObject[],
  persona: ChatPersona,
  rejectedKeys: ReadonlySet<string>,
): KeyRejection[] {
  const assistantKeys = new Set([...BASE_ASSISTANT_KEYS, ...persona.acceptedAssistantKeys]);
  const toolCallKeys = new Set([...BASE_TOOL_CALL_KEYS, ...persona.acceptedToolCallKeys]);
  const functionKeys = new Set(BASE_FUNCTION_KEYS);
  const refused = (key: string, allowed: ReadonlySet<string>): boolean =>
    rejectedKeys.has(key) || (persona.strict && !allowed.has(key));
  const rejections: KeyRejection[] = [];
  messages.forEach((message, messageIndex) => {
    if (message['role'] !== 'assistant') return;
    for (const [key, value] of Object.entries(message)) {
      if (refused(key, assistantKeys)) rejections.push({ messageIndex, path: [key], key, value });
    }
    const calls = message['tool_calls'];
    if (!Array.isArray(calls)) return;
    calls.forEach((call, callIndex) => {
      if (!isJsonObject(call)) return;
      for (const [key, value] of Object.entries(call)) {
        if (refused(key, toolCallKeys))
          rejections.push({ messageIndex, path: ['tool_calls', callIndex, key], key, value });
      }
      const functionCall = call['function'];
      if (!isJsonObject(functionCall)) return;
      for (const [key, value] of Object.entries(functionCall)) {
        if (refused(key, functionKeys)) {
          rejections.push({ messageIndex, path: ['tool_calls', callIndex, 'function', key], key, value });
        }
      }
    });
  });
  return rejections;
}

/**
 * The effort a chat-completions body carries: top-level `reasoning_effort` (OpenAI, DeepSeek,
 * Kimi) or OpenRouter's `reasoning.effort`; thinking is off with `thinking.type: "disabled"`,
 * `enable_thinking: false` or the word `none`.
 */
export function chatSentEffort(body: unknown): SentEffort {
  const request = isJsonObject(body) ? body : {};
  const reasoning = isJsonObject(request['reasoning']) ? request['reasoning'] : {};
  const thinking = isJsonObject(request['thinking']) ? request['thinking'] : {};
  const topLevel = request['reasoning_effort'];
  const nested = reasoning['effort'];
  const parameter =
    typeof topLevel !== 'string' && typeof nested === 'string' ? 'reasoning.effort' : 'reasoning_effort';
  const value = typeof topLevel === 'string' ? topLevel : typeof nested === 'string' ? nested : undefined;
  const off = thinking['type'] === 'disabled' || request['enable_thinking'] === false || value === 'none';
  return { parameter, value, off };
}

/** The persona's 400 for an effort outside the emulated model's rules, or null. */
export function chatEffortAnswer(
  persona: ChatPersona,
  rules: EmulatedEffortRules,
  body: unknown,
): EmulatorAnswer | null {
  const refusal = effortRefusal(rules, chatSentEffort(body));
  if (refusal === null) return null;
  return persona.errorEnvelope(400, refusal.kind === 'off' ? KIMI_ALWAYS_THINKS_MESSAGE : openAiEffortMessage(refusal));
}
