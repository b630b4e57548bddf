import type { Command } from 'commander';
import { Option } from 'commander';
import { UsageError } from '../core/errors.js';
import {
  CHAT_PERSONA_NAMES,
  chatPersonaSummaries,
  isChatPersonaName,
  startChatEmulator,
} from '../emulators/chat-completions/chat-emulator.js';
import { registerEmulateAnthropicCommand } from './emulate-anthropic-command.js';
import { registerEmulateBedrockCommand } from './emulate-bedrock-command.js';
import { registerEmulateGeminiCommand } from './emulate-gemini-command.js';
import { registerEmulateResponsesCommand } from './emulate-responses-command.js';

/**
 * `hermes emulate FAMILY`: run a provider emulator locally for offline trials and tests. Each
 * wire family is a subcommand registered by its own registrar; add a family by appending its
 * registrar to {@link FAMILY_REGISTRARS}.
 */

/** Adds one family subcommand (e.g. `chat`) to the `emulate` parent command. */
export type EmulateFamilyRegistrar = (emulate: Command) => void;

/** Parses `--port` (0–65535; 0 picks a free port). */
export function parseEmulatorPort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || !Number.isInteger(port) || port > 65535) {
    throw new UsageError(`--port must be an integer between 0 and 65535, got "${value}"`);
  }
  return port;
}

/** Resolves when the process receives SIGINT or SIGTERM. */
export function waitForStopSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

interface EmulateChatFlags {
  persona: string;
  port: number;
  host: string;
  reject?: string;
  contextWindow?: number;
}

/** `hermes emulate chat --persona NAME [--port N] [--host H] [--reject KEY,KEY] [--context-window N]`. */
export function registerEmulateChat(emulate: Command): void {
  const personaLines = chatPersonaSummaries()
    .map(({ name, summary }) => `  ${name.padEnd(18)}${summary}`)
    .join('\n');
  emulate
    .command('chat')
    .description('Run an OpenAI-compatible chat-completions emulator (POST /v1/chat/completions) playing one provider')
    .addOption(new Option('--persona <name>', 'provider behaviour to play (see the list below)').makeOptionMandatory())
    .option('--port <port>', 'port to listen on (0 = any free port)', parseEmulatorPort, 0)
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option(
      '--reject <keys>',
      "comma-separated assistant / tool-call keys to reject with the persona's unknown-field error",
    )
    .option(
      '--context-window <tokens>',
      'answer a context-length 400 above this many prompt tokens',
      (value: string) => {
        const tokens = Number(value);
        if (!Number.isInteger(tokens) || tokens <= 0)
          throw new UsageError(`--context-window must be a positive integer, got "${value}"`);
        return tokens;
      },
    )
    .addHelpText(
      'after',
      `\nPersonas:\n${personaLines}\n\nControl endpoints: GET /_emulator/requests (request log), POST /_emulator/faults (queue faults).`,
    )
    .action(async (flags: EmulateChatFlags) => {
      if (!isChatPersonaName(flags.persona)) {
        throw new UsageError(`unknown persona "${flags.persona}" (expected one of: ${CHAT_PERSONA_NAMES.join(', ')})`);
      }
      const rejectKeys = (flags.reject ?? '')
        .split(',')
        .map((key) => key.trim())
        .filter((key) => key !== '');
      const emulator = await startChatEmulator({
        persona: flags.persona,
        port: flags.port,
        host: flags.host,
        rejectKeys,
        ...(flags.contextWindow === undefined ? {} : { contextWindow: flags.contextWindow }),
      });
      process.stdout.write(`emulator chat/${flags.persona} listening on ${emulator.baseUrl}\n`);
      await waitForStopSignal();
      await emulator.close();
    });
}

/** Family registrars, one per wire family. Other families (anthropic, gemini, responses, bedrock) go here. */
export const FAMILY_REGISTRARS: readonly EmulateFamilyRegistrar[] = [
  registerEmulateChat,
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
