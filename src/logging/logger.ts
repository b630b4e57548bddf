import { mkdirSync } from 'node:fs';
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

/**
 * Opens the JSON-lines logger for `$HERMES_HOME/logs/`: `agent.log` (or `gateway.log`) gets
 * INFO and above, `errors.log` WARNING and above (SPEC §20). Writes are synchronous so a CLI
 * process that exits right after a turn loses nothing.
 */
export function openLogger(logsDir: string, family: LogFamily = 'agent'): Logger {
  mkdirSync(logsDir, { recursive: true, mode: 0o700 });
  const main = pino.destination({ dest: join(logsDir, `${family}.log`), sync: true, mkdir: true });
  const errors = pino.destination({ dest: join(logsDir, 'errors.log'), sync: true, mkdir: true });
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
