import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { JsonObject } from '../../core/json.js';

/**
 * AWS event-stream frames as Bedrock Runtime sends them (WIRE.md §2.5, §3.3), encoded with the
 * smithy codec: an event frame carries `:event-type`, `:content-type: application/json` and
 * `:message-type: event`; an exception frame `:exception-type` and `:message-type: exception`.
 * ConverseStream and InvokeModelWithResponseStream share this framing.
 */

const codec = new EventStreamCodec(toUtf8, fromUtf8);
type FrameHeaders = Parameters<EventStreamCodec['encode']>[0]['headers'];

/** One event frame whose body is `payload` as JSON. */
export function eventFrame(eventType: string, payload: JsonObject): Uint8Array {
  const headers: FrameHeaders = {
    ':event-type': { type: 'string', value: eventType },
    ':content-type': { type: 'string', value: 'application/json' },
    ':message-type': { type: 'string', value: 'event' },
  };
  return codec.encode({ headers, body: fromUtf8(JSON.stringify(payload)) });
}

/** An exception frame, as sent when a stream fails after it started. */
export function exceptionFrame(exceptionType: string, message: string): Uint8Array {
  const headers: FrameHeaders = {
    ':exception-type': { type: 'string', value: exceptionType },
    ':content-type': { type: 'string', value: 'application/json' },
    ':message-type': { type: 'string', value: 'exception' },
  };
  return codec.encode({ headers, body: fromUtf8(JSON.stringify({ message })) });
}

/**
 * An InvokeModelWithResponseStream `chunk` frame: the payload is `{"bytes": "<base64>"}` whose
 * bytes are one Anthropic stream event's JSON.
 */
export function invokeModelChunkFrame(eventJson: string): Uint8Array {
  return eventFrame('chunk', { bytes: Buffer.from(eventJson, 'utf8').toString('base64') });
}
