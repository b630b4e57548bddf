import { type Command, Option } from 'commander';
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
 * `hermes emulate anthropic [--port N] [--host H]`: runs the Anthropic Messages emulator until
 * SIGINT/SIGTERM. Point a route at it with `--api anthropic_messages --provider anthropic
 * --base-url <printed URL>` (direct framing, any `x-api-key`), or `--provider bedrock` for the
 * Bedrock InvokeModel framing (any SigV4 credentials). User text containing
 * `ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING` gets a `redacted_thinking` block.
 */

interface EmulateAnthropicFlags extends EmulateEffortFlags, EmulateLogFlags {
  port: number;
  host: string;
  boundSignatureWording?: boolean;
  binding?: 'error' | 'drop_block';
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
    )
    .addOption(
      new Option(
        '--binding <mode>',
        'thinking-block binding (preserved thinking): signatures bind the model and the prefix; a block whose prefix changed gets a 400 (error) or is dropped and listed in input_transformations (drop_block), unless the request declares thinking.block_binding',
      ).choices(['error', 'drop_block']),
    );
  addRequestLogOption(addEffortOptions(command))
    .addHelpText('after', CONTROL_ENDPOINTS_HELP)
    .action(async (flags: EmulateAnthropicFlags) => {
      const { REDACTED_THINKING_TRIGGER, startAnthropicEmulator } =
        await import('../emulators/anthropic-messages/anthropic-emulator.js');
      const emulator = await listening(flags.host, flags.port, () =>
        startAnthropicEmulator({
          host: flags.host,
          requestLog: requestLogLimits(flags),
          port: flags.port,
          boundSignatureWording: flags.boundSignatureWording === true,
          ...(flags.binding ? { binding: flags.binding } : {}),
          ...effortRules(flags),
        }),
      );
      process.stdout.write(`emulator anthropic listening on ${emulator.baseUrl}\n`);
      process.stdout.write(`redacted thinking trigger: ${REDACTED_THINKING_TRIGGER}\n`);
      if (flags.binding) process.stdout.write(`thinking-block binding: ${flags.binding}\n`);
      await waitForStopSignal();
      await emulator.close();
    });
}
