/**
 * Bedrock InvokeModel response-stream framing (WIRE.md §2.5): AWS event-stream frames decoded with
 * @smithy/eventstream-codec. Each `chunk` event's JSON payload is `{"bytes":"<base64>"}` whose
 * bytes are one Anthropic stream event JSON (`{"type":"content_block_delta",…}`). Exception frames
 * (`:message-type: exception`) carry `{"message":"…"}` and end the stream.
 */
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

/** One decoded frame: an Anthropic event JSON text, or an exception. */
export type BedrockStreamItem =
  { kind: 'event'; json: string } | { kind: 'exception'; exceptionType: string; message: string; body: string };

function headerString(headers: Record<string, { type: string; value: unknown }>, name: string): string | undefined {
  const header = headers[name];
  return header && typeof header.value === 'string' ? header.value : undefined;
}

/**
 * Push-style splitter: feed bytes in pieces of any size, get the frames they completed. The codec
 * decodes (and CRC-checks) one whole frame; the 4-byte big-endian total length prefix says where
 * a frame ends, so partial frames wait for more bytes.
 */
export class BedrockEventStreamSplitter {
  private readonly codec = new EventStreamCodec(toUtf8, fromUtf8);
  private buffer = new Uint8Array(0);

  /** Feeds bytes; returns the items of every frame they completed. Throws on a corrupt frame. */
  push(bytes: Uint8Array): BedrockStreamItem[] {
    const joined = new Uint8Array(this.buffer.length + bytes.length);
    joined.set(this.buffer);
    joined.set(bytes, this.buffer.length);
    this.buffer = joined;
    const items: BedrockStreamItem[] = [];
    while (this.buffer.length >= 4) {
      const total = new DataView(this.buffer.buffer, this.buffer.byteOffset, 4).getUint32(0, false);
      if (this.buffer.length < total) break;
      const frame = this.buffer.slice(0, total);
      this.buffer = this.buffer.slice(total);
      const message = this.codec.decode(frame);
      const headers = message.headers as Record<string, { type: string; value: unknown }>;
      const body = toUtf8(message.body);
      const messageType = headerString(headers, ':message-type') ?? 'event';
      if (messageType !== 'event') {
        const exceptionType =
          headerString(headers, ':exception-type') ?? headerString(headers, ':error-code') ?? 'exception';
        items.push({ kind: 'exception', exceptionType, message: messageOf(body) ?? body, body });
        continue;
      }
      if (headerString(headers, ':event-type') !== 'chunk') continue;
      const payload = JSON.parse(body) as { bytes?: unknown };
      if (typeof payload.bytes !== 'string') continue;
      items.push({ kind: 'event', json: Buffer.from(payload.bytes, 'base64').toString('utf8') });
    }
    return items;
  }

  /** True when bytes of an unfinished frame are still buffered (a truncated stream). */
  get pending(): boolean {
    return this.buffer.length > 0;
  }
}

function messageOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { message?: unknown; Message?: unknown };
    if (typeof parsed.message === 'string') return parsed.message;
    if (typeof parsed.Message === 'string') return parsed.Message;
  } catch {
    // Not JSON: the raw body is the message.
  }
  return undefined;
}

/** Encodes one Anthropic event as a Bedrock `chunk` frame (used by the emulator and tests). */
export function encodeBedrockChunk(eventJson: string): Uint8Array {
  const codec = new EventStreamCodec(toUtf8, fromUtf8);
  const payload = JSON.stringify({ bytes: Buffer.from(eventJson, 'utf8').toString('base64') });
  return codec.encode({
    headers: {
      ':event-type': { type: 'string', value: 'chunk' },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: fromUtf8(payload),
  });
}
