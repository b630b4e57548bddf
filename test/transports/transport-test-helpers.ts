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
