import { describe, expect, it } from 'vitest';
import { ConnectionError, HermesError, StreamError } from '../../../src/core/errors.js';
import type { StreamEvent } from '../../../src/core/stream-event.js';
import { sendTransportRequest, type TransportAnswer } from '../../../src/transports/shared/transport-send.js';
import type { PreparedRequest, TransportRequest } from '../../../src/transports/shared/transport.js';
import { webStreamBody } from '../../../src/transports/shared/transport-http-client.js';
import { createChatCompletionsDecoder } from '../../../src/transports/chat-completions/chat-completions-decode.js';
import { collectEvents } from '../transport-test-helpers.js';

/** The shared send skeleton: retry window up to the first event, final failures after it, prepare errors. */

const request: TransportRequest = {
  route: { api: 'chat_completions', provider: 'test', model: 'm' },
  history: [],
  tools: [],
  reasoning: { enabled: false },
  maxAttempts: 3,
};
const prepared: PreparedRequest = { url: 'http://test/', body: {}, decisions: [], carriersSent: [], routeKey: 'k' };
const retry = { sleep: async () => undefined, random: () => 0 };
const chunk = (content: string) => `data: {"choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}}}]}\n\n`;

/** A body that sends `texts` then fails with `failure` (or closes when there is none). */
function body(texts: string[], failure?: Error): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let index = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const text = texts[index++];
      if (text !== undefined) controller.enqueue(encoder.encode(text));
      else if (failure) controller.error(failure);
      else controller.close();
    },
  });
}

function sse(texts: string[], failure?: Error): TransportAnswer {
  return {
    kind: 'bytes',
    body: webStreamBody(body(texts, failure)),
    decoder: createChatCompletionsDecoder({ mustEcho: false }),
  };
}

const dropped = () => new TypeError('terminated');

/** The events of one send whose single attempt answers with `stream` as a chat-completions SSE body. */
function sendOnce(stream: ReadableStream<Uint8Array>): Promise<StreamEvent[]> {
  return collectEvents(
    sendTransportRequest(request, retry, {
      prepare: () => prepared,
      open: async () => ({
        kind: 'bytes',
        body: webStreamBody(stream),
        decoder: createChatCompletionsDecoder({ mustEcho: false }),
      }),
    }),
  );
}

describe('sendTransportRequest', () => {
  it('a connection dropped before the first event is retried; the next attempt answers', async () => {
    const answers = [sse([': keep-alive\n\n'], dropped()), sse([chunk('hi'), 'data: [DONE]\n\n'])];
    const events = await collectEvents(
      sendTransportRequest(request, retry, { prepare: () => prepared, open: async () => answers.shift()! }),
    );
    expect(events.map((event) => event.type)).toEqual(['retry', 'start', 'text-delta', 'finish']);
    expect(answers).toHaveLength(0);
  });

  it('a connection dropped after an event reached the caller is final: one error, no retry, no finish', async () => {
    let opened = 0;
    const events = await collectEvents(
      sendTransportRequest(request, retry, {
        prepare: () => prepared,
        open: async () => {
          opened += 1;
          return sse([chunk('half'), chunk(' more')], dropped());
        },
      }),
    );
    expect(opened).toBe(1);
    expect(events.map((event) => event.type)).toEqual(['start', 'text-delta', 'text-delta', 'error']);
    const end = events.at(-1) as Extract<StreamEvent, { type: 'error' }>;
    expect(end.error).toBeInstanceOf(ConnectionError);
    expect(end.error.retryable).toBe(false);
  });

  it('the decoder finishing early stops reading: a server that keeps sending is cancelled', async () => {
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode(`${chunk('x')}data: {"error":{"message":"boom"}}\n\n`));
      },
      cancel() {
        cancelled = true;
      },
    });
    const events = await sendOnce(endless);
    expect(events.at(-1)?.type).toBe('error');
    expect(cancelled).toBe(true);
  });

  it('the bytes after the terminal event are read to the end, so the connection can be reused', async () => {
    let cancelled = false;
    let readToEnd!: () => void;
    const endReached = new Promise<void>((resolve) => (readToEnd = resolve));
    const texts = [chunk('hi'), 'data: [DONE]\n\n', ': trailing bytes after the answer\n\n'];
    const finite = new ReadableStream<Uint8Array>({
      pull(controller) {
        const text = texts.shift();
        if (text !== undefined) return controller.enqueue(new TextEncoder().encode(text));
        controller.close();
        readToEnd();
      },
      cancel() {
        cancelled = true;
      },
    });
    const events = await sendOnce(finite);
    expect(events.at(-1)?.type).toBe('finish');
    // The reading goes on after the finish event reached the caller, to the body's end.
    await endReached;
    expect(cancelled).toBe(false);
  });

  it('a non-retryable error from open ends the stream at once; prepare errors become the error event', async () => {
    const refused = await collectEvents(
      sendTransportRequest(request, retry, {
        prepare: () => prepared,
        open: async () => {
          throw new StreamError('not JSON');
        },
      }),
    );
    expect(refused.map((event) => event.type)).toEqual(['error']);
    const failed = await collectEvents(
      sendTransportRequest(request, retry, {
        prepare: () => {
          throw new Error('bad history');
        },
        open: async () => sse([]),
      }),
    );
    expect(failed).toHaveLength(1);
    const end = failed[0] as Extract<StreamEvent, { type: 'error' }>;
    expect(end.error).toBeInstanceOf(HermesError);
    expect(end.error.message).toContain('bad history');
  });
});
