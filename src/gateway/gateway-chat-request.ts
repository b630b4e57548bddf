import { badRequest } from './gateway-errors.js';

/**
 * Reading an OpenAI `POST /v1/chat/completions` body. Clients resend the whole conversation on
 * every request, but the store is authoritative (SPEC §19: the gateway rebuilds history from
 * `state.db`), so only the NEW user input is taken from `messages`:
 *
 *   the user messages after the last assistant message of the client's list
 *   (the whole list when it has no assistant message).
 *
 * Earlier messages the client sends are ignored, including edited ones; to rewrite history,
 * branch the session (`POST /v1/sessions/{id}/branch`). `system` messages are kept only when the
 * request starts a new session (stored first, before the user turn). `tool` messages are
 * ignored: the gateway runs the agent loop and its own tools. A body with client `tools` never
 * reaches this parser: it takes the pass-through mode (gateway-chat-tools.ts).
 */

/** What the gateway needs from a chat-completions request body. */
export interface GatewayChatRequest {
  /** New user turns, oldest first; never empty. */
  userTexts: string[];
  /** System prompts found in the client's list (used only for a new session). */
  systemTexts: string[];
  stream: boolean;
  /** Session id from the `session_id` body field (the header wins over it). */
  sessionId: string | undefined;
  /** `model` the client named (informational: the gateway serves its configured route). */
  model: string | undefined;
  /** `stream_options.include_usage`: send a final usage chunk when streaming. */
  includeUsage: boolean;
}

/** Parses and validates the body; throws a 400 {@link GatewayHttpError} naming the bad field. */
export function parseChatRequest(body: unknown): GatewayChatRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('the request body must be a JSON object with a "messages" array');
  }
  const record = body as Record<string, unknown>;
  const messages = record['messages'];
  if (!Array.isArray(messages) || messages.length === 0) {
    throw badRequest('"messages" must be a non-empty array of chat messages', 'messages');
  }
  const lastAssistant = findLastIndex(messages, (message) => roleOf(message) === 'assistant');
  const userTexts: string[] = [];
  const systemTexts: string[] = [];
  messages.forEach((message, index) => {
    const role = roleOf(message);
    if (role === undefined) throw badRequest(`messages[${index}] must be an object with a "role"`, 'messages');
    if (role === 'system' || role === 'developer') {
      const text = textOf((message as Record<string, unknown>)['content']);
      if (text) systemTexts.push(text);
    }
    if (role === 'user' && index > lastAssistant) {
      const text = textOf((message as Record<string, unknown>)['content']);
      if (text === null) {
        throw badRequest(`messages[${index}].content must be a string or an array of text parts`, 'messages');
      }
      if (text.trim()) userTexts.push(text);
    }
  });
  if (userTexts.length === 0) {
    throw badRequest(
      'no new user message: the gateway answers the user message(s) after the last assistant message in "messages"',
      'messages',
      'no_user_message',
    );
  }
  const sessionId = record['session_id'];
  if (sessionId !== undefined && (typeof sessionId !== 'string' || sessionId === '')) {
    throw badRequest('"session_id" must be a non-empty string', 'session_id');
  }
  const streamOptions = record['stream_options'] as { include_usage?: unknown } | undefined;
  return {
    userTexts,
    systemTexts,
    stream: record['stream'] === true,
    sessionId,
    model: typeof record['model'] === 'string' ? record['model'] : undefined,
    includeUsage: streamOptions?.include_usage === true,
  };
}

function roleOf(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const role = (message as { role?: unknown }).role;
  return typeof role === 'string' ? role : undefined;
}

/** A string, or the text parts of a content array joined by newlines; null for anything else. */
function textOf(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const texts: string[] = [];
  for (const part of content) {
    if (typeof part !== 'object' || part === null) return null;
    const { type, text } = part as { type?: unknown; text?: unknown };
    if (type === 'text' && typeof text === 'string') texts.push(text);
  }
  return texts.join('\n');
}

function findLastIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let index = items.length - 1; index >= 0; index -= 1) {
    if (predicate(items[index] as T)) return index;
  }
  return -1;
}
