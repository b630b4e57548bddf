import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeEventBody } from '../../src/gateway/gateway-event-body.js';

/**
 * A streamed answer written straight to the Node response (gateway-event-body.ts): every event
 * reaches the client in order whether the answer ends in the same turn of the event loop as its
 * last events (they leave with the end), in a later one, or right after the response opened —
 * on every Node the project runs on (Node 22 drops a corked response's chunks at `end`).
 */

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** Serves each request with `answer` and returns the bodies two requests on one connection read. */
async function serve(answer: (response: ServerResponse) => void): Promise<string[]> {
  server = createServer((_request, response) => answer(response));
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const bodies: string[] = [];
  for (let request = 0; request < 2; request++) {
    const reply = await fetch(`http://127.0.0.1:${port}/`);
    expect(reply.headers.get('content-type')).toBe('text/event-stream');
    bodies.push(await reply.text());
  }
  return bodies;
}

const HEADERS = { 'content-type': 'text/event-stream' };
const nextLoopTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('nodeEventBody', () => {
  it('an answer that ends in the turn of its last events sends them all, then the end', async () => {
    const bodies = await serve((response) => {
      const body = nodeEventBody(response, () => {});
      body.respond(HEADERS);
      body.write('data: 1\n\n');
      void (async () => {
        await nextLoopTurn();
        body.write('data: 2\n\n');
        // The last events are flushed (corked) in this turn's check phase; the end follows in it.
        setImmediate(() => {
          body.write('data: 3\n\n');
          queueMicrotask(() => {
            body.write('data: [DONE]\n\n');
            body.close();
          });
        });
      })();
    });
    expect(bodies).toEqual(Array(2).fill('data: 1\n\ndata: 2\n\ndata: 3\n\ndata: [DONE]\n\n'));
  });

  it('events of earlier turns flow before the end; a close right after respond sends the pending ones', async () => {
    const bodies = await serve((response) => {
      const body = nodeEventBody(response, () => {});
      body.respond(HEADERS);
      void (async () => {
        for (let event = 0; event < 5; event++) {
          body.write(`data: ${event}\n\n`);
          await nextLoopTurn();
          await nextLoopTurn();
        }
        body.close();
        body.write('data: after\n\n');
        body.close();
      })();
    });
    expect(bodies).toEqual(Array(2).fill('data: 0\n\ndata: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4\n\n'));
    const immediate = await serve((response) => {
      const body = nodeEventBody(response, () => {});
      body.write('data: queued\n\n');
      body.respond(HEADERS);
      body.close();
    });
    expect(immediate).toEqual(Array(2).fill('data: queued\n\n'));
  });
});
