import { UsageError } from '../core/errors.js';
import { listenFailure } from '../core/listen-errors.js';

/**
 * What every `hermes emulate FAMILY` subcommand shares: the `--port` parser, the help line about
 * the control endpoints, and the wait for a stop signal.
 */

/** Parses `--port` (0–65535; 0 picks a free port). */
export function parseEmulatorPort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || !Number.isInteger(port) || port > 65535) {
    throw new UsageError(`--port must be an integer between 0 and 65535, got "${value}"`);
  }
  return port;
}

/** Help text naming the `/_emulator/*` control endpoints every emulator serves. */
export const CONTROL_ENDPOINTS_HELP =
  '\nControl endpoints: GET /_emulator/requests (request log), DELETE /_emulator/requests (clear it), POST /_emulator/faults (queue faults).';

/** Resolves when the process receives SIGINT or SIGTERM. */
export function waitForStopSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** Starts an emulator on `host:port`; a failed bind (port in use, ...) becomes one line. */
export async function listening<T>(host: string, port: number, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    const failure = error as NodeJS.ErrnoException | null;
    if (failure?.syscall === 'listen') throw listenFailure(failure, host, port);
    throw error;
  }
}
