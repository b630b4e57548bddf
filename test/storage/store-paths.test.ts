import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDefaultStore } from '../../src/storage/store-open.js';
import { hermesHome, logsDir, stateDbPath } from '../../src/storage/store-paths.js';

const temporaryDirectories: string[] = [];
afterEach(() => {
  for (const directory of temporaryDirectories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe('store paths (docs/architecture.md: HERMES_HOME, state.db, logs/)', () => {
  const homes: Array<[label: string, env: NodeJS.ProcessEnv, expected: string]> = [
    ['unset', {}, join(homedir(), '.hermes')],
    ['empty', { HERMES_HOME: '' }, join(homedir(), '.hermes')],
    ['absolute', { HERMES_HOME: '/srv/hermes' }, '/srv/hermes'],
    ['unexpanded tilde', { HERMES_HOME: '~/agents/hermes' }, join(homedir(), 'agents/hermes')],
    ['bare tilde', { HERMES_HOME: '~' }, homedir()],
  ];
  for (const [label, env, expected] of homes) {
    it(`resolves HERMES_HOME when ${label}`, () => {
      expect(hermesHome(env)).toBe(expected);
    });
  }

  it('names state.db and logs/ inside the home', () => {
    expect(stateDbPath('/srv/hermes')).toBe('/srv/hermes/state.db');
    expect(logsDir('/srv/hermes')).toBe('/srv/hermes/logs');
  });

  it('openDefaultStore creates the home (0700) and a WAL state.db (0600) in it', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'hermes-home-'));
    temporaryDirectories.push(parent);
    const home = join(parent, '.hermes');
    const store = openDefaultStore(home);
    try {
      expect(store.path).toBe(join(home, 'state.db'));
      expect(store.journalMode()).toBe('wal');
      expect(statSync(home).mode & 0o777).toBe(0o700);
      expect(statSync(store.path).mode & 0o777).toBe(0o600);
      const session = await store.createSession({ title: 'first' });
      expect((await store.latestSession())?.id).toBe(session.id);
    } finally {
      await store.close();
    }
  });
});
