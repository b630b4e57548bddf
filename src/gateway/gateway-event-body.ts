import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';

/**
 * The body of a streamed answer (`text/event-stream`). Events written during one turn of the
 * event loop leave as one chunk, flushed once that turn's I/O callbacks and microtasks are done
 * (`setImmediate`): every delta one provider read produced goes to the client in one socket
 * write instead of one write per delta, and no delta waits for a later read. Nothing is sent
 * before {@link EventBody.respond}: a turn refused before it answers with an HTTP error instead.
 * Two bodies give the same bytes (like the request sources of `gateway-request-source.ts`):
 * - {@link webEventBody}: a web `ReadableStream` in the `Response` (`app.request()`, any
 *   fetch-style host);
 * - {@link nodeEventBody}: written straight to the Node `ServerResponse` under
 *   `@hono/node-server`, the headers going out with the first events in one write and the last
 *   events with the end, instead of a separate header write and a web stream read chunk by chunk.
 */
export interface EventBody {
  /** Queues `text` (whole SSE frames) for the next flush; ignored once closed. */
  write(text: string): void;
  /** The response that carries the body, with `headers`; events start to flow. */
  respond(headers: Record<string, string>): Response;
  /** Flushes and ends the body (idempotent). */
  close(): void;
}

/** Batches writes per event-loop turn: `flush` gets the text written since the last one. */
function batcher(flush: (text: string) => void) {
  let pending = '';
  let scheduled = false;
  let open = false;
  const run = () => {
    scheduled = false;
    if (!open || pending === '') return;
    const text = pending;
    pending = '';
    flush(text);
  };
  return {
    write(text: string) {
      pending += text;
      if (scheduled || !open) return;
      scheduled = true;
      setImmediate(run);
    },
    /** Lets the pending and later text flow. */
    open() {
      open = true;
      if (pending !== '' && !scheduled) {
        scheduled = true;
        setImmediate(run);
      }
    },
    /** What is still pending, taken out. */
    take(): string {
      const text = pending;
      pending = '';
      return text;
    },
  };
}

/** A web `ReadableStream` body; `onCancel` runs when the client goes away before it closed. */
export function webEventBody(onCancel: () => void): EventBody {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  const stream = new ReadableStream<Uint8Array>({
    start(started) {
      controller = started;
    },
    cancel() {
      closed = true;
      onCancel();
    },
  });
  const batches = batcher((text) => {
    if (!closed) controller.enqueue(encoder.encode(text));
  });
  return {
    write: (text) => {
      if (!closed) batches.write(text);
    },
    respond(headers) {
      batches.open();
      return new Response(stream, { headers });
    },
    close() {
      if (closed) return;
      const rest = batches.take();
      if (rest !== '') controller.enqueue(encoder.encode(rest));
      closed = true;
      controller.close();
    },
  };
}

/** A body written straight to `outgoing`; `onCancel` runs when the client goes away before it closed. */
export function nodeEventBody(outgoing: ServerResponse, onCancel: () => void): EventBody {
  let closed = false;
  let headers: Record<string, string> | null = null;
  const begin = () => {
    if (headers === null || outgoing.headersSent) return;
    outgoing.writeHead(200, headers);
  };
  // The socket, while this body holds it corked.
  let corked: Socket | null = null;
  const uncork = () => {
    const socket = corked;
    corked = null;
    socket?.uncork();
  };
  const batches = batcher((text) => {
    if (closed || outgoing.destroyed) return;
    begin();
    // Events wait in the corked socket until the next turn of the event loop: an answer that ends
    // in this one (its last write stored, then `close`) leaves with its end in the same socket
    // write, since `end` uncorks the socket fully. The socket is corked, not the response: Node 22
    // sends a corked response's buffered chunks after the terminating chunk `end` writes.
    if (corked === null && outgoing.socket) {
      corked = outgoing.socket;
      corked.cork();
      setImmediate(uncork);
    }
    outgoing.write(text);
  });
  outgoing.once('close', () => {
    if (closed) return;
    closed = true;
    onCancel();
  });
  return {
    write: (text) => {
      if (!closed) batches.write(text);
    },
    respond(given) {
      headers = given;
      batches.open();
      // The adapter leaves a response the app wrote itself alone.
      return RESPONSE_ALREADY_SENT;
    },
    close() {
      if (closed) return;
      closed = true;
      const rest = batches.take();
      if (headers === null || outgoing.destroyed) {
        uncork();
        return;
      }
      begin();
      // `end` uncorks the socket fully: it is no longer this body's to uncork.
      corked = null;
      outgoing.end(rest);
    },
  };
}
