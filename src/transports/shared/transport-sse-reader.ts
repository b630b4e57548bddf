import { isAscii } from 'node:buffer';
import { createParser, type EventSourceParser } from 'eventsource-parser';
import { StreamError } from '../../core/errors.js';
import type { StreamEvent } from '../../core/stream-event.js';
import type { StreamDecoder } from './transport-stream-decoder.js';

/**
 * Largest stream event accepted (bytes). The biggest real events (a Responses
 * `response.completed` echoing every encrypted reasoning item) are a few MiB; past this cap a
 * provider is sending one event that never ends, and reading on would only fill memory.
 */
export const MAX_EVENT_BYTES = 32 * 1024 * 1024;

/**
 * Byte framing of a streamed answer: network bytes in, one wire event out per completed frame
 * (through the callback the framer was built with), synchronously. `end` flushes the input's
 * end. Both throw {@link StreamError} on a frame the framing cannot accept.
 */
export interface ByteFramer {
  push(bytes: Uint8Array): void;
  end(): void;
}

/** The error of one event past {@link MAX_EVENT_BYTES} (every framing reports the cap alike). */
export function eventTooLargeError(maxEventBytes: number): StreamError {
  return new StreamError(
    `the provider sent one stream event larger than ${Math.round(maxEventBytes / 1024 / 1024)} MiB; stopped reading it`,
  );
}

/**
 * Server-sent-event framing shared by every JSON-over-SSE transport (chat-completions,
 * Anthropic Messages, Gemini `alt=sse`, Responses). Line parsing is `eventsource-parser`'s job
 * (STYLE rule 15, docs/architecture.md); this class adds byte decoding that survives a UTF-8
 * character split across network reads, the single-event size cap, and hands each event's
 * `data` straight to `onData` (no per-event objects or arrays of its own). Comments
 * (OpenRouter's `: OPENROUTER PROCESSING` keep-alives) and `event:` names are dropped: every
 * decoder reads the event kind from the JSON payload.
 */
export class ServerSentEventFramer implements ByteFramer {
  private readonly parser: EventSourceParser;
  /** Made for the first read that is not plain ASCII (most streams have none). */
  private textDecoder: InstanceType<typeof TextDecoder> | undefined;
  /** Bytes were read before the decoder was made: a byte order mark is then text, not a mark. */
  private pastStart = false;
  /** The decoder may hold the first bytes of a character the last read cut (see {@link decode}). */
  private decoderMayHoldBytes = false;
  /** Bytes fed since the last complete event or comment: the size of the event in progress. */
  private sinceBoundary = 0;
  private sawBoundary = false;

  constructor(
    onData: (data: string) => void,
    private readonly maxEventBytes: number = MAX_EVENT_BYTES,
  ) {
    this.parser = createParser({
      onEvent: (event) => {
        this.sawBoundary = true;
        onData(event.data);
      },
      onComment: () => (this.sawBoundary = true),
    });
  }

  /** Feeds one piece of the stream (any size, any cut). */
  push(piece: Uint8Array | string): void {
    // `stream: true` keeps a multi-byte character split across two reads for the next call.
    const text = typeof piece === 'string' ? piece : this.decode(piece);
    this.sinceBoundary += typeof piece === 'string' ? piece.length : piece.byteLength;
    this.sawBoundary = false;
    if (text.length > 0) this.parser.feed(text);
    if (this.sawBoundary) this.sinceBoundary = 0;
    else if (this.sinceBoundary > this.maxEventBytes) throw eventTooLargeError(this.maxEventBytes);
  }

  /**
   * The text of `bytes`. A read of ASCII only, with nothing held from the last one, is copied as
   * it is (on Node 20 `TextDecoder` converts through ICU at several times the cost); anything
   * else goes through the streaming decoder, which keeps a character split across two reads for
   * the next one. The decoder can only be holding bytes when a non-ASCII byte was among the last
   * three it was given (a UTF-8 character is at most four bytes).
   */
  private decode(bytes: Uint8Array): string {
    if (!this.decoderMayHoldBytes && isAscii(bytes)) {
      this.pastStart ||= bytes.length > 0;
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    }
    // A decoder drops a byte order mark at its own start; past the stream's start it is U+FEFF.
    this.textDecoder ??= new TextDecoder('utf-8', { ignoreBOM: this.pastStart });
    const text = this.textDecoder.decode(bytes, { stream: true });
    this.decoderMayHoldBytes = !isAscii(bytes.subarray(Math.max(0, bytes.length - 3)));
    return text;
  }

  /**
   * Flushes the end of the stream. A final event without its blank line is still delivered:
   * some servers close right after `data: [DONE]\n`. (A line cut mid-way is delivered too, and
   * the decoder's JSON parse then reports the truncation.)
   */
  end(): void {
    const rest = this.textDecoder?.decode() ?? '';
    this.decoderMayHoldBytes = false;
    this.parser.feed(`${rest}\n\n`);
    this.parser.reset();
  }
}

/**
 * Decodes a whole SSE byte stream, given as pieces, with `decoder` — the transports' decode path
 * (framing → `decoder.push` → `decoder.end`) without the network reads. Tests and the
 * stream-decode bench use it; the transports run the same framer and decoder in
 * `shared/transport-send.ts`.
 */
export function decodeServerSentEvents(
  decoder: StreamDecoder<string>,
  pieces: Iterable<Uint8Array | string>,
): StreamEvent[] {
  const events: StreamEvent[] = [];
  const framer = new ServerSentEventFramer((data) => {
    if (decoder.done) return;
    for (const event of decoder.push(data)) events.push(event);
  });
  for (const piece of pieces) {
    framer.push(piece);
    if (decoder.done) break;
  }
  if (!decoder.done) framer.end();
  for (const event of decoder.end()) events.push(event);
  return events;
}
