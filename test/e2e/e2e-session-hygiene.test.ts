import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteSessionStore } from '../../src/storage/sqlite-session-store.js';
import { stateDbPath } from '../../src/storage/store-paths.js';
import { parseJson, runHermes, useE2e, type CliRun, type Sandbox } from '../support/e2e.js';

/**
 * Session hygiene of `hermes chat` through the built binary (SPEC §20 resume surfaces): no empty
 * session is stored, `-c` continues the newest non-empty session started in the working
 * directory, `--resume latest` and `--resume TITLE`, `-q -` reads stdin, and a retried question
 * after a failed turn is not sent twice.
 */

const OFFLINE = ['--provider', 'emulator:deepseek'];
const e2e = useE2e();

/** Runs the binary with `input` on stdin. */
function runWithStdin(args: string[], sandbox: Sandbox, input: string): Promise<CliRun> {
  return runHermes(args, sandbox, {}, input);
}

async function ask(sandbox: Sandbox, args: string[]): Promise<string> {
  const run = await runHermes(['chat', ...args, '--json', ...OFFLINE], sandbox);
  expect(run.code, run.stderr).toBe(0);
  return parseJson<{ session_id: string }>(run).session_id;
}

async function sessionIds(sandbox: Sandbox): Promise<string[]> {
  const run = await runHermes(['sessions', 'list', '--json'], sandbox);
  return parseJson<{ id: string }[]>(run).map((session) => session.id);
}

function newDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-e2e-dir-')));
  e2e.defer(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('hermes chat session hygiene', () => {
  it('an interactive chat that sends nothing stores no session and offers none to resume', async () => {
    const sandbox = e2e.sandbox();
    const run = await runWithStdin(['chat', ...OFFLINE], sandbox, '/help\n/exit\n');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('resume with');
    expect(await sessionIds(sandbox)).toEqual([]);
  });

  it('-c continues the newest non-empty session started here, and only here', async () => {
    const sandbox = e2e.sandbox();
    const other = { ...sandbox, workspace: newDir() };
    const here = await ask(sandbox, ['-q', 'first question here']);
    const there = await ask(other, ['-q', 'a question elsewhere']);
    // An empty session (as older versions stored) is the newest of all: never continued.
    const store = openSqliteSessionStore(stateDbPath(sandbox.home));
    const empty = await store.createSession({ provider: 'deepseek', model: 'x' });
    await store.close();

    const continuedHere = await runHermes(['chat', '-c', '-q', 'more', '--json', ...OFFLINE], sandbox);
    expect(continuedHere.code, continuedHere.stderr).toBe(0);
    expect(parseJson<{ session_id: string }>(continuedHere).session_id).toBe(here);
    expect(continuedHere.stderr).not.toContain('tools run there');

    // A directory no session started in: -c does not reach for another directory's session.
    const elsewhere = { ...sandbox, workspace: newDir() };
    const refused = await runHermes(['chat', '-c', '-q', 'more', '--json', ...OFFLINE], elsewhere);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `hermes: no session was started in ${elsewhere.workspace}: start one with hermes chat, or resume another with hermes chat --resume ID (or latest)\n`,
    );
    expect([here, there]).not.toContain(empty.id);
    expect(await sessionIds(sandbox)).toHaveLength(3);
  });

  it("--resume from another directory runs the tools in the session's own directory, and says so", async () => {
    const sandbox = e2e.sandbox();
    const first = await ask(sandbox, ['-q', 'read the file notes.txt']);
    // Another project with a notes.txt of its own: the resumed session must not read it.
    const other = { ...sandbox, workspace: newDir() };
    writeFileSync(join(other.workspace, 'notes.txt'), 'the other project\n');
    const resumed = await runHermes(
      ['chat', '--resume', first, '-q', 'read the file notes.txt', '--json', ...OFFLINE],
      other,
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    const answer = parseJson<{ tool_calls: { result: string }[] }>(resumed);
    expect(answer.tool_calls.map((call) => call.result)).toEqual(['alpha beta\n']);
    expect(resumed.stderr).toContain(
      `hermes: session ${first} started in ${sandbox.workspace}: tools run there (you are in ${other.workspace})\n`,
    );

    // Its directory is gone: the session runs where the user is, and says that too.
    const gone = { ...sandbox, workspace: newDir() };
    const lost = await ask(gone, ['-q', 'hello']);
    rmSync(gone.workspace, { recursive: true, force: true });
    const moved = await runHermes(
      ['chat', '--resume', lost, '-q', 'read the file notes.txt', '--json', ...OFFLINE],
      other,
    );
    expect(moved.code, moved.stderr).toBe(0);
    expect(parseJson<{ tool_calls: { result: string }[] }>(moved).tool_calls.map((call) => call.result)).toEqual([
      'the other project\n',
    ]);
    expect(moved.stderr).toContain(
      `hermes: session ${lost} started in ${gone.workspace}, which no longer exists; tools run in ${other.workspace}\n`,
    );
  });

  it('--resume takes a unique id prefix; an ambiguous one lists the candidates', async () => {
    const sandbox = e2e.sandbox();
    const first = await ask(sandbox, ['-q', 'one']);
    const second = await ask(sandbox, ['-q', 'two']);
    // Ids start with their creation time: the first character where the two differ makes a prefix unique.
    const differs = [...first].findIndex((character, index) => character !== second[index]);
    expect(differs).toBeGreaterThan(0);
    expect(await ask(sandbox, ['--resume', first.slice(0, differs + 1), '-q', 'go on'])).toBe(first);
    const shared = first.slice(0, differs);
    const ambiguous = await runHermes(['chat', '--resume', shared, '-q', 'x', ...OFFLINE], sandbox);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain(`"${shared}" matches 2 sessions; resume one by id:`);
    expect(ambiguous.stderr).toContain(`${first}  "one"`);
  });

  it('--resume latest, a unique title prefix, and an ambiguous one listing the candidates', async () => {
    const sandbox = e2e.sandbox();
    const parser = await ask(sandbox, ['-q', 'fix the parser bug']);
    const printer = await ask(sandbox, ['-q', 'fix the printer bug']);
    expect(await ask(sandbox, ['--resume', 'latest', '-q', 'go on'])).toBe(printer);
    expect(await ask(sandbox, ['--resume', 'fix the pa', '-q', 'go on'])).toBe(parser);
    const ambiguous = await runHermes(['chat', '--resume', 'fix the', '-q', 'go on', ...OFFLINE], sandbox);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain('"fix the" matches 2 sessions; resume one by id:');
    expect(ambiguous.stderr).toContain(`${parser}  "fix the parser bug"`);
    expect(ambiguous.stderr).toContain(`${printer}  "fix the printer bug"`);
    expect(ambiguous.stderr).not.toMatch(/\n\s+at /);
    const unknown = await runHermes(['chat', '--resume', 'nothing like it', '-q', 'x', ...OFFLINE], sandbox);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no session "nothing like it"');
  });

  it('-q - reads the prompt from stdin', async () => {
    const sandbox = e2e.sandbox();
    const run = await runWithStdin(['chat', '-q', '-', '--json', ...OFFLINE], sandbox, 'read the file notes.txt\n');
    expect(run.code, run.stderr).toBe(0);
    const answer = parseJson<{ session_id: string; tool_calls: { name: string }[] }>(run);
    expect(answer.tool_calls.map((call) => call.name)).toEqual(['read_file']);
    const shown = parseJson<{ messages: { role: string; content: string }[] }>(
      await runHermes(['sessions', 'show', answer.session_id, '--json'], sandbox),
    );
    expect(shown.messages.find((message) => message.role === 'user')?.content).toBe('read the file notes.txt');
    const empty = await runWithStdin(['chat', '-q', '-', ...OFFLINE], sandbox, '\n');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('-q - read no prompt from standard input');
  });

  it('a failed turn asked again sends the question once, not twice', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek', faults: [{ kind: 'status', status: 401 }] });
    const sandbox = e2e.sandbox();
    const route = ['--provider', 'deepseek', '--model', 'deepseek-v4-flash', '--base-url', emulator.baseUrl];
    const failed = await runHermes(['chat', '-q', 'what is in notes.txt?', ...route, '--api-key', 'x'], sandbox);
    expect(failed.code).not.toBe(0);
    const id = /retry with: hermes chat --resume (\S+)\)/.exec(failed.stderr)?.[1];
    expect(id, failed.stderr).toBeDefined();
    const before = emulator.requests.length;
    const retried = await runHermes(
      ['chat', '--resume', id!, '-q', 'what is in notes.txt?', ...route, '--api-key', 'x'],
      sandbox,
    );
    expect(retried.code, retried.stderr).toBe(0);
    const body = emulator.requests[before]?.body as { messages: { role: string; content: string }[] };
    expect(body.messages.filter((message) => message.role === 'user').map((message) => message.content)).toEqual([
      'what is in notes.txt?',
    ]);
  });
});
