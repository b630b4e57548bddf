import type { CliContext, CliContextOptions } from './cli-context.js';

/**
 * The CLI context for command modules that register at start-up: `cli-context.ts` (config, store,
 * logger) is loaded when a command runs, not when it is registered, so `hermes --help` stays fast.
 */

/** Runs `body` with a CLI context; the store and config load on first use, not at registration. */
export async function withCliContext<T>(
  body: (context: CliContext) => Promise<T>,
  options: CliContextOptions = {},
): Promise<T> {
  return (await import('./cli-context.js')).withCliContext(body, options);
}

/** What a command that only reads the store passes: a broken config.yaml is a warning, not a failure. */
export const READ_ONLY: CliContextOptions = { readOnly: true };
