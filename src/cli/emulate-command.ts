import type { Command } from 'commander';
import { registerEmulateAnthropicCommand } from './emulate-anthropic-command.js';
import { registerEmulateBedrockCommand } from './emulate-bedrock-command.js';
import { registerEmulateChatCommand } from './emulate-chat-command.js';
import { registerEmulateGeminiCommand } from './emulate-gemini-command.js';
import { registerEmulateResponsesCommand } from './emulate-responses-command.js';

/**
 * `hermes emulate FAMILY`: run a provider emulator locally for offline trials and tests. Each
 * wire family is a subcommand registered by its own registrar; add a family by appending its
 * registrar to {@link FAMILY_REGISTRARS}. Registrars declare flags only: each loads its emulator
 * with `import()` when its action runs, so other commands never load emulator code.
 */

/** Adds one family subcommand (e.g. `chat`) to the `emulate` parent command. */
export type EmulateFamilyRegistrar = (emulate: Command) => void;

/** Family registrars, one per wire family. */
export const FAMILY_REGISTRARS: readonly EmulateFamilyRegistrar[] = [
  registerEmulateChatCommand,
  registerEmulateAnthropicCommand,
  registerEmulateBedrockCommand,
  registerEmulateGeminiCommand,
  registerEmulateResponsesCommand,
];

/** Registers `hermes emulate` and every family subcommand under it. */
export function registerEmulateCommand(program: Command): void {
  const emulate = program
    .command('emulate')
    .description('Run a local provider emulator (offline trials, tests). See `hermes emulate FAMILY --help`.');
  for (const register of FAMILY_REGISTRARS) register(emulate);
}
