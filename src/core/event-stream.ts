import { HermesError } from './errors.js';
import type { AssistantMessage } from './message.js';
import type { StreamEvent } from './stream-event.js';

/**
 * A push-based stream of {@link StreamEvent}s that is an `AsyncIterable` and also exposes
 * `result()`: a promise of the assembled assistant message that rejects with the terminal
 * error (STYLE rule 4 (docs/architecture.md)). Producers call `push()` then exactly one `end()`; later pushes are
 * ignored, so a half message can never follow a terminal event.
 */
export class EventStream implements AsyncIterable<StreamEvent> {
  private readonly queue: StreamEvent[] = [];
  private readonly waiters: ((result: IteratorResult<StreamEvent>) => void)[] = [];
  private done = false;
  private readonly final: Promise<AssistantMessage>;
  private resolveFinal!: (message: AssistantMessage) => void;
  private rejectFinal!: (error: HermesError) => void;
  private readonly filter: ((event: StreamEvent) => StreamEvent) | undefined;

  /**
   * @param options.filter applied to every event before it is delivered (transports redact
   * secrets from errors and retry reasons here, the one exit of a transport).
   */
  constructor(options: { filter?: (event: StreamEvent) => StreamEvent } = {}) {
    this.filter = options.filter;
    this.final = new Promise<AssistantMessage>((resolve, reject) => {
      this.resolveFinal = resolve;
      this.rejectFinal = reject;
    });
    // A consumer that only iterates must not trigger an unhandled rejection.
    this.final.catch(() => undefined);
  }

  /** Emits a non-terminal event. Ignored after the stream ended. */
  push(event: StreamEvent): void {
    if (this.done) return;
    if (event.type === 'finish' || event.type === 'error') {
      this.end(event);
      return;
    }
    this.deliver(this.filter ? this.filter(event) : event);
  }

  /** Emits the terminal event and closes the stream. Only the first call counts. */
  end(terminal: Extract<StreamEvent, { type: 'finish' | 'error' }>): void {
    if (this.done) return;
    const event = this.filter ? (this.filter(terminal) as typeof terminal) : terminal;
    this.deliver(event);
    this.done = true;
    if (event.type === 'finish') this.resolveFinal(event.message);
    else this.rejectFinal(event.error);
    for (const waiter of this.waiters.splice(0)) waiter({ value: undefined, done: true });
  }

  /** Ends the stream with an error built from anything thrown. */
  fail(error: unknown): void {
    const hermesError =
      error instanceof HermesError ? error : new HermesError(error instanceof Error ? error.message : String(error));
    this.end({ type: 'error', error: hermesError });
  }

  /** True once a terminal event was emitted. */
  get ended(): boolean {
    return this.done;
  }

  /** The assembled assistant message; rejects with the terminal error. */
  result(): Promise<AssistantMessage> {
    return this.final;
  }

  private deliver(event: StreamEvent): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter({ value: event, done: false });
    else this.queue.push(event);
  }

  /**
   * The next event: itself when one is queued (no promise, no microtask), otherwise a promise of
   * it; undefined once the stream ended. For a consumer that reads every event of a request, as
   * iterating does, without a promise per event (events arrive in bursts, one per network read).
   */
  take(): StreamEvent | undefined | Promise<StreamEvent | undefined> {
    const event = this.queue.shift();
    if (event) return event;
    if (this.done) return undefined;
    return new Promise((resolve) => this.waiters.push((result) => resolve(result.done ? undefined : result.value)));
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
    return {
      next: () => {
        const event = this.queue.shift();
        if (event) return Promise.resolve({ value: event, done: false });
        if (this.done) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => this.waiters.push(resolve));
      },
    };
  }
}
