import type { Command } from 'commander';
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

/** The effort flags every `hermes emulate FAMILY` takes, as parsed by commander. */
export interface EmulateEffortFlags {
  acceptEffort?: string[];
  alwaysThinks?: boolean;
}

/**
 * Adds `--accept-effort WORDS` and `--always-thinks`: the emulated model's effort rules. A
 * request outside them gets the family's 400 (an effort value it does not take, or thinking
 * turned off on a model that always thinks), as the provider answers it.
 */
export function addEffortOptions(command: Command): Command {
  return command
    .option(
      '--accept-effort <words>',
      'reasoning effort words the model takes (comma-separated, e.g. low,medium,high); others get the 400 the provider sends',
      parseWords,
    )
    .option('--always-thinks', 'the model always thinks: turning thinking off gets the 400 the provider sends');
}

/** The emulator options of the effort flags. */
export function effortRules(flags: EmulateEffortFlags): { acceptEfforts?: string[]; alwaysThinks: boolean } {
  return {
    ...(flags.acceptEffort === undefined ? {} : { acceptEfforts: flags.acceptEffort }),
    alwaysThinks: flags.alwaysThinks === true,
  };
}

function parseWords(value: string): string[] {
  const words = value
    .split(',')
    .map((word) => word.trim())
    .filter((word) => word !== '');
  if (!words.length) throw new UsageError('--accept-effort needs at least one word (e.g. low,high)');
  return words;
}
