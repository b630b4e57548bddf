import { accessSync, constants, statSync } from 'node:fs';
import { redactUrl } from '../core/redact.js';
import { loadConfig, type HermesConfig } from '../config/config-load.js';
import { lastHomeEnvLoad } from '../config/config-env.js';
import { HermesError } from '../core/errors.js';
import { PROVIDERS } from '../providers/provider-registry.js';
import { isLocalEndpoint } from '../replay/replay-host.js';
import { resolveRoute, type ResolvedRoute, type RouteFlags } from '../runtime/runtime-route.js';
import { turnRouteProfile } from '../runtime/runtime-turn-options.js';
import { checkSqliteFile } from '../storage/sqlite-check.js';
import { openSessionStore, selectedStoreUrl, sqlitePathOf } from '../storage/store-open.js';
import { stateDbPath } from '../storage/store-paths.js';

/** One line of `hermes doctor`: `fail` makes the exit code 1; `warn` and `info` do not. */
export interface DoctorCheck {
  status: 'ok' | 'warn' | 'fail' | 'info';
  name: string;
  detail: string;
}

/** Node versions of package.json `engines`: ^20.19.0 || ^22.12.0 || ^24.0.0. */
export function nodeCheck(version: string = process.versions.node): DoctorCheck {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const supported = (major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major >= 24;
  return {
    status: supported ? 'ok' : 'fail',
    name: 'node',
    detail: `v${version}${supported ? '' : ' is not supported: use Node 20.19+, 22.12+ or 24'}`,
  };
}

/** `$HERMES_HOME`: present (or not yet created), private (0700) and writable. */
export function homeCheck(home: string): DoctorCheck {
  let mode: number;
  try {
    const stats = statSync(home);
    if (!stats.isDirectory()) return { status: 'fail', name: 'home', detail: `${home} is not a directory` };
    mode = stats.mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { status: 'ok', name: 'home', detail: `${home} (not created yet; made with mode 700 on first use)` };
    }
    return { status: 'fail', name: 'home', detail: `${home}: ${(error as Error).message}` };
  }
  const octal = mode.toString(8).padStart(3, '0');
  try {
    accessSync(home, constants.W_OK | constants.X_OK);
  } catch {
    return {
      status: 'fail',
      name: 'home',
      detail: `${home} (mode ${octal}) is not writable: sessions cannot be stored`,
    };
  }
  // Sessions hold prompts, tool output and file contents: other users should not read them.
  if (mode & 0o077) {
    return {
      status: 'warn',
      name: 'home',
      detail: `${home} (mode ${octal}) is readable by others: chmod 700 "${home}"`,
    };
  }
  return { status: 'ok', name: 'home', detail: `${home} (mode ${octal}, writable)` };
}

/** `config.yaml` parses and matches the schema; the config (or defaults when invalid). */
export function configCheck(home: string): { check: DoctorCheck; config: HermesConfig | null } {
  try {
    const config = loadConfig(home);
    const detail = config.path ? `${config.path} is valid` : 'no config.yaml: defaults apply';
    return { check: { status: 'ok', name: 'config', detail }, config };
  } catch (error) {
    return { check: { status: 'fail', name: 'config', detail: (error as Error).message }, config: null };
  }
}

/** `state.db` (or the configured store): integrity and schema version, read-only. */
export async function storeCheck(home: string, config: HermesConfig | null): Promise<DoctorCheck> {
  const url = selectedStoreUrl(config?.storageUrl, process.env);
  const path = url === undefined ? stateDbPath(home) : sqlitePathOf(url);
  if (path === null) return remoteStoreCheck(home, url as string);
  const check = checkSqliteFile(path);
  if (!check.exists) return { status: 'ok', name: 'state.db', detail: `${path} (not created yet)` };
  if (check.error) return { status: 'fail', name: 'state.db', detail: `${path}: ${check.error}` };
  const version = `schema version ${check.schemaVersion} (this build: ${check.currentVersion})`;
  if (check.integrity !== 'ok') {
    return {
      status: 'fail',
      name: 'state.db',
      detail: `${path}: integrity check failed: ${check.integrity}; ${version}`,
    };
  }
  if ((check.schemaVersion ?? 0) > check.currentVersion) {
    return { status: 'fail', name: 'state.db', detail: `${path}: ${version}: written by a newer hermes; upgrade` };
  }
  const note = (check.schemaVersion ?? 0) < check.currentVersion ? ', migrated on next use' : '';
  return { status: 'ok', name: 'state.db', detail: `${path}: integrity ok, ${version}${note}` };
}

async function remoteStoreCheck(home: string, url: string): Promise<DoctorCheck> {
  const store = openSessionStore({ url, home });
  try {
    const described = await store.describe();
    return {
      status: 'ok',
      name: 'store',
      detail: `${described.kind} ${described.location}, schema version ${described.schemaVersion ?? 'n/a'}`,
    };
  } catch (error) {
    return { status: 'fail', name: 'store', detail: (error as Error).message.split('\n')[0] ?? 'unreachable' };
  } finally {
    await store.close().catch(() => undefined);
  }
}

/** Which provider key variables are set, and where from (never their values). */
export function keysCheck(): DoctorCheck {
  const fromFile = new Set(lastHomeEnvLoad()?.loaded ?? []);
  const names = [...new Set(PROVIDERS.flatMap((info) => (info.apiKeyEnv ? [info.apiKeyEnv] : [])))];
  const set = names.filter((name) => Boolean(process.env[name]));
  const unset = names.filter((name) => !process.env[name]);
  const described = set.map((name) => `${name} (${fromFile.has(name) ? '.env' : 'environment'})`);
  return {
    status: 'info',
    name: 'keys',
    detail: `set: ${described.join(', ') || 'none'}; not set: ${unset.length} others (hermes model lists them)`,
  };
}

/** The `.env` file: read, how many variables it gave, which the environment overrode. */
export function dotenvCheck(): DoctorCheck | null {
  const load = lastHomeEnvLoad();
  if (!load?.found && !load?.error) return null;
  if (load.error) return { status: 'warn', name: '.env', detail: `${load.path} not read: ${load.error}` };
  const shadowed = load.shadowed.length ? `; the environment overrides ${load.shadowed.join(', ')}` : '';
  return { status: 'ok', name: '.env', detail: `${load.path}: ${load.loaded.length} variables loaded${shadowed}` };
}

/** The route (the flags', else the configured one): wire API, provider, model, URL, carrier row and carriers, key state. */
export function routeCheck(
  config: HermesConfig | null,
  flags: RouteFlags = {},
): { check: DoctorCheck; resolved: ResolvedRoute | null } {
  if (!config) return { check: { status: 'fail', name: 'route', detail: 'config.yaml is invalid' }, resolved: null };
  let resolved: ResolvedRoute;
  try {
    resolved = resolveRoute(flags, config, null, process.env);
  } catch (error) {
    const detail = error instanceof HermesError ? error.message : String(error);
    return { check: { status: 'fail', name: 'route', detail }, resolved: null };
  }
  const { route } = resolved;
  if (resolved.emulatorPersona) {
    return {
      check: {
        status: 'info',
        name: 'route',
        detail: `no provider configured: the built-in emulator (persona ${resolved.emulatorPersona}) answers; hermes model set PROVIDER`,
      },
      resolved,
    };
  }
  const profile = turnRouteProfile({ route, routeOverrides: config.routes, echoOptIn: config.reasoningEcho });
  const carriers = profile.chat.carriers.length ? profile.chat.carriers.join(', ') : 'none';
  const lines = [
    `${route.api} · ${route.provider} · ${route.model} · ${profile.baseUrl === undefined ? '(no base URL)' : redactUrl(profile.baseUrl)}`,
    `route key ${profile.routeKey}; table row ${profile.chat.row}, carriers ${carriers}` +
      (profile.mustEchoFamily ? `; must echo (${profile.mustEchoFamily})` : ''),
  ];
  const needsKey = resolved.apiKeyEnv !== undefined && !isLocalEndpoint(route.baseUrl);
  if (needsKey && !resolved.apiKey) {
    lines.push(`no API key: set ${resolved.apiKeyEnv} (environment or $HERMES_HOME/.env)`);
    return { check: { status: 'fail', name: 'route', detail: lines.join('\n') }, resolved };
  }
  if (resolved.apiKeyEnv) lines.push(`key ${resolved.apiKeyEnv} set`);
  return { check: { status: 'ok', name: 'route', detail: lines.join('\n') }, resolved };
}
