import type { Command } from 'commander';
import { parseEmulatorPort, waitForStopSignal } from './emulate-command.js';
import {
  REDACTED_THINKING_TRIGGER,
  startAnthropicEmulator,
} from '../emulators/anthropic-messages/anthropic-emulator.js';

/**
 * `hermes emulate anthropic [--port N] [--host H]`: runs the Anthropic Messages emulator until
 * SIGINT/SIGTERM. Point a route at it with `--api anthropic_messages --provider anthropic
 * --base-url <printed URL>` (direct framing, any `x-api-key`), or `--provider bedrock` for the
 * Bedrock InvokeModel framing (any SigV4 credentials). User text containing
 * `ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING` gets a `redacted_thinking` block.
 */
export function registerEmulateAnthropicCommand(emulate: Command): void {
  emulate
    .command('anthropic')
    .description(
      'Run a local Anthropic Messages emulator (signed and redacted thinking, direct and Bedrock InvokeModel)',
    )
    .option('--port <number>', 'port to listen on (0 = any free port)', '0')
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .option(
      '--bound-signature-wording',
      'answer invalid signatures with the 2026 "bound to a different conversation" text',
    )
    .action(async (options: { port: string; host: string; boundSignatureWording?: boolean }) => {
      const port = parseEmulatorPort(options.port);
      const emulator = await startAnthropicEmulator({
        host: options.host,
        port,
        boundSignatureWording: options.boundSignatureWording === true,
      });
      process.stdout.write(`emulator anthropic listening on ${emulator.baseUrl}\n`);
      process.stdout.write(`redacted thinking trigger: ${REDACTED_THINKING_TRIGGER}\n`);
      await waitForStopSignal();
      await emulator.close();
    });
}
