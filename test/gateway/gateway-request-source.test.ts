import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { clientAbort, nodeRequestSource, webRequestSource } from '../../src/gateway/gateway-request-source.js';
import { makeGatewaySandbox, startPersona, startTestGateway } from './gateway-test-helpers.js';

/**
 * The chat route reads a request through `ChatRequestSource`: from Node's request under the
 * real server, from a web `Request` under `app.request()`. Both must give the same headers, the
 * same body text, the same size cap and a signal that fires only when the client leaves early.
 */

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

type Handler = (incoming: IncomingMessage, outgoing: ServerResponse) => void;

async function serve(handler: Handler): Promise<number> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return (server.address() as AddressInfo).port;
}

/** Sends raw headers (duplicates kept, as written) and body chunks; resolves with status and body. */
function send(port: number, headers: [string, string][], chunks: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    // Raw headers go out as written: Node adds no Host then, and its server requires one.
    const flat = [['host', `127.0.0.1:${port}`], ...headers].flat();
    const outgoing = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: flat });
    outgoing.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    outgoing.on('error', reject);
    for (const chunk of chunks) outgoing.write(chunk);
    outgoing.end();
  });
}

describe('ChatRequestSource', () => {
  it('reads headers as Headers.get does: any case, duplicates joined, absent is null', async () => {
    const seen: Record<string, string | null>[] = [];
    const port = await serve((incoming, outgoing) => {
      const node = nodeRequestSource(incoming, outgoing);
      const web = new Headers(
        Array.from({ length: incoming.rawHeaders.length / 2 }, (_, index): [string, string] => [
          incoming.rawHeaders[index * 2] as string,
          incoming.rawHeaders[index * 2 + 1] as string,
        ]),
      );
      for (const name of ['X-Hermes-Session-Id', 'x-multi', 'Origin', 'authorization']) {
        seen.push({ name, node: node.header(name), web: web.get(name) });
      }
      outgoing.end('ok');
    });
    await send(
      port,
      [
        ['x-hermes-session-id', 's-1'],
        ['X-Multi', 'a'],
        ['x-multi', 'b'],
        ['Authorization', 'Bearer t'],
      ],
      [],
    );
    expect(seen).toEqual([
      { name: 'X-Hermes-Session-Id', node: 's-1', web: 's-1' },
      { name: 'x-multi', node: 'a, b', web: 'a, b' },
      { name: 'Origin', node: null, web: null },
      { name: 'authorization', node: 'Bearer t', web: 'Bearer t' },
    ]);
  });

  it('reads a chunked body whole, and stops past the cap so a 413 still reaches the client', async () => {
    const texts: (string | null)[] = [];
    const port = await serve((incoming, outgoing) => {
      void nodeRequestSource(incoming, outgoing)
        .text(10)
        .then((text) => {
          texts.push(text);
          outgoing.statusCode = text === null ? 413 : 200;
          outgoing.end(text ?? 'too large');
        });
    });
    expect(await send(port, [], ['héllo', ' wo'])).toEqual({ status: 200, body: 'héllo wo' });
    expect(await send(port, [], ['0123456789', 'abcdef', 'more'])).toEqual({ status: 413, body: 'too large' });
    expect(await send(port, [['content-length', '11']], ['0123456789a'])).toEqual({ status: 413, body: 'too large' });
    expect(texts).toEqual(['héllo wo', null, null]);
  });

  it('gives the same text and cap for a web Request', async () => {
    const request = (body: string) => new Request('http://x/', { method: 'POST', body });
    expect(await webRequestSource(request('héllo wo')).text(10)).toBe('héllo wo');
    expect(await webRequestSource(request('0123456789ab')).text(10)).toBeNull();
  });

  it('aborts the signal when the client leaves before the answer, not after a finished answer', async () => {
    const signals: AbortSignal[] = [];
    const turnSignals: AbortSignal[] = [];
    let answer: (() => void) | undefined;
    const port = await serve((incoming, outgoing) => {
      const source = nodeRequestSource(incoming, outgoing);
      signals.push(source.signal);
      // The turn's controller is the source's own: one signal per request.
      turnSignals.push(clientAbort(source).signal);
      void source.text(1024).then(() => {
        if (signals.length === 1) outgoing.end('done');
        else answer = () => outgoing.end('late');
      });
    });
    await send(port, [], ['first']);
    // The second client leaves while its answer is pending.
    const leaving = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/' });
    leaving.on('error', () => undefined);
    leaving.end('second');
    for (let index = 0; index < 500 && signals.length < 2; index++) await new Promise((r) => setTimeout(r, 5));
    leaving.destroy();
    const second = signals[1] as AbortSignal;
    if (!second.aborted) await new Promise((resolve) => second.addEventListener('abort', resolve, { once: true }));
    answer?.();
    expect(signals.map((signal) => signal.aborted)).toEqual([false, true]);
    expect(turnSignals).toEqual(signals);
    expect(turnSignals[1]).toBe(second);
    // The reason `@hono/node-server` gives its own request signal.
    expect(second.reason).toBe('Client connection prematurely closed.');
  });
});

describe('gateway over a real port', () => {
  it('answers 413 for a chunked body past the cap and 401/200 by the token header', async () => {
    const sandbox = makeGatewaySandbox();
    const { emulator, route } = await startPersona('deepseek');
    cleanups.push(() => emulator.close());
    const gateway = await startTestGateway(sandbox.dbPath, route, sandbox.workspace, { token: 'secret-token' });
    cleanups.push(() => gateway.close());
    const body = JSON.stringify({ model: 'hermes', messages: [{ role: 'user', content: 'hi' }] });
    const post = (headers: Record<string, string>, payload: string | ReadableStream<Uint8Array> = body) =>
      fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: payload,
        duplex: 'half',
      } as RequestInit);

    const refused = await post({});
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');

    const answered = await post({ authorization: 'Bearer secret-token' });
    expect(answered.status).toBe(200);
    const sessionId = answered.headers.get('x-hermes-session-id');
    expect(sessionId).toBeTruthy();
    await answered.json();
    const next = await post({ authorization: 'Bearer secret-token', 'x-hermes-session-id': sessionId ?? '' });
    expect(next.headers.get('x-hermes-session-id')).toBe(sessionId);
    await next.json();

    // A stream has no Content-Length: the cap is enforced while reading.
    const big = 'x'.repeat(1024 * 1024);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ === 20) controller.close();
        else controller.enqueue(new TextEncoder().encode(big));
      },
    });
    const tooLarge = await post({ authorization: 'Bearer secret-token' }, stream);
    expect(tooLarge.status).toBe(413);
    expect(((await tooLarge.json()) as { error: { code: string } }).error.code).toBe('request_too_large');
  });
});
