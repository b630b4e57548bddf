/**
 * Per-session turn serialization. Choice: a request for a session that is
 * busy WAITS in a first-come queue (clients need no retry logic); past `maxWaiting` queued turns
 * on one session the next request gets HTTP 409 instead of piling up. Different sessions never
 * wait for each other. In-process only: a Map of promise chains (several gateway processes on
 * one store would need the store's own lock, SPEC §23.6).
 */
export class SessionTurnLock {
  private readonly tails = new Map<string, { tail: Promise<void>; holders: number }>();

  /** @param maxWaiting turns allowed to wait behind the running one on one session. */
  constructor(private readonly maxWaiting: number) {}

  /** Turns running or waiting on `sessionId` (0 when idle). */
  pending(sessionId: string): number {
    return this.tails.get(sessionId)?.holders ?? 0;
  }

  /**
   * Waits for the session's earlier turns, then resolves with a release function (call it
   * exactly once, in a `finally`). Returns null without queueing when the queue is full.
   */
  async acquire(sessionId: string): Promise<(() => void) | null> {
    const entry = this.tails.get(sessionId) ?? { tail: Promise.resolve(), holders: 0 };
    if (entry.holders > this.maxWaiting) return null;
    let release!: () => void;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    const previous = entry.tail;
    entry.tail = previous.then(() => done);
    entry.holders += 1;
    this.tails.set(sessionId, entry);
    await previous;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      entry.holders -= 1;
      // The last holder removes the entry so idle sessions cost no memory.
      if (entry.holders === 0 && this.tails.get(sessionId) === entry) this.tails.delete(sessionId);
      release();
    };
  }
}
