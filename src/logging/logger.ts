import { mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { knownSecrets, redactText } from '../core/redact.js';

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

/**
 * A log file written in the background: lines are queued and written together, with one
 * synchronous write, once the current task has finished (`setImmediate`), so logging never
 * blocks a gateway turn on the disk. Because no write is ever in flight outside the main thread,
 * {@link flushLogs} can write everything queued at any moment and the file holds every line, in
 * order (an asynchronous write still running in the thread pool could neither be waited for
 * nor repeated: a flush at exit lost it, and a flush in between wrote later lines first).
 */
class BackgroundLogFile {
  private queued: string[] = [];
  private scheduled = false;

  constructor(private readonly fd: number) {}

  write(line: string): boolean {
    this.queued.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flushSync());
    }
    return true;
  }

  /** Writes every queued line now. */
  flushSync(): void {
    this.scheduled = false;
    if (this.queued.length === 0) return;
    const text = this.queued.join('');
    this.queued = [];
    writeAll(this.fd, text);
  }
}

/** Writes all of `text` (a write may take only part of it). */
function writeAll(fd: number, text: string): void {
  let buffer = Buffer.from(text, 'utf8');
  while (buffer.length > 0) buffer = buffer.subarray(writeSync(fd, buffer));
}

/** A log file's destination: synchronous (pino's), or {@link BackgroundLogFile}. */
type LogDestination = { write(line: string): unknown; flushSync(): void };

/** Every background log file of the process, flushed by {@link flushLogs}. */
const destinations = new Set<BackgroundLogFile>();

/** Keys known to this process besides the environment's (a `--api-key` flag), redacted from every line. */
const extraSecrets = new Set<string>();

/**
 * Adds `secret` to what every log line of this process is redacted of (the environment's
 * credentials always are): call it with a key that did not come from the environment.
 */
export function redactFromLogs(secret: string | undefined): void {
  // Through knownSecrets: a value too short to be a key (`k`) would erase letters of every line.
  for (const known of knownSecrets(secret, {})) extraSecrets.add(known);
}

/**
 * The one redaction, on each serialized line before it reaches a file: whatever a caller logged
 * (an error's message, a request id a provider echoed, a URL with `?key=` or a password), the
 * known keys, their pieces and every credential shape leave as `[redacted]` (core/redact.ts).
 */
function redactingStream(destination: LogDestination): { write(line: string): unknown } {
  return { write: (line) => destination.write(redactText(line, logSecrets())) };
}

/** The environment's credentials (read once per process) plus {@link extraSecrets}, longest first. */
let cachedSecrets: { extra: number; secrets: string[] } | null = null;

function logSecrets(): string[] {
  if (cachedSecrets?.extra === extraSecrets.size) return cachedSecrets.secrets;
  const secrets = knownSecrets(undefined, process.env);
  for (const secret of extraSecrets) if (!secrets.includes(secret)) secrets.push(secret);
  secrets.sort((left, right) => right.length - left.length);
  cachedSecrets = { extra: extraSecrets.size, secrets };
  return secrets;
}

/**
 * Writes out every line still queued for a log file, synchronously. Runs on process `exit`
 * (normal end, `process.exit`, a stopped gateway), so a process loses no line it logged.
 */
export function flushLogs(): void {
  for (const destination of destinations) {
    try {
      destination.flushSync();
    } catch {
      // A log file that can no longer be written has nothing more to give.
    }
  }
}

/**
 * A log file opened synchronously (so {@link flushLogs} can always write it). `sync: false`
 * writes in the background ({@link BackgroundLogFile}): a log line never blocks a gateway turn.
 */
function logFile(path: string, sync: boolean): LogDestination {
  const fd = openSync(path, 'a');
  if (sync) return pino.destination({ fd, sync: true });
  if (destinations.size === 0) process.once('exit', flushLogs);
  const destination = new BackgroundLogFile(fd);
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
      { level: 'info', stream: redactingStream(main) },
      { level: 'warn', stream: redactingStream(errors) },
    ]),
  );
}

/** A logger that drops everything (tests, `replay preview`). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

export type { Logger };
