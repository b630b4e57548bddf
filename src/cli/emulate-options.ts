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

/** Requests `hermes emulate` keeps in its log by default (`--keep-requests`, `HERMES_EMULATE_KEEP_REQUESTS`). */
export const DEFAULT_KEPT_REQUESTS = 100;

/** Body text the log keeps at most, whatever the count: 64 MiB (a long conversation resent every turn is megabytes). */
export const KEPT_REQUEST_BYTES = 64 * 1024 * 1024;

/** The flag every `hermes emulate FAMILY` takes for its request log. */
export interface EmulateLogFlags {
  keepRequests?: number;
}

/**
 * Adds `--keep-requests N`: how many requests `GET /_emulator/requests` keeps (the oldest are
 * dropped first; also at most 64 MiB of bodies). Default `HERMES_EMULATE_KEEP_REQUESTS`, else 100.
 */
export function addRequestLogOption(command: Command): Command {
  return command.option(
    '--keep-requests <count>',
    `requests the log (GET /_emulator/requests) keeps, oldest dropped first, at most 64 MiB of bodies (default: HERMES_EMULATE_KEEP_REQUESTS, else ${DEFAULT_KEPT_REQUESTS})`,
    (value) => parseKeptRequests(value, '--keep-requests'),
  );
}

/** The request-log bounds of the flags (the environment's default when the flag is absent). */
export function requestLogLimits(
  flags: EmulateLogFlags,
  environment: NodeJS.ProcessEnv = process.env,
): { maxRequests: number; maxBytes: number } {
  const fromEnvironment = environment['HERMES_EMULATE_KEEP_REQUESTS'];
  const maxRequests =
    flags.keepRequests ??
    (fromEnvironment === undefined || fromEnvironment.trim() === ''
      ? DEFAULT_KEPT_REQUESTS
      : parseKeptRequests(fromEnvironment.trim(), 'HERMES_EMULATE_KEEP_REQUESTS'));
  return { maxRequests, maxBytes: KEPT_REQUEST_BYTES };
}

function parseKeptRequests(value: string, name: string): number {
  const count = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(count)) {
    throw new UsageError(`${name} must be a whole number of requests (0 keeps none), got "${value}"`);
  }
  return count;
}
