import type { Command } from 'commander';
import {
  addEffortOptions,
  CONTROL_ENDPOINTS_HELP,
  type EmulateEffortFlags,
  effortRules,
  parseEmulatorPort,
  waitForStopSignal,
  listening,
} from './emulate-options.js';

/**
 * `hermes emulate anthropic [--port N] [--host H]`: runs the Anthropic Messages emulator until
 * SIGINT/SIGTERM. Point a route at it with `--api anthropic_messages --provider anthropic
 * --base-url <printed URL>` (direct framing, any `x-api-key`), or `--provider bedrock` for the
 * Bedrock InvokeModel framing (any SigV4 credentials). User text containing
 * `ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING` gets a `redacted_thinking` block.
 */

interface EmulateAnthropicFlags extends EmulateEffortFlags {
  port: number;
  host: string;
  boundSignatureWording?: boolean;
}

/** Adds the `anthropic` subcommand to the `hermes emulate` parent. */
export function registerEmulateAnthropicCommand(emulate: Command): void {
  const command = emulate
    .command('anthropic')
    .description(
      'Run a local Anthropic Messages emulator (signed and redacted thinking, direct and Bedrock InvokeModel)',
    )
    .option('--port <port>', 'port to listen on (0 = any free port)', parseEmulatorPort, 0)
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .option(
      '--bound-signature-wording',
      'answer invalid signatures with the 2026 "bound to a different conversation" text',
    );
  addEffortOptions(command)
    .addHelpText('after', CONTROL_ENDPOINTS_HELP)
    .action(async (flags: EmulateAnthropicFlags) => {
      const { REDACTED_THINKING_TRIGGER, startAnthropicEmulator } =
        await import('../emulators/anthropic-messages/anthropic-emulator.js');
      const emulator = await listening(flags.host, flags.port, () =>
        startAnthropicEmulator({
          host: flags.host,
          port: flags.port,
          boundSignatureWording: flags.boundSignatureWording === true,
          ...effortRules(flags),
        }),
      );
      process.stdout.write(`emulator anthropic listening on ${emulator.baseUrl}\n`);
      process.stdout.write(`redacted thinking trigger: ${REDACTED_THINKING_TRIGGER}\n`);
      await waitForStopSignal();
      await emulator.close();
    });
}
