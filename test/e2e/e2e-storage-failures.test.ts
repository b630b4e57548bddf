import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { stateDbPath } from '../../src/storage/store-paths.js';
import { type CliRun, HERMES_BIN, parseJson, runHermes, useE2e } from '../support/e2e.js';
import { SQLITE_SCHEMA_VERSION } from '../../src/storage/sqlite-schema.js';

/**
 * Storage failures through the real CLI: each is ONE line on stderr saying what happened and
 * what to do, the exit code is not 0, no stack trace, and no claim that a message was kept when
 * it was not. A damaged row costs only that row; a read-only state.db still serves read-only
 * commands.
 */

const isRoot = process.getuid?.() === 0;
const e2e = useE2e();

/**
 * stderr holds exactly one `hermes: …` line (plus the notes chat prints: the offline emulator, and
 * where a session resumed from another directory runs its tools).
 */
function oneLine(run: CliRun): string {
  const lines = run.stderr
    .trim()
    .split('\n')
    .filter(
      (line) => !line.startsWith('offline: ') && !/^hermes: session \S+ started in .*: tools run there/.test(line),
    );
  expect(lines, run.stderr).toHaveLength(1);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  return lines[0] ?? '';
}

async function sessionWithTurn(sandbox: { home: string; workspace: string }): Promise<string> {
  const run = await runHermes(['chat', '-q', 'read the file notes.txt', '--json'], sandbox);
  expect(run.code, run.stderr).toBe(0);
  return parseJson<{ session_id: string }>(run).session_id;
}

function raw(home: string, body: (database: Database.Database) => void): void {
  const database = new Database(stateDbPath(home));
  try {
    body(database);
  } finally {
    database.close();
  }
}

describe('storage failures are one line through the CLI', () => {
  it('a damaged page: list fails in one line naming the file and how to recover', async () => {
    const sandbox = e2e.sandbox();
    await sessionWithTurn(sandbox);
    const path = stateDbPath(sandbox.home);
    const size = statSync(path).size;
    const descriptor = openSync(path, 'r+');
    writeSync(descriptor, Buffer.alloc(size - 4096, 0x5a), 0, size - 4096, 4096);
    closeSync(descriptor);
    const listed = await runHermes(['sessions', 'list'], sandbox);
    expect(listed.code).toBe(1);
    expect(oneLine(listed)).toMatch(
      new RegExp(`^hermes: the session database ${path} is damaged \\(.+\\): move it aside`),
    );
  });

  it('a missing table and a newer schema: one line each', async () => {
    const sandbox = e2e.sandbox();
    const id = await sessionWithTurn(sandbox);
    raw(sandbox.home, (database) => database.pragma('user_version = 99'));
    const newer = await runHermes(['sessions', 'show', id], sandbox);
    expect(newer.code).toBe(1);
    expect(oneLine(newer)).toContain('has schema version 99, newer than this hermes understands');
    raw(sandbox.home, (database) => {
      // This build's version: the table is missing, not a migration pending.
      database.pragma(`user_version = ${SQLITE_SCHEMA_VERSION}`);
      database.exec('DROP TABLE verdicts');
    });
    const missing = await runHermes(['routes', 'verdicts'], sandbox);
    expect(missing.code).toBe(1);
    expect(oneLine(missing)).toContain('has no table "verdicts"');
  });

  it('one undecodable row: the session still lists, shows and resumes, naming the bad row', async () => {
    const sandbox = e2e.sandbox();
    const id = await sessionWithTurn(sandbox);
    raw(sandbox.home, (database) =>
      database.prepare("UPDATE messages SET reasoning_details = '{oops' WHERE session_id = ? AND seq = 3").run(id),
    );
    const listed = await runHermes(['sessions', 'list'], sandbox);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(id);
    const shown = await runHermes(['sessions', 'show', id, '--json'], sandbox);
    expect(shown.code).toBe(0);
    const document = parseJson<{ messages: { role: string }[] }>(shown);
    // Row 1 is the system prompt, 2 the question, 3 the damaged assistant turn.
    expect(document.messages.map((message) => message.role)).toEqual(['system', 'user', 'tool', 'assistant']);
    expect(oneLine(shown)).toMatch(
      new RegExp(
        `^hermes: warning: session ${id} message 3 cannot be read \\(column reasoning_details is not valid JSON`,
      ),
    );
    const resumed = await runHermes(['chat', '--resume', id, '-q', 'and now?', '--json'], sandbox);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`message 3 cannot be read`);
  });

  it.skipIf(process.getuid === undefined)(
    'a read-only home and state.db: list and show work, chat (resumed or new) fails in one line without claiming it kept the message',
    async (context) => {
      if (isRoot) {
        const probe = spawnSync('runuser', ['-u', 'nobody', '--', process.execPath, HERMES_BIN, '--version']);
        if (probe.status !== 0) return context.skip('the user nobody cannot run dist/cli.js from this checkout');
      }
      const sandbox = e2e.sandbox();
      const id = await sessionWithTurn(sandbox);
      // Root ignores file modes: run the CLI as `nobody` then; otherwise take write access away.
      chmodSync(sandbox.home, 0o555);
      chmodSync(stateDbPath(sandbox.home), 0o444);
      e2e.defer(() => chmodSync(sandbox.home, 0o755));
      const run = (args: string[]): CliRun => {
        const env = { ...process.env, HERMES_HOME: sandbox.home, NO_COLOR: '1' };
        const command = isRoot ? 'runuser' : process.execPath;
        const argv = isRoot
          ? ['-u', 'nobody', '--', 'env', `HERMES_HOME=${sandbox.home}`, process.execPath, HERMES_BIN, ...args]
          : [HERMES_BIN, ...args];
        const result = spawnSync(command, argv, { cwd: tmpdir(), env, encoding: 'utf8', timeout: 60_000 });
        return { code: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
      };
      if (isRoot) chmodSync(join(sandbox.home, 'logs'), 0o755);
      const listed = run(['sessions', 'list']);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toContain(id);
      const shown = run(['sessions', 'show', id, '--json']);
      expect(shown.code, shown.stderr).toBe(0);
      expect(parseJson<{ messages: unknown[] }>(shown).messages).toHaveLength(5);
      const plain = run(['sessions', 'show', id]);
      expect(plain.code, plain.stderr).toBe(0);
      expect(plain.stdout).toContain(`session   ${id}`);
      const readOnly = /^hermes: cannot write to .*: it (or its directory )?is read-only; make it writable/;
      const chat = run(['chat', '--resume', id, '-q', 'more']);
      expect(chat.code).toBe(1);
      expect(oneLine(chat)).toMatch(readOnly);
      expect(chat.stderr).not.toContain('keeps your message');
      // A new session cannot be stored either: the same one line, before any request is sent.
      const fresh = run(['chat', '-q', 'a new question']);
      expect(fresh.code).toBe(1);
      expect(oneLine(fresh)).toMatch(readOnly);
      expect(fresh.stdout).toBe('');
    },
  );
});

/** A tiny tmpfs (root only) so the disk can really fill up. */
function mountTinyDisk(): string | null {
  if (!isRoot) return null;
  const directory = mkdtempSync(join(tmpdir(), 'hermes-tiny-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', directory], { stdio: 'ignore' });
  } catch {
    rmSync(directory, { recursive: true, force: true });
    return null;
  }
  e2e.defer(() => {
    spawnSync('umount', [directory]);
    rmSync(directory, { recursive: true, force: true });
  });
  return directory;
}

describe('a full disk', () => {
  it.skipIf(!isRoot)(
    'chat fails in one line saying the disk is full, never that it kept the message; it works once space is freed (needs root to mount a tmpfs)',
    async (context) => {
      const disk = mountTinyDisk();
      if (disk === null) return context.skip('mounting a tmpfs failed (no CAP_SYS_ADMIN)');
      const home = join(disk, 'home');
      const sandbox = { home, workspace: e2e.sandbox().workspace };
      const id = await sessionWithTurn(sandbox);
      const filler = join(disk, 'filler');
      const descriptor = openSync(filler, 'w');
      // Fill every byte: big blocks first, then smaller ones until even 1 byte does not fit.
      for (const size of [64 * 1024, 4096, 512, 1]) {
        const block = Buffer.alloc(size, 1);
        for (let written = 0; written < 8 * 1024 * 1024; written += size) {
          try {
            writeSync(descriptor, block);
          } catch {
            break;
          }
        }
      }
      closeSync(descriptor);
      const chat = await runHermes(['chat', '--resume', id, '-q', 'x'.repeat(20_000)], sandbox);
      expect(chat.code).not.toBe(0);
      expect(oneLine(chat)).toMatch(/the disk is full; free some space and retry/);
      expect(chat.stderr).not.toContain('keeps your message');
      rmSync(filler);
      const again = await runHermes(['chat', '--resume', id, '-q', 'and now?', '--json'], sandbox);
      expect(again.code, again.stderr).toBe(0);
    },
  );
});
