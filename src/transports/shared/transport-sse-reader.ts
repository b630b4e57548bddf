import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';
import { StreamError } from '../../core/errors.js';

/**
 * Largest stream event accepted (bytes). The biggest real events (a Responses
 * `response.completed` echoing every encrypted reasoning item) are a few MiB; past this cap a
 * provider is sending one event that never ends, and reading on would only fill memory.
 */
export const MAX_EVENT_BYTES = 32 * 1024 * 1024;

/**
 * Server-sent-event framing shared by every JSON-over-SSE transport (chat-completions,
 * Anthropic Messages, Gemini `alt=sse`, Responses). Framing is `eventsource-parser`'s job
 * (STYLE rule 15 (docs/architecture.md)); this file only adds byte decoding that survives a UTF-8 character split
 * across network reads, and an async reader over a `fetch` body.
 */

/** One parsed SSE message: `event` is undefined unless the server sent an `event:` line. */
export type ServerSentEvent = EventSourceMessage;

/**
 * Push-style SSE decoder: feed bytes (or text) in pieces of any size, get the complete events
 * each piece finished. Comments (OpenRouter's `: OPENROUTER PROCESSING` keep-alives) are dropped.
 */
export class ServerSentEventDecoder {
  private readonly parser: EventSourceParser;
  private readonly textDecoder = new TextDecoder('utf-8');
  private pending: ServerSentEvent[] = [];
  /** Bytes fed since the last complete event or comment: the size of the event in progress. */
  private sinceBoundary = 0;

  constructor(private readonly maxEventBytes: number = MAX_EVENT_BYTES) {
    this.parser = createParser({
      onEvent: (event) => this.pending.push(event),
      onComment: () => (this.sinceBoundary = 0),
    });
  }

  /** Feeds one piece of the stream; returns the events it completed, in order. */
  push(piece: Uint8Array | string): ServerSentEvent[] {
    // `stream: true` keeps a multi-byte character split across two reads for the next call.
    const text = typeof piece === 'string' ? piece : this.textDecoder.decode(piece, { stream: true });
    this.sinceBoundary += typeof piece === 'string' ? piece.length : piece.byteLength;
    if (text.length > 0) this.parser.feed(text);
    if (this.pending.length > 0) this.sinceBoundary = 0;
    else if (this.sinceBoundary > this.maxEventBytes) {
      throw new StreamError(
        `the provider sent one stream event larger than ${Math.round(this.maxEventBytes / 1024 / 1024)} MiB; stopped reading it`,
      );
    }
    return this.take();
  }

  /**
   * Flushes the end of the stream. A final event without its blank line is still delivered:
   * some servers close right after `data: [DONE]\n`. (A line cut mid-way is delivered too, and
   * the caller's JSON parse then reports the truncation.)
   */
  end(): ServerSentEvent[] {
    const rest = this.textDecoder.decode();
    this.parser.feed(`${rest}\n\n`);
    this.parser.reset();
    return this.take();
  }

  private take(): ServerSentEvent[] {
    if (this.pending.length === 0) return [];
    const events = this.pending;
    this.pending = [];
    return events;
  }
}

/**
 * Reads SSE events from a response body until it ends, one batch per network read (never an
 * empty batch): one await per read instead of one per event, which is what the transports use.
 * Errors from the body (a dropped connection, an abort) propagate to the caller unchanged so it
 * can map them.
 */
export async function* readServerSentEventBatches(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent[]> {
  const decoder = new ServerSentEventDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const events = decoder.push(value);
      if (events.length > 0) yield events;
    }
    const rest = decoder.end();
    if (rest.length > 0) yield rest;
  } finally {
    // Cancel stops the socket when the consumer quit early; after a thrown read it is a no-op.
    await reader.cancel().catch(() => undefined);
  }
}

/** Reads SSE events from a response body one at a time (see {@link readServerSentEventBatches}). */
export async function* readServerSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  for await (const batch of readServerSentEventBatches(body)) yield* batch;
}
