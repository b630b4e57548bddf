import { UsageError } from '../core/errors.js';
import { redactUrl } from '../core/redact.js';
import { StorageError, missingTableName, storageMessages } from './storage-errors.js';

/**
 * Maps a `pg` driver error (SQLSTATE in `code`, or a socket errno) to a one-line
 * {@link StorageError}; anything else is returned unchanged. `where` is the URL without
 * credentials.
 */
export function postgresFailure(error: unknown, where: string): unknown {
  if (!(error instanceof Error)) return error;
  const code = String((error as { code?: unknown }).code ?? '');
  const reason = error.message;
  const unreachable = (hint: string) =>
    new StorageError('unreachable', `cannot reach the session database ${where} (${reason}): ${hint}`, {
      cause: error,
    });
  const syscall = String((error as { syscall?: unknown }).syscall ?? '');
  // A Unix socket (`?host=/path`): the driver connects to PATH/.s.PGSQL.PORT.
  if (syscall === 'connect' && (code === 'ENOENT' || code === 'ENOTDIR')) {
    const socket = /connect \w+ (.+)$/.exec(reason)?.[1] ?? 'that path';
    return unreachable(
      `no socket at ${socket}: check host= in storage.url (or HERMES_DATABASE_URL), the directory of the server's socket`,
    );
  }
  if (['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'ECONNRESET', 'EAI_AGAIN'].includes(code)) {
    return unreachable('check storage.url (or HERMES_DATABASE_URL) and that the server is running');
  }
  // Any other failure to open the connection (EACCES on a socket, ENETUNREACH, …) is the same line.
  if ((syscall === 'connect' || syscall === 'getaddrinfo') && code.startsWith('E')) {
    return unreachable('check storage.url (or HERMES_DATABASE_URL) and that the server is running');
  }
  if (code === '28P01' || code === '28000') {
    return unreachable('check the user and password in storage.url (or HERMES_DATABASE_URL)');
  }
  if (code === '3D000') return unreachable('create the database first (createdb), or fix its name in the URL');
  if (code === '57P01' || code === '57P03' || code === '08006' || code === '08001' || code === '08003') {
    return unreachable('the server is shutting down or restarting; retry in a moment');
  }
  if (/Connection terminated|connection timeout|timeout exceeded when trying to connect/i.test(reason)) {
    return unreachable('check that the server is running and reachable');
  }
  if (code === '53100') return new StorageError('disk-full', storageMessages.diskFull(where), { cause: error });
  if (code === '25006') return new StorageError('read-only', storageMessages.readOnly(where), { cause: error });
  if (code === 'XX001' || code === 'XX002') {
    const remedy = 'restore it from a backup (the server log names the damaged relation)';
    return new StorageError('damaged', storageMessages.damaged(where, reason, remedy), { cause: error });
  }
  if (code === '42P01') {
    const table = missingTableName(reason) ?? 'unknown';
    const remedy = 'restore it from a backup, or point storage.url at a new database (hermes creates its tables there)';
    return new StorageError('missing-table', storageMessages.missingTable(where, table, remedy), { cause: error });
  }
  if (code === '22021' || code === '22P05') {
    return new UsageError(
      `cannot store this text in PostgreSQL (${reason}): it holds a NUL character or invalid UTF-8`,
      {
        cause: error,
      },
    );
  }
  if (code === '55P03' || code === '40P01') {
    return new StorageError('locked', `the session database ${where} reported a lock conflict (${reason}); retry`, {
      cause: error,
    });
  }
  if (code.startsWith('58') || code === '53000' || code === '53200') {
    return new StorageError('io', storageMessages.io(where, reason), { cause: error });
  }
  return error;
}

/**
 * `url` when it parses as a PostgreSQL URL; a one-line usage error saying why not otherwise (a
 * port out of range or not a number, a broken host): the driver would throw a bare
 * `TypeError: Invalid URL` from inside its pool, with a stack. The message never shows the
 * password.
 */
export function checkPostgresUrl(url: string): string {
  try {
    new URL(url);
    return url;
  } catch {
    // Everything between `//` and the last `@` but the user name goes: a password may hold `/`.
    const start = url.indexOf('//') + 2;
    const at = url.lastIndexOf('@');
    const shown = redactUrl(
      at > start ? `${url.slice(0, start)}${url.slice(start, at).split(':')[0]}${url.slice(at)}` : url,
    );
    throw new UsageError(
      `the storage URL ${shown} is not a valid PostgreSQL URL: ${whyNotUrl(url)}; ` +
        'use postgres://USER:PASSWORD@HOST:PORT/DATABASE in storage.url (or HERMES_DATABASE_URL)',
    );
  }
}

/** Why a `postgres://` URL does not parse, as precisely as its text tells. */
function whyNotUrl(url: string): string {
  const afterScheme = url.slice(url.indexOf('//') + 2);
  const authority = afterScheme.split(/[/?#]/, 1)[0] ?? '';
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  if (host.startsWith('[') && !host.includes(']')) return 'the IPv6 host has no closing "]"';
  const port = host.startsWith('[') ? host.slice(host.indexOf(']') + 1).replace(/^:/, '') : host.split(':')[1];
  if (port !== undefined && port !== '' && !/^\d+$/.test(port)) return `the port "${port}" is not a number`;
  if (port !== undefined && Number(port) > 65535) return `the port ${port} is out of range (1 to 65535)`;
  return 'it does not parse as a URL (a password with @, : or / must be percent-encoded)';
}

/** True for `postgres://…` and `postgresql://…` URLs. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url.trim());
}

/** The URL without its password (and without query parameters, which may hold one): what logs and `doctor` show. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    parsed.search = '';
    return parsed.toString().replace(/:@/, '@');
  } catch {
    return 'postgres://(unparseable URL)';
  }
}
