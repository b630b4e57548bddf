import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { startResponsesEmulator } from '../emulators/responses/responses-emulator.js';

/**
 * `hermes emulate responses`: runs the OpenAI Responses emulator until SIGINT/SIGTERM. Two
 * instances with different `--issuer` values act as two deployments whose encrypted reasoning
 * does not verify at each other.
 */

/** Parses `--port` (0–65535). */
function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--port must be an integer between 0 and 65535, got "${value}"`);
  }
  return port;
}

/** Adds the `responses` subcommand to the `hermes emulate` parent. */
export function registerEmulateResponsesCommand(emulate: Command): void {
  emulate
    .command('responses')
    .description('run a local OpenAI Responses API emulator (POST /v1/responses, encrypted reasoning)')
    .option('--port <port>', 'port to listen on (0 = any free port)', parsePort, 0)
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--issuer <name>', 'issuer identity sealed into encrypted_content', 'openai')
    .option('--rotate-ids', 'rotate item ids between output_item.added and .done, as GitHub Copilot does')
    .action(async (options: { port: number; host: string; issuer: string; rotateIds?: boolean }) => {
      const emulator = await startResponsesEmulator({
        host: options.host,
        port: options.port,
        issuer: options.issuer,
        rotateIds: options.rotateIds === true,
      });
      process.stdout.write(`emulator responses listening on ${emulator.baseUrl}\n`);
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      await emulator.close();
    });
}
