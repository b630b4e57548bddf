import { mkdtempSync, openSync, renameSync, rmSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteSessionStore, type SqliteSessionStore } from '../../src/storage/sqlite-session-store.js';
import { StorageError } from '../../src/storage/storage-errors.js';

/**
 * `ping` reads state.db itself (the gateway's /readyz, SPEC §26.10): an open connection keeps
 * answering from its descriptor after the file is gone, replaced or overwritten, so the check
 * looks at the path.
 */

const opened: { store: SqliteSessionStore; dir: string }[] = [];
afterEach(async () => {
  for (const { store, dir } of opened.splice(0)) {
    await store.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
});

async function freshStore(): Promise<{ store: SqliteSessionStore; path: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'hermes-ping-'));
  const path = join(dir, 'state.db');
  const store = openSqliteSessionStore(path);
  opened.push({ store, dir });
  await store.createSession({ id: 'kept' });
  await expect(store.ping()).resolves.toBeUndefined();
  return { store, path };
}

describe('SQLite ping', () => {
  it('fails in one line once the file is gone, even though the connection still reads', async () => {
    const { store, path } = await freshStore();
    rmSync(path);
    expect(await store.getSession('kept')).not.toBeNull();
    await expect(store.ping()).rejects.toThrow(/state\.db could not be read or written \(the file is gone/);
  });

  it('fails when another file replaced it', async () => {
    const { store, path } = await freshStore();
    writeFileSync(`${path}.other`, 'x');
    renameSync(`${path}.other`, path);
    await expect(store.ping()).rejects.toThrow(/another file replaced it/);
  });

  it('fails when its header was overwritten', async () => {
    const { store, path } = await freshStore();
    const descriptor = openSync(path, 'r+');
    writeSync(descriptor, Buffer.alloc(16, 0x41), 0, 16, 0);
    closeSync(descriptor);
    const failure = await store.ping().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StorageError);
    expect((failure as StorageError).message).toMatch(/is damaged \(its header is not SQLite\)/);
  });
});
