import { describe, expect, it } from 'vitest';
import { Deadline, deadlineClock } from '../../../src/transports/shared/deadline-clock.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('deadlineClock', () => {
  it('fires each deadline once, in time order, never before its time', async () => {
    const fired: [string, number][] = [];
    const start = performance.now();
    const at = (name: string) => new Deadline(() => fired.push([name, performance.now() - start]));
    const late = at('late');
    const early = at('early');
    const cancelled = at('cancelled');
    deadlineClock.schedule(late, start + 60);
    deadlineClock.schedule(early, start + 20);
    deadlineClock.schedule(cancelled, start + 10);
    deadlineClock.cancel(cancelled);
    await sleep(120);
    expect(fired.map(([name]) => name)).toEqual(['early', 'late']);
    expect(fired[0]?.[1]).toBeGreaterThanOrEqual(19);
    expect(fired[1]?.[1]).toBeGreaterThanOrEqual(59);
  });

  it('finds a deadline moved later when it wakes, and fires it then', async () => {
    const fired: number[] = [];
    const start = performance.now();
    const idle = new Deadline(() => fired.push(performance.now() - start));
    deadlineClock.schedule(idle, start + 20);
    await sleep(10);
    idle.at = performance.now() + 40; // progress: the window starts again
    await sleep(25);
    expect(fired).toEqual([]);
    await sleep(60);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toBeGreaterThanOrEqual(49);
  });

  it('wakes for a deadline earlier than the one it sleeps for', async () => {
    const fired: string[] = [];
    const hour = new Deadline(() => fired.push('hour'));
    deadlineClock.schedule(hour, performance.now() + 3_600_000);
    const soon = new Deadline(() => fired.push('soon'));
    deadlineClock.schedule(soon, performance.now() + 15);
    await sleep(50);
    expect(fired).toEqual(['soon']);
    deadlineClock.cancel(hour);
  });

  it('keeps the others when deadlines in the middle are cancelled', async () => {
    const fired: number[] = [];
    const deadlines = [0, 1, 2, 3, 4].map((index) => new Deadline(() => fired.push(index)));
    const start = performance.now();
    deadlines.forEach((deadline, index) => deadlineClock.schedule(deadline, start + 10 + index));
    deadlineClock.cancel(deadlines[1] as Deadline);
    deadlineClock.cancel(deadlines[3] as Deadline);
    deadlineClock.cancel(deadlines[3] as Deadline); // twice: nothing more happens
    await sleep(60);
    expect(fired.sort()).toEqual([0, 2, 4]);
  });
});
