import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { processAlive } from '../../src/storage/session-lease.js';

/**
 * A lease holder is alive only while its process runs (SPEC §23.6): a process that exited but was
 * not yet reaped by its parent (a zombie, as right after a supervisor's SIGKILL) holds nothing.
 */
describe.skipIf(!existsSync('/proc/self/stat'))('lease holder liveness', () => {
  it('a running process is alive; a zombie and a missing pid are not', async () => {
    expect(processAlive(process.pid)).toBe(true);
    // `sleep 0.5` exits after the shell has become `sleep 5` (exec), which never reaps it. (A child
    // exiting before the exec could be reaped by the shell itself, leaving no zombie.)
    const shell = spawn('sh', ['-c', 'sleep 0.5 & echo $!; exec sleep 5'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const zombie = await new Promise<number>((done) =>
        shell.stdout.once('data', (chunk: Buffer) => done(Number(chunk.toString().trim()))),
      );
      expect(zombie).toBeGreaterThan(0);
      // Wait until `sleep 0.5` has exited (it is then a zombie until `sleep 5` ends).
      for (let poll = 0; poll < 400 && processAlive(zombie); poll += 1)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(processAlive(zombie)).toBe(false);
      expect(() => process.kill(zombie, 0)).not.toThrow(); // still in the process table: a zombie
    } finally {
      shell.kill('SIGKILL');
    }
    expect(processAlive(2 ** 22 + 12345)).toBe(false);
  });
});
