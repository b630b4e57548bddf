import type { ExchangeAbort } from './transport-http-exchange.js';

/**
 * The abort of one provider request: the caller's abort or a time limit
 * (`transport-deadlines.ts`), read by the pooled exchange and the body watcher.
 *
 * Not an `AbortController`: on Node 20 every `AbortSignal` costs several kilobytes of hidden
 * classes that outlive the request in the old generation (docs/performance.md), and a turn
 * sends at least one request. A request that goes through a caller's `fetch` gets a real signal
 * ({@link toAbortSignal}). Listeners run once, in the order they were added, when it aborts.
 */
export class RequestAbort implements ExchangeAbort {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] = [];

  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const index = this.listeners.indexOf(listener);
    if (index !== -1) this.listeners.splice(index, 1);
  }

  /** As `AbortController.abort`: no reason is an `AbortError` `DOMException`. */
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }
}

/** `abort` as a web `AbortSignal` (what `fetch` takes): itself when it is one. */
export function toAbortSignal(abort: ExchangeAbort): AbortSignal {
  if (abort instanceof AbortSignal) return abort;
  const controller = new AbortController();
  if (abort.aborted) controller.abort(abort.reason);
  else abort.addEventListener('abort', () => controller.abort(abort.reason), { once: true });
  return controller.signal;
}
