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
 * "a killed process never leaves a torn row". A child process appends in a loop
 * (single messages and 3-message batches) and is killed with SIGKILL mid-loop; the file must
 * then open, pass `PRAGMA integrity_check`, and hold a contiguous 1..N sequence of complete
 * messages and complete batches. Two processes (CLI + gateway) appending to one
 * session at once wait on each other's write lock (busy timeout) and lose nothing.
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

interface AppendLoop {
  /** Resolves with the exit signal (null after a normal exit) and rejects on a non-zero exit code. */
  exited: Promise<NodeJS.Signals | null>;
  /** Resolves once the child reported at least `count` stored messages. */
  reached(count: number): Promise<number>;
  kill(): void;
}

/** Spawns the append-loop fixture (`batches` bounds it; without it the loop runs until killed). */
function spawnAppendLoop(databasePath: string, sessionId: string, batches?: number, writer?: string): AppendLoop {
  const fixture = join(import.meta.dirname, 'fixtures/append-loop.mjs');
  const argumentsList = [fixture, storeModuleUrl, databasePath, sessionId];
  if (batches !== undefined) argumentsList.push(String(batches), writer ?? 'solo');
  const child = spawn(process.execPath, argumentsList, { stdio: ['ignore', 'pipe', 'pipe'] });
  let reported = 0;
  let errorOutput = '';
  const waiters: Array<{ count: number; resolve: (value: number) => void }> = [];
  child.stderr.on('data', (chunk: Buffer) => (errorOutput += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = chunk.toString().trim().split('\n');
    reported = Number(lines[lines.length - 1]);
    for (const waiter of waiters.filter((entry) => reported >= entry.count)) waiter.resolve(reported);
  });
  const exited = new Promise<NodeJS.Signals | null>((resolveExit, rejectExit) =>
    child.on('exit', (code, signal) => {
      if (signal === null && code !== 0) rejectExit(new Error(`append loop failed (${code}): ${errorOutput}`));
      else resolveExit(signal);
    }),
  );
  return {
    exited,
    reached: (count) =>
      Promise.race([
        new Promise<number>((resolveReached) => waiters.push({ count, resolve: resolveReached })),
        exited.then(() => {
          throw new Error(`append loop exited after ${reported} messages, before ${count}: ${errorOutput}`);
        }),
      ]),
    kill: () => child.kill('SIGKILL'),
  };
}

/** The message the fixture builds for number `n` (batch fields copied from the stored row). */
function expectedMessage(n: number, stored: Record<string, unknown>, writer = 'solo'): Record<string, unknown> {
  return {
    role: 'assistant',
    content: `answer ${n}`,
    reasoning_content: `${'r'.repeat(4096)}${n}`,
    reasoning_details: [{ type: 'reasoning.text', text: `step ${n}`, signature: `sig-${n}` }],
    _writer: writer,
    _n: n,
    _batch: stored['_batch'],
    _batch_size: stored['_batch_size'],
  };
}

/** integrity_check result and the stored sequence numbers of a session, read by a fresh connection. */
function inspect(databasePath: string, sessionId: string): { integrity: unknown; sequences: number[] } {
  const database = new Database(databasePath);
  try {
    return {
      integrity: database.pragma('integrity_check', { simple: true }),
      sequences: database
        .prepare('SELECT seq FROM messages WHERE session_id = ? ORDER BY seq')
        .pluck()
        .all(sessionId) as number[],
    };
  } finally {
    database.close();
  }
}

describe('several processes on one state.db (SPEC §18)', () => {
  it('SIGKILL in the middle of appends leaves a database that opens, passes integrity_check and holds a contiguous 1..N history', async () => {
    const databasePath = join(workDirectory, 'killed.db');
    const setup = openSqliteSessionStore(databasePath);
    const session = await setup.createSession({ id: 'killed' });
    await setup.close();

    const loop = spawnAppendLoop(databasePath, session.id);
    const reported = await loop.reached(300);
    loop.kill();
    expect(await loop.exited).toBe('SIGKILL');

    const { integrity, sequences } = inspect(databasePath, session.id);
    expect(integrity).toBe('ok');
    expect(sequences.length).toBeGreaterThanOrEqual(reported);
    expect(sequences).toEqual(Array.from({ length: sequences.length }, (_, index) => index + 1));

    const store = openSqliteSessionStore(databasePath);
    const messages = (await store.listMessages(session.id)) as unknown as Array<Record<string, unknown>>;
    // Every row is whole: it decodes to exactly the value the child built for that number.
    messages.forEach((message, index) => expect(message).toStrictEqual(expectedMessage(index + 1, message)));
    // Every batch is whole: a batch of 3 is stored entirely or not at all.
    const batchSizes = new Map<unknown, number>();
    for (const message of messages) batchSizes.set(message['_batch'], (batchSizes.get(message['_batch']) ?? 0) + 1);
    for (const message of messages) expect(batchSizes.get(message['_batch'])).toBe(message['_batch_size']);
    // The store still takes writes after the crash.
    expect(await store.appendMessage(session.id, { role: 'user', content: 'after the crash' })).toBe(
      messages.length + 1,
    );
    await store.close();
  });

  it('two processes appending to one session at once lose nothing and never split a batch', async () => {
    const databasePath = join(workDirectory, 'concurrent.db');
    const setup = openSqliteSessionStore(databasePath);
    const session = await setup.createSession({ id: 'shared' });
    await setup.close();

    // 120 batches per writer: 60 single appends + 60 batches of 3 = 240 messages each.
    const writers = ['cli', 'gateway'].map((writer) => spawnAppendLoop(databasePath, session.id, 120, writer));
    expect(await Promise.all(writers.map((writer) => writer.exited))).toEqual([null, null]);

    const { integrity, sequences } = inspect(databasePath, session.id);
    expect(integrity).toBe('ok');
    expect(sequences).toEqual(Array.from({ length: 480 }, (_, index) => index + 1));

    const store = openSqliteSessionStore(databasePath);
    const messages = (await store.listMessages(session.id)) as unknown as Array<Record<string, unknown>>;
    await store.close();
    for (const writer of ['cli', 'gateway']) {
      const own = messages.filter((message) => message['_writer'] === writer);
      // Each writer's messages are all there, whole, and in the order that writer appended them.
      expect(own.map((message) => message['_n'])).toEqual(Array.from({ length: 240 }, (_, index) => index + 1));
      own.forEach((message, index) => expect(message).toStrictEqual(expectedMessage(index + 1, message, writer)));
    }
    // A batch is one transaction: its messages sit on consecutive sequence numbers.
    const positions = new Map<string, number[]>();
    messages.forEach((message, index) => {
      const batchKey = `${String(message['_writer'])}/${String(message['_batch'])}`;
      positions.set(batchKey, [...(positions.get(batchKey) ?? []), index]);
    });
    expect(positions.size).toBe(2 * 120);
    for (const indexes of positions.values()) {
      const first = indexes[0] ?? -1;
      expect(indexes).toEqual(indexes.map((_, offset) => first + offset));
    }
  });
});
