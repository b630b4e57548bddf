import { loadConfig, type HermesConfig } from '../config/config-load.js';
import { openLogger, type Logger } from '../logging/logger.js';
import type { SessionStore } from '../storage/session-store.js';
import { openSqliteSessionStore } from '../storage/sqlite-session-store.js';
import { hermesHome, logsDir, stateDbPath } from '../storage/store-paths.js';

/** What every command that touches `$HERMES_HOME` needs. Opened lazily, closed once. */
export interface CliContext {
  home: string;
  config: HermesConfig;
  store(): SessionStore;
  logger(): Logger;
  close(): Promise<void>;
}

/** Opens the context for `$HERMES_HOME` (config is read and validated immediately). */
export function openCliContext(env: NodeJS.ProcessEnv = process.env): CliContext {
  const home = hermesHome(env);
  const config = loadConfig(home);
  let store: SessionStore | null = null;
  let logger: Logger | null = null;
  return {
    home,
    config,
    store() {
      store ??= openSqliteSessionStore(stateDbPath(home));
      return store;
    },
    logger() {
      logger ??= openLogger(logsDir(home), 'agent');
      return logger;
    },
    async close() {
      await store?.close();
      store = null;
    },
  };
}

/** Runs `body` with a context and always closes it. */
export async function withCliContext<T>(body: (context: CliContext) => Promise<T>): Promise<T> {
  const context = openCliContext();
  try {
    return await body(context);
  } finally {
    await context.close();
  }
}
