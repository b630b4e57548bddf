import type { Command } from 'commander';
import {
  CONTROL_ENDPOINTS_HELP,
  parseEmulatorPort,
  waitForStopSignal,
  listening,
  addRequestLogOption,
  type EmulateLogFlags,
  requestLogLimits,
} from './emulate-options.js';

/**
 * `hermes emulate bedrock [--port N] [--host H]`: runs the Bedrock Converse emulator until
 * SIGINT/SIGTERM. Point a route at it with `--api bedrock_converse --base-url <printed URL>`;
 * any AWS credentials (or a Bedrock API key) work, since the emulator only requires that a
 * SigV4 or bearer Authorization header is present.
 */

/** Adds the `bedrock` subcommand to the `hermes emulate` parent. */
export function registerEmulateBedrockCommand(emulate: Command): void {
  const command = emulate
    .command('bedrock')
    .description('Run a local AWS Bedrock Converse / ConverseStream emulator (signed Claude thinking, per-model rules)')
    .option('--port <port>', 'port to listen on (0 = any free port)', parseEmulatorPort, 0)
    .option('--host <host>', 'interface to bind', '127.0.0.1');
  addRequestLogOption(command)
    .addHelpText('after', CONTROL_ENDPOINTS_HELP)
    .action(async (flags: { port: number; host: string } & EmulateLogFlags) => {
      const { startBedrockEmulator } = await import('../emulators/bedrock-converse/bedrock-converse-emulator.js');
      const emulator = await listening(flags.host, flags.port, () =>
        startBedrockEmulator({ host: flags.host, port: flags.port, requestLog: requestLogLimits(flags) }),
      );
      process.stdout.write(`emulator bedrock listening on ${emulator.baseUrl}\n`);
      await waitForStopSignal();
      await emulator.close();
    });
}
