import { createRequire } from 'node:module';
import type pg from 'pg';
import { migratePostgres } from './postgres-schema.js';

/**
 * The `pg` driver, required (it is CommonJS) when the first PostgreSQL pool opens, so commands
 * on a SQLite store never load it.
 */
function loadPg(): typeof pg {
  return createRequire(import.meta.url)('pg') as typeof pg;
}

// bigint columns (epoch milliseconds, request ids) fit a JS number exactly; the driver's default
// would hand them over as strings.
const BIGINT_OID = 20;
function typesOf(driver: typeof pg) {
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === BIGINT_OID ? (value: string) => Number(value) : driver.types.getTypeParser(oid, format)) as never,
  };
}

/** A connection pool on `url` plus the once-per-pool migration every query waits for. */
export interface PostgresPool {
  pool: pg.Pool;
  /** Resolves with the schema version once the database is migrated (retried after a failure). */
  ready(): Promise<number>;
  /** Runs `body` in one transaction on one connection (after `ready`). */
  transaction<T>(body: (client: pg.PoolClient) => Promise<T>): Promise<T>;
}

/** Opens a lazily connecting pool; `where` is the URL without credentials (for messages). */
export function createPostgresPool(url: string, where: string, size = 10): PostgresPool {
  const driver = loadPg();
  const pool = new driver.Pool({
    connectionString: url,
    max: size,
    idleTimeoutMillis: 10_000,
    connectionTimeoutMillis: 10_000,
    types: typesOf(driver),
  });
  // An idle connection dropped by the server must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  let migrated: Promise<number> | null = null;
  const ready = (): Promise<number> => {
    migrated ??= (async () => {
      const client = await pool.connect();
      try {
        return await migratePostgres(client, where);
      } finally {
        client.release();
      }
    })().catch((error: unknown) => {
      migrated = null;
      throw error;
    });
    return migrated;
  };
  return {
    pool,
    ready,
    async transaction(body) {
      await ready();
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await body(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
  };
}
