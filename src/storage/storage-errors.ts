import { HermesError } from '../core/errors.js';

/**
 * Storage failures as one line each (what happened, then what to do), never a stack trace. The
 * store implementations map their driver's errors here; `guardStore` applies the mapping to
 * every method of a store, so no caller sees a raw driver error.
 */

/** The kinds of storage failure a person can act on. */
export type StorageFailureKind =
  'damaged' | 'missing-table' | 'newer-schema' | 'disk-full' | 'read-only' | 'locked' | 'unreachable' | 'io';

/** A storage failure (exit code 1 in the CLI, 500 in the gateway). */
export class StorageError extends HermesError {
  override readonly name: string = 'StorageError';

  constructor(
    readonly kind: StorageFailureKind,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
  }
}

/** One-line texts shared by the SQLite and PostgreSQL stores; `where` names the file or the URL without credentials. */
export const storageMessages = {
  damaged: (where: string, reason: string, remedy: string) =>
    `the session database ${where} is damaged (${reason}): ${remedy}`,
  missingTable: (where: string, table: string, remedy: string) =>
    `the session database ${where} has no table "${table}" (dropped, or written by another tool): ${remedy}`,
  newerSchema: (where: string, found: number, known: number, remedy: string) =>
    `the session database ${where} has schema version ${found}, newer than this hermes understands (${known}): ${remedy}`,
  diskFull: (where: string) =>
    `cannot write to the session database ${where}: the disk is full; free some space and retry (nothing of this write was stored)`,
  readOnly: (where: string) =>
    `cannot write to the session database ${where}: it or its directory is read-only; make it writable or point ` +
    'HERMES_HOME at a writable directory (read-only commands such as sessions list and show still work)',
  locked: (where: string, seconds: number) =>
    `the session database ${where} stayed locked by another process for ${seconds} s; retry, or stop the hermes process that holds it`,
  io: (where: string, reason: string) =>
    `the session database ${where} could not be read or written (${reason}); check the disk and retry`,
};

/** The `no such table: NAME` / `relation "NAME" does not exist` table name, if the text has one. */
export function missingTableName(text: string): string | null {
  const sqlite = /no such table: (?:main\.)?([A-Za-z_][\w]*)/.exec(text);
  if (sqlite) return sqlite[1] ?? null;
  const postgres = /relation "(?:[\w]+\.)?([A-Za-z_][\w]*)" does not exist/.exec(text);
  return postgres ? (postgres[1] ?? null) : null;
}

/**
 * Wraps every method of `store` so a thrown error goes through `mapError` (HermesErrors, which
 * are already one line, pass through unchanged). Non-function properties are kept as they are.
 */
export function guardStore<T extends object>(store: T, mapError: (error: unknown) => unknown): T {
  const guarded: Record<string, unknown> = {};
  for (const key of Object.keys(store)) {
    const value = (store as Record<string, unknown>)[key];
    if (typeof value !== 'function') {
      Object.defineProperty(guarded, key, Object.getOwnPropertyDescriptor(store, key) as PropertyDescriptor);
      continue;
    }
    const method = value as (...args: unknown[]) => unknown;
    guarded[key] = (...args: unknown[]) => {
      let result: unknown;
      try {
        result = method.apply(store, args);
      } catch (error) {
        throw error instanceof HermesError ? error : mapError(error);
      }
      if (result instanceof Promise) {
        return result.catch((error: unknown) => {
          throw error instanceof HermesError ? error : mapError(error);
        });
      }
      return result;
    };
  }
  return guarded as T;
}

/**
 * A file-system failure writing under `$HERMES_HOME` (logs, config) as one line, or the error
 * unchanged when it is not one a person can act on.
 */
export function homeWriteFailure(error: unknown, path: string): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return new StorageError(
      'read-only',
      `cannot write to ${path}: it is read-only; make it writable or point HERMES_HOME at a writable directory`,
      { cause: error },
    );
  }
  if (code === 'ENOSPC') {
    return new StorageError('disk-full', `cannot write to ${path}: the disk is full; free some space and retry`, {
      cause: error,
    });
  }
  return error;
}
