import { afterEach, describe, expect, it } from 'vitest';
import { markStableWireValue, serializeRequestBodyChunks } from '../../../src/transports/shared/request-body.js';
import { sendExchange } from '../../../src/transports/shared/transport-http-client.js';
import { startRecordingServer, type RecordingServer } from '../../support/recording-server.js';

/**
 * A request body as byte chunks (request-body.ts): the pooled client writes them one after the
 * other with their total as `content-length`, a `fetch` gets them joined; either way the server
 * reads exactly the bytes of `JSON.stringify(body)`, and the connection serves the next request.
 */

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A body long enough for several chunks of cached groups: 300 messages of 1.2 KB, some with multi-byte text. */
function longBody(): Record<string, unknown> {
  const messages = Array.from({ length: 300 }, (_, index) => ({
    role: index % 2 ? 'assistant' : 'user',
    content: `message ${index} ${index % 7 === 0 ? 'héllo — 日本語 🙂' : 'plain'} ${'words '.repeat(200)}`,
  }));
  // Stable, as an encoder marks the wire form of a stored message: their groups' bytes are kept.
  for (const message of messages) markStableWireValue(message);
  return { model: 'm', messages, stream: false };
}

/** Posts `chunks` to the server through the pooled client, or through `fetch` when given; expects a 200. */
async function post(
  to: RecordingServer,
  request: { fetch?: typeof globalThis.fetch },
  chunks: readonly Uint8Array[],
): Promise<void> {
  const answer = await sendExchange(request, {
    url: `${to.origin}/v1/chat/completions`,
    headers: { 'content-type': 'application/json' },
    body: chunks,
    signal: new AbortController().signal,
  });
  expect(answer.status).toBe(200);
  await answer.body.cancel();
}

describe('a request body as byte chunks', () => {
  it('the pooled client sends every chunk, in order, with their total as content-length', async () => {
    server = await startRecordingServer((_request, response) => response.writeHead(200).end('ok'));
    const body = longBody();
    const expected = JSON.stringify(body);
    for (let round = 0; round < 2; round++) {
      const chunks = serializeRequestBodyChunks({ body: body as never });
      // Runs of small pieces are joined (one socket write each): no two small chunks side by side.
      expect(chunks.length).toBeGreaterThan(4);
      const small = chunks.map((chunk) => chunk.byteLength < 32 * 1024);
      expect(small.some((isSmall, index) => isSmall && small[index + 1] === true)).toBe(false);
      await post(server, {}, chunks);
    }
    expect(server.requests).toHaveLength(2);
    for (const request of server.requests) {
      expect(request.body).toBe(expected);
      expect(request.headers['content-length']).toBe(String(Buffer.byteLength(expected)));
      expect(request.headers['transfer-encoding']).toBeUndefined();
    }
  });

  it('a fetch given by the caller gets one body with the same bytes', async () => {
    server = await startRecordingServer((_request, response) => response.writeHead(200).end('ok'));
    const body = longBody();
    await post(server, { fetch: globalThis.fetch }, serializeRequestBodyChunks({ body: body as never }));
    expect(server.requests[0]?.body).toBe(JSON.stringify(body));
  });
});
