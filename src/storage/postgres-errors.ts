import { UsageError } from '../core/errors.js';
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
  if (['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'ECONNRESET', 'EAI_AGAIN'].includes(code)) {
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
