import type { StreamEvent } from '../../core/stream-event.js';

/**
 * The one decoder shape every transport's `<api>-decode.ts` implements (docs/architecture.md,
 * "A transport folder"). A decoder is pure: wire events in, {@link StreamEvent}s out.
 *
 * `Chunk` is one decoded wire event:
 * - SSE transports (chat-completions, Anthropic Messages, Gemini `alt=sse`, Responses): the
 *   `data` text of one server-sent event (multi-line data joined with `\n`); the SSE framing
 *   (`shared/transport-sse-reader.ts`) produced it from bytes. Data that is not JSON ends the
 *   stream with a terminal `error` (Gemini skips blank data; chat-completions and Responses
 *   take the `[DONE]` marker).
 * - Anthropic on Bedrock InvokeModel: the same event JSON text, unwrapped from its AWS
 *   event-stream `chunk` frame (`anthropic-messages-eventstream.ts`).
 * - Bedrock Converse: one event-stream message as `{type, payload}` (`:event-type` header and
 *   its JSON payload).
 *
 * Rules:
 * - `push` returns the events the chunk completed, in order; they may end with the terminal
 *   event (`finish` or `error`), after which `done` is true and further `push`es return `[]`.
 * - `done` is also true once the wire said the response is complete (`[DONE]`, `message_stop`):
 *   the caller stops reading and calls `end`.
 * - `end` is called once, when the input is exhausted: it returns whatever is left and exactly
 *   one terminal event, unless one was already returned (then `[]`). A stream cut before the
 *   wire's completion marker ends with a terminal `error`, never a half message.
 */
export interface StreamDecoder<Chunk = string> {
  push(chunk: Chunk): StreamEvent[];
  end(): StreamEvent[];
  readonly done: boolean;
}

/** A terminal stream event (exactly one ends every stream, STYLE rule 4). */
export type TerminalStreamEvent = Extract<StreamEvent, { type: 'finish' | 'error' }>;

/** True for `finish` and `error`. */
export function isTerminalEvent(event: StreamEvent): event is TerminalStreamEvent {
  return event.type === 'finish' || event.type === 'error';
}
