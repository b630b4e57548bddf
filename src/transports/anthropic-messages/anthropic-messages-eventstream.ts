/**
 * Bedrock InvokeModel response-stream framing (WIRE.md §2.5): AWS event-stream frames decoded with
 * @smithy/eventstream-codec. Each `chunk` event's JSON payload is `{"bytes":"<base64>"}` whose
 * bytes are one Anthropic stream event JSON (`{"type":"content_block_delta",…}`). Exception frames
 * (`:message-type: exception`) carry `{"message":"…"}` and end the stream.
 */
import { Buffer } from 'node:buffer';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { StreamError } from '../../core/errors.js';
import { eventTooLargeError, MAX_EVENT_BYTES, type ByteFramer } from '../shared/transport-sse-reader.js';

function headerString(headers: Record<string, { type: string; value: unknown }>, name: string): string | undefined {
  const header = headers[name];
  return header && typeof header.value === 'string' ? header.value : undefined;
}

/**
 * Push-style framer ({@link ByteFramer}): feed bytes in pieces of any size; every completed
 * `chunk` frame's Anthropic event JSON text goes to `onJson`, in order. The codec decodes (and
 * CRC-checks) one whole frame; the 4-byte big-endian total length prefix says where a frame
 * ends, so partial frames wait for more bytes (kept as a list of pieces, joined once the frame
 * is whole). An exception frame, a corrupt frame or one past {@link MAX_EVENT_BYTES} throws a
 * {@link StreamError}; a frame cut by the end of the input is left to the decoder's end
 * (no `message_stop` arrived).
 */
export class BedrockEventStreamFramer implements ByteFramer {
  private readonly codec = new EventStreamCodec(toUtf8, fromUtf8);
  private pieces: Uint8Array[] = [];
  private buffered = 0;

  constructor(
    private readonly onJson: (json: string) => void,
    private readonly maxEventBytes: number = MAX_EVENT_BYTES,
  ) {}

  push(bytes: Uint8Array): void {
    if (bytes.byteLength === 0) return;
    this.pieces.push(bytes);
    this.buffered += bytes.byteLength;
    for (;;) {
      if (this.buffered < 4) return;
      const head = this.take(4, false);
      const total = new DataView(head.buffer, head.byteOffset, 4).getUint32(0, false);
      if (total > this.maxEventBytes) throw eventTooLargeError(this.maxEventBytes);
      if (this.buffered < total) return;
      this.frame(this.take(total, true));
    }
  }

  end(): void {
    // A partial frame at the end is a truncated stream; the decoder reports it (no message_stop).
  }

  /** The first `length` buffered bytes (one piece when it holds them all); `consume` drops them. */
  private take(length: number, consume: boolean): Uint8Array {
    const first = this.pieces[0]!;
    let out: Uint8Array;
    if (first.byteLength >= length) out = first.subarray(0, length);
    else {
      out = new Uint8Array(length);
      let offset = 0;
      for (const piece of this.pieces) {
        const part = piece.subarray(0, Math.min(piece.byteLength, length - offset));
        out.set(part, offset);
        offset += part.byteLength;
        if (offset === length) break;
      }
    }
    if (consume) {
      let left = length;
      while (left > 0) {
        const piece = this.pieces[0]!;
        if (piece.byteLength <= left) {
          left -= piece.byteLength;
          this.pieces.shift();
        } else {
          this.pieces[0] = piece.subarray(left);
          left = 0;
        }
      }
      this.buffered -= length;
    }
    return out;
  }

  private frame(bytes: Uint8Array): void {
    const message = this.codec.decode(bytes);
    const headers = message.headers as Record<string, { type: string; value: unknown }>;
    const body = toUtf8(message.body);
    const messageType = headerString(headers, ':message-type') ?? 'event';
    if (messageType !== 'event') {
      const exceptionType =
        headerString(headers, ':exception-type') ?? headerString(headers, ':error-code') ?? 'exception';
      throw new StreamError(`Bedrock ${exceptionType}: ${messageOf(body) ?? body}`, { body });
    }
    if (headerString(headers, ':event-type') !== 'chunk') return;
    const payload = JSON.parse(body) as { bytes?: unknown };
    if (typeof payload.bytes !== 'string') return;
    this.onJson(Buffer.from(payload.bytes, 'base64').toString('utf8'));
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
