import { pbkdf2 } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { flushLogs, openLogger } from '../../src/logging/logger.js';

// The gateway's log files are written in the background (logger.ts); what is still queued is
// written out when the process exits, so no line is lost on a normal shutdown.

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function logsDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'hermes-log-flush-'));
  directories.push(directory);
  return directory;
}

function lines(path: string): string[] {
  return readFileSync(path, 'utf8').split('\n').filter(Boolean);
}

describe('gateway log files', () => {
  it.each([
    ['on an idle machine', 0],
    // A busy libuv thread pool (a loaded machine; here four slow key derivations) delays any write
    // handed to it: a flush must not leave such a write behind, or lose it at exit.
    ['with the thread pool busy', 4],
  ])('flushLogs writes every queued line of gateway.log and errors.log, in order (%s)', (_when, busyThreads) => {
    for (let thread = 0; thread < busyThreads; thread += 1) pbkdf2('x', 'y', 200_000, 64, 'sha512', () => undefined);
    const directory = logsDirectory();
    const logger = openLogger(directory, 'gateway');
    for (let index = 0; index < 2000; index += 1) logger.info({ index }, `line ${index}`);
    logger.warn('a warning');
    flushLogs();
    const written = lines(join(directory, 'gateway.log'));
    expect(written).toHaveLength(2001);
    expect(written.slice(0, 2000).map((line) => (JSON.parse(line) as { index: number }).index)).toEqual(
      Array.from({ length: 2000 }, (_, index) => index),
    );
    expect(lines(join(directory, 'errors.log')).map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual([
      'a warning',
    ]);
  });
});
