import { afterEach, describe, expect, it } from 'vitest';
import { sendExchange } from '../../../src/transports/shared/transport-http-client.js';
import { startRecordingServer, type RecordingServer } from '../../support/recording-server.js';

/**
 * The pooled HTTP client is the transports' own: loading it leaves the process's `fetch` as
 * Node made it (other parts of a process — MCP clients, an AI SDK app embedding hermes — keep
 * using it), and both send the same bytes. This file must not call `fetch` before the pooled
 * client loads: the order is what is tested.
 */

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('the pooled HTTP client', () => {
  it("leaves the process's fetch working, content-length and all, after it loaded", async () => {
    server = await startRecordingServer((_request, response) => response.writeHead(200).end('ok'));
    const answer = await sendExchange(
      {},
      {
        url: `${server.origin}/pooled?x=1`,
        headers: { 'content-type': 'application/json', 'content-length': '2' },
        body: '{}',
        signal: new AbortController().signal,
      },
    );
    expect(answer.status).toBe(200);
    await answer.body.cancel();
    const response = await fetch(`${server.origin}/global`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '2' },
      body: '{}',
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('ok');
    expect(server.requests.map((request) => [request.method, request.url, request.body])).toEqual([
      ['POST', '/pooled?x=1', '{}'],
      ['POST', '/global', '{}'],
    ]);
  });
});
