/**
 * The body of a streamed answer (`text/event-stream`). Events written during one turn of the
 * event loop leave as one chunk, flushed once that turn's I/O callbacks and microtasks are done
 * (`setImmediate`): every delta one provider read produced goes to the client in one socket
 * write instead of one write per delta, and no delta waits for a later read. `close` flushes
 * what is pending and ends the body.
 */
export interface EventBody {
  /** The bytes of the response. */
  readonly stream: ReadableStream<Uint8Array>;
  /** Queues `text` (whole SSE frames) for the next flush; ignored once closed. */
  write(text: string): void;
  /** Flushes and ends the body (idempotent). */
  close(): void;
}

/** Creates an {@link EventBody}; `onCancel` runs when the client goes away before it closed. */
export function createEventBody(onCancel: () => void): EventBody {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let pending = '';
  let scheduled = false;
  let closed = false;
  const flush = () => {
    scheduled = false;
    if (closed || pending === '') return;
    controller.enqueue(encoder.encode(pending));
    pending = '';
  };
  const stream = new ReadableStream<Uint8Array>({
    start(started) {
      controller = started;
    },
    cancel() {
      closed = true;
      pending = '';
      onCancel();
    },
  });
  return {
    stream,
    write(text) {
      if (closed) return;
      pending += text;
      if (scheduled) return;
      scheduled = true;
      setImmediate(flush);
    },
    close() {
      if (closed) return;
      flush();
      closed = true;
      controller.close();
    },
  };
}
