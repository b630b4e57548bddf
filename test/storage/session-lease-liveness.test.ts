import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { processAlive, statShowsExit } from '../../src/storage/session-lease.js';

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

describe('reading /proc/PID/stat', () => {
  // Fields as proc(5) numbers them: pid (comm) state ppid pgrp session tty_nr tpgid flags …
  const line = (state: string, flags: number) =>
    `4242 (hermes gateway) ${state} 1 4242 4242 0 -1 ${flags} 120 0 0 0 5 2 0 0 20 0 11 0 100 0`;

  it('a running or sleeping process has not exited; a zombie, a dead one and an exiting one have', () => {
    expect(statShowsExit(line('R', 0x400000))).toBe(false);
    expect(statShowsExit(line('S', 0x400040))).toBe(false);
    expect(statShowsExit(line('Z', 0x400004))).toBe(true);
    expect(statShowsExit(line('X', 0))).toBe(true);
    // Killed: still running its exit (state R or D), its sockets already closed.
    expect(statShowsExit(line('R', 0x400044))).toBe(true);
    expect(statShowsExit(line('D', 0x4))).toBe(true);
  });

  it('counts fields from the end of the command name, which may hold spaces and parentheses', () => {
    expect(statShowsExit('77 (a ) b) S 1 77 77 0 -1 4194560 0 0')).toBe(false);
    expect(statShowsExit('77 (a ) b) S 1 77 77 0 -1 4194564 0 0')).toBe(true);
  });
});
