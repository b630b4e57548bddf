import type { Command } from 'commander';
import {
  addEffortOptions,
  CONTROL_ENDPOINTS_HELP,
  type EmulateEffortFlags,
  effortRules,
  parseEmulatorPort,
  waitForStopSignal,
  listening,
  addRequestLogOption,
  type EmulateLogFlags,
  requestLogLimits,
} from './emulate-options.js';

/**
 * `hermes emulate gemini [--port N] [--host H]`: runs the Gemini emulator (AI Studio and Vertex AI
 * path shapes, thought-signature replay enforced with Google's exact errors) until SIGINT/SIGTERM.
 */

/** Adds the `gemini` subcommand to the `hermes emulate` parent. */
export function registerEmulateGeminiCommand(emulate: Command): void {
  const command = emulate
    .command('gemini')
    .description('Run a local Gemini emulator (AI Studio + Vertex AI paths, thought signatures enforced)')
    .option('--port <port>', 'port to listen on (0 = any free port)', parseEmulatorPort, 0)
    .option('--host <host>', 'interface to bind', '127.0.0.1');
  addRequestLogOption(addEffortOptions(command))
    .addHelpText('after', CONTROL_ENDPOINTS_HELP)
    .action(async (flags: { port: number; host: string } & EmulateEffortFlags & EmulateLogFlags) => {
      const { startGeminiEmulator } = await import('../emulators/gemini/gemini-emulator.js');
      const emulator = await listening(flags.host, flags.port, () =>
        startGeminiEmulator({
          port: flags.port,
          host: flags.host,
          requestLog: requestLogLimits(flags),
          ...effortRules(flags),
        }),
      );
      process.stdout.write(`emulator gemini listening on ${emulator.baseUrl}\n`);
      process.stdout.write(`vertex base url: ${emulator.vertexBaseUrl}\n`);
      await waitForStopSignal();
      await emulator.close();
    });
}
