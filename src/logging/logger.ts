import { mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';

/** Which log family a process writes: the CLI agent or the gateway. */
export type LogFamily = 'agent' | 'gateway';

/**
 * Paths that must never reach a log line even if someone passes them by mistake: API keys,
 * authorization headers, tokens. Carrier values are not passed to the logger at all (only
 * sizes and hashes, SPEC §23.3).
 */
const REDACT_PATHS = [
  'apiKey',
  '*.apiKey',
  'api_key',
  '*.api_key',
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers["api-key"]',
  'headers["x-goog-api-key"]',
];

/** A log file's destination: written asynchronously, flushed synchronously at exit. */
type LogDestination = ReturnType<typeof pino.destination>;

/** Every open log file of the process, flushed by {@link flushLogs}. */
const destinations = new Set<LogDestination>();

/**
 * Writes out every line still queued for a log file, synchronously. Runs on process `exit`
 * (normal end, `process.exit`, a stopped gateway), so a process loses no line it logged.
 */
export function flushLogs(): void {
  for (const destination of destinations) {
    try {
      destination.flushSync();
    } catch {
      // A destination already closed has nothing left to write.
    }
  }
}

/**
 * A log file opened synchronously (so {@link flushLogs} can always write it). `sync: false`
 * writes in the background: a log line never blocks a gateway turn on the disk.
 */
function logFile(path: string, sync: boolean): LogDestination {
  const destination = pino.destination({ fd: openSync(path, 'a'), sync });
  if (sync) return destination;
  if (destinations.size === 0) process.once('exit', flushLogs);
  destinations.add(destination);
  return destination;
}

/**
 * Opens the JSON-lines logger for `$HERMES_HOME/logs/`: `agent.log` (or `gateway.log`) gets
 * INFO and above, `errors.log` WARNING and above (SPEC §20). The agent (one turn at a time, a
 * process that may exit right after it) writes synchronously; the gateway, serving many sessions
 * on one thread, writes in the background and flushes what is queued when the process exits
 * ({@link flushLogs}), so a stopped gateway loses no line either.
 */
export function openLogger(logsDir: string, family: LogFamily = 'agent'): Logger {
  mkdirSync(logsDir, { recursive: true, mode: 0o700 });
  const sync = family === 'agent';
  const main = logFile(join(logsDir, `${family}.log`), sync);
  const errors = logFile(join(logsDir, 'errors.log'), sync);
  return pino(
    {
      level: 'info',
      base: { pid: process.pid, family },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    pino.multistream([
      { level: 'info', stream: main },
      { level: 'warn', stream: errors },
    ]),
  );
}

/** A logger that drops everything (tests, `replay preview`). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

export type { Logger };
