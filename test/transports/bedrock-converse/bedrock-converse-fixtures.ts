import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { fixturePath } from '../../support/fixtures.js';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { JsonObject } from '../../../src/core/json.js';
import type { Route } from '../../../src/core/route.js';
import type { BedrockConverseTransportOptions } from '../../../src/transports/bedrock-converse/bedrock-converse-transport.js';
import type { BedrockStreamEvent } from '../../../src/transports/bedrock-converse/bedrock-converse-wire.js';

/** Helpers shared by the Bedrock Converse tests: recorded fixtures, frames, a seeded PRNG. */

const FIXTURES = new URL(`file://${fixturePath('bedrock-converse')}/`);

/** Parsed JSON of a fixture file. */
export function readFixture(name: string): JsonObject {
  return JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8')) as JsonObject;
}

/** One recorded request/response pair of a cassette. */
export interface CassetteInteraction {
  request: { uri: string; body: JsonObject };
  response: { status: number; body: JsonObject };
}

/** The interactions of a pydantic-ai cassette. */
export function readCassette(name: string): CassetteInteraction[] {
  return readFixture(name)['interactions'] as unknown as CassetteInteraction[];
}

/** Stream events of a fixture: `*.chunks.txt` (one `{type: payload}` per line) or a cassette's decoded event stream. */
export function readStreamEvents(name: string): BedrockStreamEvent[] {
  if (name.endsWith('.chunks.txt')) {
    const text = readFileSync(new URL(name, FIXTURES), 'utf8');
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const [type, payload] = Object.entries(JSON.parse(line) as Record<string, JsonObject>)[0] ?? ['', {}];
        return { type, payload };
      });
  }
  const interaction = readCassette(name)[0];
  const decoded = (interaction?.response.body['__aws_eventstream_decoded__'] ?? []) as {
    headers: Record<string, string>;
    payload: JsonObject;
  }[];
  return decoded.map((event) => ({ type: event.headers[':event-type'] ?? '', payload: event.payload }));
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** Re-encodes decoded events into real AWS event-stream frames, concatenated. */
export function encodeFrames(events: readonly BedrockStreamEvent[]): Uint8Array {
  const frames = events.map((event) =>
    codec.encode({
      headers: {
        ':event-type': { type: 'string', value: event.type },
        ':content-type': { type: 'string', value: 'application/json' },
        ':message-type': { type: 'string', value: 'event' },
      },
      body: fromUtf8(JSON.stringify(event.payload)),
    }),
  );
  return Buffer.concat(frames);
}

/** An SDK request handler answering with `chunks` as an event-stream (or JSON) body; records request bodies. */
export function recordedHandler(
  answer: () => { status: number; headers: Record<string, string>; chunks: Uint8Array[] },
  sentBodies: string[] = [],
): NonNullable<BedrockConverseTransportOptions['requestHandler']> {
  return {
    handle: async (request: { body?: unknown }) => {
      const body = request.body;
      sentBodies.push(body instanceof Uint8Array ? Buffer.from(body).toString('utf8') : String(body));
      const { status, headers, chunks } = answer();
      return {
        response: { statusCode: status, headers, body: Readable.from(chunks.map((chunk) => Buffer.from(chunk))) },
      };
    },
    updateHttpClientConfig: () => undefined,
    httpHandlerConfigs: () => ({}),
  } as unknown as NonNullable<BedrockConverseTransportOptions['requestHandler']>;
}

/** A route on the Bedrock Converse wire API. */
export function bedrockRoute(model: string, baseUrl?: string): Route {
  return { api: 'bedrock_converse', provider: 'bedrock', model, ...(baseUrl === undefined ? {} : { baseUrl }) };
}

/** Static test credentials (the emulator accepts any SigV4 signature). */
export const TEST_CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'test-secret-key' };

/** The body of Bedrock's ValidationException when the Anthropic model behind it rejects the request. */
export function validationExceptionBody(detail: string): { message: string } {
  return { message: `The model returned the following errors: ${detail}` };
}
