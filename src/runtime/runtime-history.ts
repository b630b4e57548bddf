import type { Message, ToolMessage, UserMessage } from '../core/message.js';

/** Result text stored for a tool call that never got a result (killed process, Ctrl-C). */
export const INTERRUPTED_TOOL_RESULT = 'error: the tool call was interrupted before it produced a result';

/**
 * Tool results missing after the last assistant tool-call message (a process killed or
 * interrupted between the tool call and its result). Returned messages are appended — never a
 * rewrite of stored rows — so the next request is valid: every assistant tool call is answered.
 */
export function missingToolResults(history: readonly Message[]): ToolMessage[] {
  let lastAssistant = -1;
  for (let index = history.length - 1; index >= 0; index -= 1) {
    const message = history[index];
    if (message?.role === 'assistant') {
      lastAssistant = index;
      break;
    }
    if (message?.role === 'user') return [];
  }
  if (lastAssistant < 0) return [];
  const assistant = history[lastAssistant];
  if (assistant?.role !== 'assistant' || !assistant.tool_calls?.length) return [];
  const answered = new Set(
    history
      .slice(lastAssistant + 1)
      .filter((message): message is ToolMessage => message.role === 'tool')
      .map((message) => message.tool_call_id),
  );
  return assistant.tool_calls
    .filter((call) => !answered.has(call.id))
    .map((call) => ({
      role: 'tool' as const,
      tool_call_id: call.id,
      tool_name: call.function.name,
      content: INTERRUPTED_TOOL_RESULT,
      timestamp: Date.now(),
    }));
}

/**
 * The question of a turn that stored nothing after it — interrupted (Ctrl-C), killed or failed
 * before its first answer: the session's last message when it is a user message, else null.
 * `sessions show` marks it and `hermes chat --resume` offers `/retry`; sending the same text
 * again answers it without storing it twice (runtime-turn-start.ts).
 */
export function unansweredQuestion(history: readonly Message[]): UserMessage | null {
  const last = history.at(-1);
  return last?.role === 'user' ? last : null;
}
