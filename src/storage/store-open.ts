import { UsageError } from '../core/errors.js';
import { checkPostgresUrl, isPostgresUrl } from './postgres-errors.js';
import { openPostgresSessionStore } from './postgres-session-store.js';
import type { SessionStore, UndecodableMessage } from './session-store.js';
import { openSqliteSessionStore, type SqliteSessionStore } from './sqlite-session-store.js';
import { hermesHome, stateDbPath } from './store-paths.js';

/**
 * Store selection (SPEC §23.6): `HERMES_DATABASE_URL`, else `storage.url` in `config.yaml`, else
 * `$HERMES_HOME/state.db`. A URL is `postgres://…` / `postgresql://…` (PostgreSQL, for gateway
 * fleets) or `sqlite:PATH` (a SQLite file elsewhere). Every command — chat, sessions, routes,
 * replay preview, gateway — opens its store through here.
 */

/** Where the store is, as given. */
export interface StoreSelection {
  /** The URL from the environment or the config, when one was given. */
  url?: string | undefined;
  home: string;
  onUndecodable?: (row: UndecodableMessage) => void;
}

/** The URL in force: the environment wins over the config. */
export function selectedStoreUrl(
  configUrl: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const fromEnv = env['HERMES_DATABASE_URL']?.trim();
  return fromEnv ? fromEnv : configUrl;
}

/** Opens the store a URL names (see the module comment); no URL means the home's state.db. */
export function openSessionStore(selection: StoreSelection): SessionStore {
  const url = selection.url?.trim();
  const sinks = selection.onUndecodable ? { onUndecodable: selection.onUndecodable } : {};
  if (!url) return openSqliteSessionStore(stateDbPath(selection.home), sinks);
  if (isPostgresUrl(url)) return openPostgresSessionStore(checkPostgresUrl(url), sinks);
  const sqlitePath = sqlitePathOf(url);
  if (sqlitePath !== null) return openSqliteSessionStore(sqlitePath, sinks);
  throw new UsageError(
    `unknown storage URL "${url.replace(/\/\/[^@/]*@/, '//')}": use postgres://USER:PASSWORD@HOST:PORT/DATABASE or sqlite:PATH`,
  );
}

/** The file of a `sqlite:PATH` URL (`sqlite:~/x.db` expands `~`), or null for another scheme. */
export function sqlitePathOf(url: string): string | null {
  const match = /^sqlite:(?:\/\/)?(.+)$/i.exec(url.trim());
  if (!match?.[1]) return null;
  const path = match[1];
  if (path === '~' || path.startsWith('~/')) return hermesHome({ HERMES_HOME: path });
  return path;
}

/** Opens the SQLite store at `<home>/state.db`, creating the directory (mode 0700) when missing. */
export function openDefaultStore(home: string = hermesHome()): SqliteSessionStore {
  return openSqliteSessionStore(stateDbPath(home));
}
