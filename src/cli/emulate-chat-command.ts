import type { Command } from 'commander';
import { Option } from 'commander';
import { UsageError } from '../core/errors.js';
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
 * `hermes emulate chat --persona NAME [--port N] [--host H] [--reject KEY,KEY] [--context-window N]`:
 * runs the OpenAI-compatible chat-completions emulator playing one provider until SIGINT/SIGTERM.
 */

interface EmulateChatFlags extends EmulateEffortFlags, EmulateLogFlags {
  persona: string;
  port: number;
  host: string;
  reject?: string;
  contextWindow?: number;
}

/** Adds the `chat` subcommand to the `hermes emulate` parent. */
export function registerEmulateChatCommand(emulate: Command): void {
  const chat = emulate
    .command('chat')
    .description('Run an OpenAI-compatible chat-completions emulator (POST /v1/chat/completions) playing one provider')
    .addOption(new Option('--persona <name>', 'provider behaviour to play (see the list below)').makeOptionMandatory())
    .option('--port <port>', 'port to listen on (0 = any free port)', parseEmulatorPort, 0)
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option(
      '--reject <keys>',
      "comma-separated assistant / tool-call keys to reject with the persona's unknown-field error",
    )
    .option('--context-window <tokens>', 'answer a context-length 400 above this many prompt tokens', parseTokens);
  addRequestLogOption(addEffortOptions(chat)).action(async (flags: EmulateChatFlags) => {
    const { CHAT_PERSONA_NAMES, isChatPersonaName, startChatEmulator } =
      await import('../emulators/chat-completions/chat-emulator.js');
    if (!isChatPersonaName(flags.persona)) {
      throw new UsageError(`unknown persona "${flags.persona}" (expected one of: ${CHAT_PERSONA_NAMES.join(', ')})`);
    }
    const persona = flags.persona;
    const rejectKeys = (flags.reject ?? '')
      .split(',')
      .map((key) => key.trim())
      .filter((key) => key !== '');
    const emulator = await listening(flags.host, flags.port, () =>
      startChatEmulator({
        persona,
        port: flags.port,
        host: flags.host,
        requestLog: requestLogLimits(flags),
        rejectKeys,
        ...(flags.contextWindow === undefined ? {} : { contextWindow: flags.contextWindow }),
        ...effortRules(flags),
      }),
    );
    process.stdout.write(`emulator chat/${flags.persona} listening on ${emulator.baseUrl}\n`);
    await waitForStopSignal();
    await emulator.close();
  });
  // The persona list is read from the emulator module, so it is added once `hermes emulate` is the
  // chosen command (before its subcommand parses `--help`, and for `hermes emulate help chat`).
  emulate.parent?.hook('preSubcommand', async (_program, chosen) => {
    if (chosen !== emulate) return;
    const { chatPersonaSummaries } = await import('../emulators/chat-completions/chat-emulator.js');
    const personaLines = chatPersonaSummaries()
      .map(({ name, summary }) => `  ${name.padEnd(18)}${summary}`)
      .join('\n');
    chat.addHelpText('after', `\nPersonas:\n${personaLines}\n${CONTROL_ENDPOINTS_HELP}`);
  });
}

function parseTokens(value: string): number {
  const tokens = Number(value);
  if (!Number.isInteger(tokens) || tokens <= 0)
    throw new UsageError(`--context-window must be a positive integer, got "${value}"`);
  return tokens;
}
