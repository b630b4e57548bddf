import { loadConfig, loadConfigForReading, type HermesConfig } from '../config/config-load.js';
import { openLogger, type Logger } from '../logging/logger.js';
import type { SessionStore, UndecodableMessage } from '../storage/session-store.js';
import { openSessionStore, selectedStoreUrl } from '../storage/store-open.js';
import { hermesHome, logsDir } from '../storage/store-paths.js';
import { homeWriteFailure } from '../storage/storage-errors.js';

/** What every command that touches `$HERMES_HOME` needs. Opened lazily, closed once. */
export interface CliContext {
  home: string;
  config: HermesConfig;
  store(): SessionStore;
  logger(): Logger;
  close(): Promise<void>;
}

/** How a command uses its context. */
export interface CliContextOptions {
  /**
   * The command only reads the store: a config.yaml that does not load is one warning and the
   * defaults (`loadConfigForReading`), never a failure.
   */
  readOnly?: boolean;
}

/** Opens the context for `$HERMES_HOME` (config is read and validated immediately). */
export function openCliContext(env: NodeJS.ProcessEnv = process.env, options: CliContextOptions = {}): CliContext {
  const home = hermesHome(env);
  const config = options.readOnly
    ? loadConfigForReading(home, (line) => process.stderr.write(`hermes: warning: ${line}\n`))
    : loadConfig(home);
  let store: SessionStore | null = null;
  let logger: Logger | null = null;
  return {
    home,
    config,
    store() {
      store ??= openSessionStore({
        url: selectedStoreUrl(config.storageUrl, env),
        home,
        onUndecodable: warnUndecodable,
      });
      return store;
    },
    logger() {
      try {
        logger ??= openLogger(logsDir(home), 'agent');
      } catch (error) {
        throw homeWriteFailure(error, logsDir(home));
      }
      return logger;
    },
    async close() {
      await store?.close();
      store = null;
    },
  };
}

/** Names a stored message that cannot be decoded: the rest of the session is used without it. */
export function warnUndecodable(row: UndecodableMessage): void {
  process.stderr.write(
    `hermes: warning: session ${row.sessionId} message ${row.seq} cannot be read (${row.reason}); it is left out and the other messages are used\n`,
  );
}

/** Runs `body` with a context and always closes it. */
export async function withCliContext<T>(
  body: (context: CliContext) => Promise<T>,
  options: CliContextOptions = {},
): Promise<T> {
  const context = openCliContext(process.env, options);
  try {
    return await body(context);
  } finally {
    await context.close();
  }
}
