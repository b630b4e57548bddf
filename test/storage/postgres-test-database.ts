import pg from 'pg';

/**
 * A real PostgreSQL server for the PostgreSQL store tests: `.ci/run` starts a throwaway cluster
 * and exports its URL as HERMES_TEST_DATABASE_URL (`scripts/ci-postgres.sh`). Without it those
 * test files are skipped, saying why in one line.
 */
export const POSTGRES_TEST_URL: string | undefined = process.env['HERMES_TEST_DATABASE_URL'] || undefined;

/** The one-line reason PostgreSQL tests are skipped. */
export const POSTGRES_SKIP_REASON =
  'PostgreSQL tests skipped: HERMES_TEST_DATABASE_URL is not set (.ci/run starts a server; see scripts/ci-postgres.sh)';

let announced = false;

/** Prints the skip reason once per test file and returns whether to skip. */
export function skipWithoutPostgres(): boolean {
  if (POSTGRES_TEST_URL !== undefined) return false;
  if (!announced) {
    announced = true;
    process.stderr.write(`${POSTGRES_SKIP_REASON}\n`);
  }
  return true;
}

/** Runs one statement on the server as the test user. */
async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_TEST_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

function randomName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

/** A new, empty database on the test server; returns its URL and a function that drops it. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = randomName('hermes_test');
  // CREATE DATABASE copies template1 and refuses while another session uses it (SQLSTATE 55006):
  // retried a bounded number of times.
  for (let attempt = 1; ; attempt += 1) {
    try {
      await admin(`CREATE DATABASE ${name}`);
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== '55006' || attempt >= 10) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
  const url = new URL(POSTGRES_TEST_URL as string);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/** A new, empty schema in the test database (cheaper than a database); the URL selects it. */
export async function createTestSchema(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = randomName('hermes_schema');
  await admin(`CREATE SCHEMA ${name}`);
  const url = new URL(POSTGRES_TEST_URL as string);
  url.searchParams.set('options', `-c search_path=${name}`);
  return { url: url.toString(), drop: () => admin(`DROP SCHEMA IF EXISTS ${name} CASCADE`) };
}
