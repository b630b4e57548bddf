import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where Hermes keeps its state (docs/sessions.md): `$HERMES_HOME`, default
 * `~/.hermes`. A leading `~/` in `HERMES_HOME` is expanded, because a value written in a
 * config file or a quoted shell assignment reaches us unexpanded.
 */
export function hermesHome(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env['HERMES_HOME']?.trim();
  if (configured === undefined || configured === '') return join(homedir(), '.hermes');
  if (configured === '~') return homedir();
  if (configured.startsWith('~/')) return join(homedir(), configured.slice(2));
  return configured;
}

/** The session database: `<home>/state.db`. */
export function stateDbPath(home: string): string {
  return join(home, 'state.db');
}

/** The log directory: `<home>/logs` (`agent.log`, `errors.log`, `gateway.log`). */
export function logsDir(home: string): string {
  return join(home, 'logs');
}
