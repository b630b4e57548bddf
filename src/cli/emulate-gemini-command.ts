import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { startGeminiEmulator } from '../emulators/gemini/gemini-emulator.js';

/**
 * Adds `hermes emulate gemini` to the `emulate` parent: a local Gemini server (AI Studio and
 * Vertex AI path shapes) that enforces thought-signature replay with Google's exact errors.
 */
export function registerEmulateGeminiCommand(emulate: Command): void {
  emulate
    .command('gemini')
    .description('Run a local Gemini emulator (AI Studio + Vertex AI paths, thought signatures enforced)')
    .option('--port <port>', 'port to listen on (0 = any free port)', '0')
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .action(async (options: { port: string; host: string }) => {
      const port = Number(options.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new UsageError(`--port must be 0-65535, got ${options.port}`);
      const emulator = await startGeminiEmulator({ port, host: options.host });
      process.stdout.write(`emulator gemini listening on ${emulator.baseUrl}\n`);
      process.stdout.write(`vertex base url: ${emulator.vertexBaseUrl}\n`);
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
