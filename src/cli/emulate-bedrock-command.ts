import type { Command } from 'commander';
import { parseEmulatorPort, waitForStopSignal } from './emulate-command.js';
import { startBedrockEmulator } from '../emulators/bedrock-converse/bedrock-converse-emulator.js';

/**
 * `hermes emulate bedrock [--port N] [--host H]`: runs the Bedrock Converse emulator until
 * SIGINT/SIGTERM. Point a route at it with `--api bedrock_converse --base-url <printed URL>`;
 * any AWS credentials (or a Bedrock API key) work, since the emulator only requires that a
 * SigV4 or bearer Authorization header is present.
 */
export function registerEmulateBedrockCommand(emulate: Command): void {
  emulate
    .command('bedrock')
    .description('Run a local AWS Bedrock Converse / ConverseStream emulator (signed Claude thinking, per-model rules)')
    .option('--port <number>', 'port to listen on (0 = any free port)', '0')
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .action(async (options: { port: string; host: string }) => {
      const port = parseEmulatorPort(options.port);
      const emulator = await startBedrockEmulator({ host: options.host, port });
      process.stdout.write(`emulator bedrock listening on ${emulator.baseUrl}\n`);
      await waitForStopSignal();
      await emulator.close();
    });
}
