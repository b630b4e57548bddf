import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
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
      const port = Number(options.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        throw new UsageError(`--port must be an integer between 0 and 65535, got "${options.port}"`);
      }
      const emulator = await startAnthropicEmulator({
        host: options.host,
        port,
        boundSignatureWording: options.boundSignatureWording === true,
      });
      process.stdout.write(`emulator anthropic listening on ${emulator.baseUrl}\n`);
      process.stdout.write(`redacted thinking trigger: ${REDACTED_THINKING_TRIGGER}\n`);
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          void emulator.close().then(resolve);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}
