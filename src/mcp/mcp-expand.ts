import type { McpConnectionSettings } from '../config/config-mcp.js';

/**
 * `${VAR}` and `${VAR:-default}` in a server's command, args, env values, url and header values
 * are replaced from the environment when the server starts, as Claude Code does for `.mcp.json`,
 * so a file can name a token without holding it. A variable that is unset and has no default
 * fails that server, naming the variable (never a value).
 */

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** A variable a server needs and the environment lacks. */
export class MissingVariableError extends Error {
  override readonly name = 'MissingVariableError';
}

/** One value with its references replaced. */
export function expandValue(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
    if (fallback !== undefined) return fallback;
    throw new MissingVariableError(`environment variable ${name} is not set (referenced as \${${name}})`);
  });
}

/** The connection with every value expanded. */
export function expandConnection(connection: McpConnectionSettings, env: NodeJS.ProcessEnv): McpConnectionSettings {
  const record = (values: Record<string, string>) =>
    Object.fromEntries(Object.entries(values).map(([key, value]) => [key, expandValue(value, env)]));
  if (connection.transport === 'http') {
    return { transport: 'http', url: expandValue(connection.url, env), headers: record(connection.headers) };
  }
  return {
    transport: 'stdio',
    command: expandValue(connection.command, env),
    args: connection.args.map((arg) => expandValue(arg, env)),
    env: record(connection.env),
    ...(connection.cwd === undefined ? {} : { cwd: expandValue(connection.cwd, env) }),
  };
}
