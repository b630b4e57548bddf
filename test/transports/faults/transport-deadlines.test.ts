import { afterEach, describe, expect, it } from 'vitest';
import { TimeoutError } from '../../../src/core/errors.js';
import type { Timeouts } from '../../../src/core/timeouts.js';
import { openWithDeadlines } from '../../../src/transports/shared/transport-deadlines.js';
import { webStreamBody, type HttpAnswer } from '../../../src/transports/shared/transport-http-client.js';
import type { ExchangeAbort } from '../../../src/transports/shared/transport-http-exchange.js';
import { readAnswerText } from '../../../src/transports/shared/transport-http.js';
import { FAULT_TARGET_APIS, startFaultTarget, type FaultTarget } from './fault-targets.js';
import { collectEvents } from '../transport-test-helpers.js';

/**
 * Every transport enforces the request's time limits (config.yaml `timeouts`): a provider that
 * never answers fails on `first_byte`, one that only sends keep-alive comments fails on `idle`
 * (comments are not progress), and each failure is a retryable TimeoutError naming its limit.
 */

let target: FaultTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

const SHORT: Timeouts = { firstByte: 300, idle: 300, total: 5_000 };

function terminalError(events: readonly { type: string }[]): unknown {
  const last = events.at(-1) as { type: string; error?: unknown } | undefined;
  expect(last?.type).toBe('error');
  return last?.error;
}

describe.each(FAULT_TARGET_APIS)('%s: time limits', (api) => {
  it('a provider that never sends headers fails on first_byte, after the retries', async () => {
    target = await startFaultTarget(api);
    for (let i = 0; i < 3; i++) target.addFault({ kind: 'stall-before-headers' });
    const events = await collectEvents(target.transport.send({ ...target.request(), timeouts: SHORT, maxAttempts: 2 }));
    const error = terminalError(events);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).limit).toBe('first_byte');
    expect((error as Error).message).toMatch(/no response headers arrived within the first_byte timeout \(0\.3 s\)/);
    if (api !== 'bedrock_converse') expect(events.filter((event) => event.type === 'retry')).toHaveLength(1);
  });

  it('a stream that goes silent after the headers fails on idle', async () => {
    target = await startFaultTarget(api);
    target.addFault({ kind: 'stall-after-headers' });
    const events = await collectEvents(target.transport.send({ ...target.request(), timeouts: SHORT, maxAttempts: 1 }));
    const error = terminalError(events);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).limit).toBe('idle');
    expect((error as Error).message).toContain('raise timeouts.idle in config.yaml');
  });

  // AWS event streams have no comment frames; the four SSE wire APIs do.
  it.skipIf(api === 'bedrock_converse')('a stream of keep-alive comments only fails on idle', async () => {
    target = await startFaultTarget(api);
    target.addFault({ kind: 'keep-alive-only', intervalMs: 50 });
    const events = await collectEvents(target.transport.send({ ...target.request(), timeouts: SHORT, maxAttempts: 1 }));
    const error = terminalError(events);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).limit).toBe('idle');
  });
});

describe('openWithDeadlines', () => {
  /** An answer whose SSE body sends `chunks`, `gapMs` apart. */
  const sse = (chunks: string[], gapMs: number) => async (): Promise<HttpAnswer> => ({
    status: 200,
    headers: new Headers({ 'content-type': 'text/event-stream' }),
    url: 'http://127.0.0.1/',
    body: webStreamBody(
      new ReadableStream<Uint8Array>({
        async start(controller) {
          for (const chunk of chunks) {
            await new Promise((resolve) => setTimeout(resolve, gapMs));
            controller.enqueue(new TextEncoder().encode(chunk));
          }
          controller.close();
        },
      }),
    ),
  });
  const provider = 'p';

  it('data chunks restart the idle clock; the whole body arrives unchanged', async () => {
    const chunks = ['data: {"a":1}\n\n', 'data: {"a":2}\n\n', 'data: {"a":3}\n\n', 'data: [DONE]\n\n'];
    const timeouts = { firstByte: 1000, idle: 150, total: 5000 };
    const answer = await openWithDeadlines(sse(chunks, 60), { timeouts, provider });
    expect(await readAnswerText(answer)).toBe(chunks.join(''));
  });

  it('comments, blank lines and ping events are not progress, even split across chunks', async () => {
    const chunks = [': keep', '-alive\n\n', 'event: ping\ndata: {"type": "ping"}\n\n', ': more\n', '\n'];
    const timeouts = { firstByte: 1000, idle: 200, total: 5000 };
    const answer = await openWithDeadlines(sse(chunks, 60), { timeouts, provider });
    await expect(readAnswerText(answer)).rejects.toMatchObject({ name: 'TimeoutError', limit: 'idle' });
  });

  it('the caller aborting still aborts, as an abort and not a timeout', async () => {
    const never = (signal: ExchangeAbort) =>
      new Promise<HttpAnswer>((_resolve, reject) =>
        signal.addEventListener('abort', () => reject(signal.reason as Error)),
      );
    const controller = new AbortController();
    const timeouts = { firstByte: 5000, idle: 5000, total: 5000 };
    const pending = openWithDeadlines(never, { timeouts, provider, signal: controller.signal });
    controller.abort(new DOMException('stopped', 'AbortError'));
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('the total limit bounds a stream that keeps sending data', async () => {
    const chunks = Array.from({ length: 40 }, (_, i) => `data: {"i":${i}}\n\n`);
    const timeouts = { firstByte: 1000, idle: 1000, total: 250 };
    const answer = await openWithDeadlines(sse(chunks, 20), { timeouts, provider });
    await expect(readAnswerText(answer)).rejects.toMatchObject({ name: 'TimeoutError', limit: 'total' });
  });
});
