import { Command, CommanderError } from 'commander';
import { HermesError, UsageError } from '../core/errors.js';
import { registerAcpCommand } from './acp-command.js';
import { registerChatCommand } from './chat-command.js';
import { registerEmulateCommand } from './emulate-command.js';
import { registerGatewayCommand } from './gateway-command.js';
import { registerLogsCommand } from './logs-command.js';
import { registerReplayCommand } from './replay-command.js';
import { registerSessionsCommand } from './sessions-command.js';
import { registerRoutesCommand } from './routes-command.js';
import { registerConfigCommand } from './config-command.js';
import { registerModelCommand } from './model-command.js';
import { registerDoctorCommand } from './doctor-command.js';
import { registerMcpCommand } from './mcp-command.js';
import { loadHomeEnv } from '../config/config-env.js';
import { hermesHome } from '../storage/store-paths.js';
import { CLI_VERSION } from './cli-version.js';
import { exitQuietlyOnClosedPipe } from './cli-pipe.js';
import { SessionBusyError } from '../storage/session-lease.js';

/** Builds the `hermes` program. Commands are registered by their own modules. */
export function buildProgram(): Command {
  const program = new Command('hermes')
    .description('Hermes TS: an agent runtime and CLI that replays reasoning exactly as each provider route needs it.')
    .version(CLI_VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .addHelpText(
      'after',
      `
Shortcuts: hermes -c, hermes -r ID, hermes --resume ID and hermes -q TEXT mean hermes chat ….
Data lives in $HERMES_HOME (default ~/.hermes): state.db, config.yaml, .env (API keys; the environment wins), logs/.`,
    );
  registerChatCommand(program);
  registerSessionsCommand(program);
  registerReplayCommand(program);
  registerRoutesCommand(program);
  registerLogsCommand(program);
  registerEmulateCommand(program);
  registerGatewayCommand(program);
  registerAcpCommand(program);
  registerModelCommand(program);
  registerConfigCommand(program);
  registerMcpCommand(program);
  registerDoctorCommand(program);
  return program;
}

/**
 * Runs the CLI and returns the exit code: 0 success, 1 runtime failure (provider error, storage
 * failure), 2 bad usage or input (unknown flag, missing file, invalid JSON), 3 session busy in
 * another process (SPEC §23.6), 130 a `chat -q` turn interrupted with Ctrl-C (SIGINT).
 */
export async function runCli(argv: string[]): Promise<number> {
  exitQuietlyOnClosedPipe();
  const program = buildProgram();
  argv = withChatShortcut(argv);
  // API keys may live in $HERMES_HOME/.env; the environment always wins over the file.
  const homeEnv = loadHomeEnv(hermesHome());
  if (homeEnv.error) process.stderr.write(`hermes: warning: ${homeEnv.path} not read: ${homeEnv.error}\n`);
  program.configureOutput({ writeErr: (text) => process.stderr.write(text) });
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
      if (error.code === 'commander.help') return 0;
      return 2;
    }
    if (error instanceof SessionBusyError) {
      process.stderr.write(`hermes: ${error.message}\n`);
      return error.exitCode;
    }
    if (error instanceof UsageError) {
      process.stderr.write(`hermes: ${error.message}\n`);
      return 2;
    }
    if (error instanceof HermesError) {
      process.stderr.write(`hermes: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(
      `hermes: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
}

/** Flags that, given first, mean `hermes chat …` (SPEC §20: `hermes -c`, `hermes --resume ID`, `hermes -r ID`). */
const CHAT_SHORTCUT_FLAGS = new Set(['-c', '--continue', '-r', '--resume', '-q', '--query']);

/** `hermes -c …` → `hermes chat -c …`; anything else is left as it is. */
export function withChatShortcut(argv: string[]): string[] {
  const first = argv[2];
  if (first === undefined) return argv;
  const flag = first.includes('=') ? first.slice(0, first.indexOf('=')) : first;
  if (!CHAT_SHORTCUT_FLAGS.has(flag)) return argv;
  return [...argv.slice(0, 2), 'chat', ...argv.slice(2)];
}
