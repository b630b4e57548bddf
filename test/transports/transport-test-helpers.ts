import type { StreamEvent } from '../../src/core/stream-event.js';

/** Small helpers the transport tests share across wire folders. */

/**
 * The error a sent request ended with, read from its `result()`; `undefined` when it ended with a
 * message, so an `expect(...).toBeInstanceOf(...)` on the value fails instead of the test throwing.
 */
export function failureOf(stream: { result(): Promise<unknown> }): Promise<unknown> {
  return stream.result().then(
    () => undefined,
    (caught: unknown) => caught,
  );
}

/** Every event of a stream, the terminal one included. */
export async function collectEvents(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}
