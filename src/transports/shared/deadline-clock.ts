/**
 * Deadlines that share one timer: every provider request has three (first byte, idle, total;
 * `transport-deadlines.ts`), and a timer per deadline costs a timer object, a list insertion and
 * a removal per request. Here a deadline is a time in a set; one unref'd timer sleeps until the
 * earliest, fires what is due and sleeps again until the next. Moving a deadline later (the idle
 * clock on every chunk of data) is a field write: the timer finds the new time when it wakes.
 *
 * Rules: times are `performance.now()` milliseconds; a deadline fires at most once and never
 * before its time; `fire` runs from the timer, never inside `schedule` or `cancel`.
 */
export class Deadline {
  /** When it fires (`performance.now()` ms); may be moved while scheduled. */
  at = Number.POSITIVE_INFINITY;
  /** Its place in the clock's list, -1 when not scheduled. */
  slot = -1;

  constructor(readonly fire: () => void) {}
}

class DeadlineClock {
  /** The scheduled deadlines, in no order (a cancel moves the last one into the freed slot). */
  private readonly pending: Deadline[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The time the timer wakes at (infinity when it is not set). */
  private wakeAt = Number.POSITIVE_INFINITY;

  /** Schedules `deadline` to fire at `at`, or reschedules it. */
  schedule(deadline: Deadline, at: number): void {
    deadline.at = at;
    if (deadline.slot === -1) {
      deadline.slot = this.pending.length;
      this.pending.push(deadline);
    }
    if (at < this.wakeAt) this.wakeUpAt(at);
  }

  /** Takes `deadline` out; it will not fire. */
  cancel(deadline: Deadline): void {
    if (!this.remove(deadline) || this.pending.length > 0) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.wakeAt = Number.POSITIVE_INFINITY;
  }

  private remove(deadline: Deadline): boolean {
    const { slot } = deadline;
    if (slot === -1) return false;
    const last = this.pending.pop() as Deadline;
    if (last !== deadline) {
      this.pending[slot] = last;
      last.slot = slot;
    }
    deadline.slot = -1;
    return true;
  }

  private wakeUpAt(at: number): void {
    clearTimeout(this.timer);
    this.wakeAt = at;
    // Unref'd: a deadline never keeps the process alive on its own (the open socket does).
    this.timer = setTimeout(this.wake, Math.max(0, Math.ceil(at - performance.now()))).unref();
  }

  private readonly wake = (): void => {
    this.timer = undefined;
    this.wakeAt = Number.POSITIVE_INFINITY;
    const now = performance.now();
    const due: Deadline[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const deadline of this.pending) {
      if (deadline.at <= now) due.push(deadline);
      else if (deadline.at < next) next = deadline.at;
    }
    for (const deadline of due) this.remove(deadline);
    if (next < this.wakeAt) this.wakeUpAt(next);
    for (const deadline of due) deadline.fire();
  };
}

/** The process's clock for provider request deadlines. */
export const deadlineClock = new DeadlineClock();
