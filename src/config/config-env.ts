import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';

/** What loading `$HERMES_HOME/.env` did. */
export interface HomeEnvResult {
  /** The file path. */
  path: string;
  /** Whether the file exists and was read. */
  found: boolean;
  /** Variables taken from the file (names only, never values). */
  loaded: string[];
  /** Variables the file sets that the environment already had: the environment wins. */
  shadowed: string[];
  /** Why the file could not be read, when it exists but cannot be. */
  error?: string;
}

/**
 * Loads `<home>/.env` (dotenv syntax, parsed by Node's `util.parseEnv`) into `env`, never
 * overriding a variable the environment already has. `HERMES_HOME` in the file is ignored: the
 * file's own location depends on it. A missing file is not an error.
 */
export function loadHomeEnv(home: string, env: NodeJS.ProcessEnv = process.env): HomeEnvResult {
  const path = join(home, '.env');
  const result: HomeEnvResult = { path, found: false, loaded: [], shadowed: [] };
  if (env === process.env) lastLoad = result;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') result.error = (error as Error).message;
    return result;
  }
  result.found = true;
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (value === undefined || name === 'HERMES_HOME') continue;
    if (env[name] !== undefined) result.shadowed.push(name);
    else {
      env[name] = value;
      result.loaded.push(name);
    }
  }
  return result;
}

let lastLoad: HomeEnvResult | null = null;

/** What the last load into `process.env` did (`hermes doctor` reports it), or null. */
export function lastHomeEnvLoad(): HomeEnvResult | null {
  return lastLoad;
}
