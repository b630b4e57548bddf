import { afterAll, describe } from 'vitest';
import { openPostgresSessionStore } from '../../src/storage/postgres-session-store.js';
import { createTestSchema, skipWithoutPostgres } from './postgres-test-database.js';
import { runSessionStoreConformance } from './session-store.cases.js';

// The same conformance suite as SQLite and memory, on a real PostgreSQL server (SPEC §23.6).
const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const drop of drops.splice(0)) await drop();
});

describe.skipIf(skipWithoutPostgres())('PostgreSQL store', () => {
  runSessionStoreConformance('postgres', async (clock) => {
    const schema = await createTestSchema();
    drops.push(schema.drop);
    return openPostgresSessionStore(schema.url, { now: clock.now });
  });
});
