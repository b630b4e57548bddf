import { afterEach, describe, expect, it } from 'vitest';
import { sendExchange, type HttpAnswer } from '../../../src/transports/shared/transport-http-client.js';
import { startRecordingServer, type RecordingServer } from '../../support/recording-server.js';

/**
 * The pooled client's exchange (undici's handler API, transport-pooled-exchange.ts) keeps what
 * undici's `request` promised: back-pressure without losing or reordering bytes, the signal's
 * reason for an abort before or after the headers, repeated headers joined, and a cancelled
 * body that frees its connection so the next request still goes out.
 */

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const send = (path: string, signal = new AbortController().signal) =>
  sendExchange(
    {},
    { url: `${server?.origin}${path}`, headers: { 'content-type': 'application/json' }, body: '{}', signal },
  );

async function readAll(answer: HttpAnswer, pause = false): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for (;;) {
    const chunk = await answer.body.read();
    if (chunk === null) return Buffer.concat(chunks);
    chunks.push(Buffer.from(chunk));
    if (pause) await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

describe('the pooled exchange', () => {
  it('delivers a body far past its buffer whole and in order to a slow reader', async () => {
    // 1 MiB of numbered lines: any lost, doubled or reordered chunk changes the bytes.
    const lines = Array.from({ length: 40_000 }, (_, index) => `line ${String(index).padStart(8, '0')}\n`);
    const expected = lines.join('');
    server = await startRecordingServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      for (let index = 0; index < lines.length; index += 1000)
        response.write(lines.slice(index, index + 1000).join(''));
      response.end();
    });
    const answer = await send('/big');
    const body = await readAll(answer, true);
    expect(body.byteLength).toBe(Buffer.byteLength(expected));
    expect(body.toString('utf8') === expected).toBe(true);
  });

  it('joins repeated headers and reads names in any case', async () => {
    server = await startRecordingServer((_request, response) => {
      response.setHeader('x-part', ['one', 'two']);
      response.writeHead(201, { 'X-Request-Id': 'req_1' }).end('done');
    });
    const answer = await send('/headers');
    expect(answer.status).toBe(201);
    expect(answer.headers.get('x-part')).toBe('one, two');
    expect(answer.headers.get('x-request-id')).toBe('req_1');
    const seen: [string, string][] = [];
    answer.headers.forEach((value, name) => seen.push([name, value]));
    expect(seen).toContainEqual(['x-request-id', 'req_1']);
    expect((await readAll(answer)).toString()).toBe('done');
  });

  it('rejects with the signal reason when aborted before the headers, and when aborted mid-body', async () => {
    server = await startRecordingServer((request, response) => {
      if (request.url === '/late') return; // never answers: the abort must end it
      response.writeHead(200);
      response.write('first');
    });
    const early = new AbortController();
    const pending = send('/late', early.signal);
    early.abort(new Error('stopped before the headers'));
    await expect(pending).rejects.toThrow('stopped before the headers');

    const late = new AbortController();
    const answer = await send('/partial', late.signal);
    expect((await answer.body.read())?.toString()).toBe('first');
    const read = answer.body.read();
    late.abort(new Error('stopped mid-body'));
    await expect(read).rejects.toThrow('stopped mid-body');
  });

  it('frees the connection of a cancelled body: the next request is answered', async () => {
    server = await startRecordingServer((request, response) => {
      response.writeHead(200);
      if (request.url === '/open') response.write('part of an answer that never ends');
      else response.end('second');
    });
    const open = await send('/open');
    expect(await open.body.read()).not.toBeNull();
    await open.body.cancel();
    expect(await open.body.read()).toBeNull();
    const next = await send('/next');
    expect((await readAll(next)).toString()).toBe('second');
  });
});
