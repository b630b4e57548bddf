import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteSessionStore } from '../../src/storage/sqlite-session-store.js';

/**
 * Issue 4: "a killed process never leaves a torn row". A child process appends in a loop
 * (single messages and 3-message batches) and is killed with SIGKILL mid-loop; the file must
 * then open, pass `PRAGMA integrity_check`, and hold a contiguous 1..N sequence of complete
 * messages and complete batches.
 *
 * The child needs the store as JavaScript. Rather than depending on a possibly stale `dist/`,
 * this test transpiles `src/core` and `src/storage` (TypeScript's transpileModule, no type
 * check) into a temporary directory whose `node_modules` links to the repo's.
 */

const repositoryRoot = resolve(import.meta.dirname, '../..');
let workDirectory: string;
let storeModuleUrl: string;

function transpileFolder(folder: string): void {
  const source = join(repositoryRoot, 'src', folder);
  const target = join(workDirectory, 'src', folder);
  mkdirSync(target, { recursive: true });
  for (const file of readdirSync(source).filter((name) => name.endsWith('.ts'))) {
    const output = ts.transpileModule(readFileSync(join(source, file), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
      fileName: file,
    });
    writeFileSync(join(target, file.replace(/\.ts$/, '.js')), output.outputText);
  }
}

beforeAll(() => {
  workDirectory = mkdtempSync(join(tmpdir(), 'hermes-kill-'));
  writeFileSync(join(workDirectory, 'package.json'), '{"type":"module"}');
  symlinkSync(join(repositoryRoot, 'node_modules'), join(workDirectory, 'node_modules'), 'dir');
  transpileFolder('core');
  transpileFolder('storage');
  storeModuleUrl = pathToFileURL(join(workDirectory, 'src/storage/sqlite-session-store.js')).href;
});

afterAll(() => {
  rmSync(workDirectory, { recursive: true, force: true });
});

/** Spawns the append loop and SIGKILLs it once it reported at least `minimum` stored messages. */
async function runAndKill(databasePath: string, sessionId: string, minimum: number): Promise<number> {
  const fixture = join(import.meta.dirname, 'fixtures/append-loop.mjs');
  const child = spawn(process.execPath, [fixture, storeModuleUrl, databasePath, sessionId], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let reported = 0;
  let errorOutput = '';
  child.stderr.on('data', (chunk: Buffer) => (errorOutput += chunk.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolveExit) =>
    child.on('exit', (_code, signal) => resolveExit(signal)),
  );
  await new Promise<void>((resolveReady, rejectReady) => {
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = chunk.toString().trim().split('\n');
      reported = Number(lines[lines.length - 1]);
      if (reported >= minimum) resolveReady();
    });
    child.on('exit', () => rejectReady(new Error(`append loop exited before the kill: ${errorOutput}`)));
  });
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  return reported;
}

describe('SIGKILL in the middle of appends (issue 4, SPEC §18)', () => {
  it('leaves a database that opens, passes integrity_check and holds a contiguous 1..N history', async () => {
    const databasePath = join(workDirectory, 'state.db');
    const setup = openSqliteSessionStore(databasePath);
    const session = await setup.createSession({ id: 'killed' });
    await setup.close();

    const reported = await runAndKill(databasePath, session.id, 300);

    const database = new Database(databasePath);
    expect(database.pragma('integrity_check', { simple: true })).toBe('ok');
    const sequences = database
      .prepare('SELECT seq FROM messages WHERE session_id = ? ORDER BY seq')
      .pluck()
      .all(session.id) as number[];
    database.close();
    expect(sequences.length).toBeGreaterThanOrEqual(reported);
    expect(sequences).toEqual(Array.from({ length: sequences.length }, (_, index) => index + 1));

    const store = openSqliteSessionStore(databasePath);
    const messages = (await store.listMessages(session.id)) as unknown as Array<Record<string, unknown>>;
    // Every row is whole: it decodes to exactly the value the child built for that number.
    messages.forEach((message, index) => {
      const n = index + 1;
      expect(message).toStrictEqual({
        role: 'assistant',
        content: `answer ${n}`,
        reasoning_content: `${'r'.repeat(4096)}${n}`,
        reasoning_details: [{ type: 'reasoning.text', text: `step ${n}`, signature: `sig-${n}` }],
        _n: n,
        _batch: message._batch,
        _batch_size: message._batch_size,
      });
    });
    // Every batch is whole: a batch of 3 is stored entirely or not at all.
    const batchSizes = new Map<unknown, number>();
    for (const message of messages) batchSizes.set(message._batch, (batchSizes.get(message._batch) ?? 0) + 1);
    for (const message of messages) expect(batchSizes.get(message._batch)).toBe(message._batch_size);
    // The store still takes writes after the crash.
    expect(await store.appendMessage(session.id, { role: 'user', content: 'after the crash' })).toBe(
      messages.length + 1,
    );
    await store.close();
  });
});
