/** What `run` throws (undefined when it returns), for tests that inspect the error's fields. */
export function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}
