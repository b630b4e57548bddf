import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routeArgs, runHermes, useE2e, type Sandbox } from '../support/e2e.js';

/**
 * Keys that reach the CLI by other ways than an echoed header (SPEC §23.3, docs/architecture.md
 * "Security"): a provider that answers 401 with the bare key as `x-request-id`, or cuts the key
 * in half across two malformed stream chunks, and a key inside the base URL (`?key=`, user
 * info). The key is a shapeless one (no `sk-` prefix), so only the redaction of the known key and
 * of its pieces can remove it. It appears nowhere: stdout, stderr, `hermes logs` (agent and
 * errors), the log files, state.db, `sessions list/show --json`, `sessions export`.
 */

const KEY = 'hx9Qm2Zr7Lw4Kp8Tn3Vb6Yc1Jd5Fg0Hs';
/** Every 8-character piece of the key: none may appear anywhere. */
const PIECES = Array.from({ length: KEY.length - 7 }, (_, start) => KEY.slice(start, start + 8));
/** Faults queued per run: more than the transport's attempts and the runtime's recoveries. */
const REPEATS = 6;

const e2e = useE2e();

/** Every file under `directory` (state.db, its WAL, the logs), read as text. */
function filesUnder(directory: string): { path: string; text: string }[] {
  const found: { path: string; text: string }[] = [];
  for (const name of readdirSync(directory)) {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) found.push(...filesUnder(path));
    else found.push({ path, text: readFileSync(path).toString('latin1') });
  }
  return found;
}

function expectNoPieceIn(where: string, text: string): void {
  for (const piece of PIECES) expect(text.includes(piece), `${where} holds "${piece}"`).toBe(false);
}

/** What the CLI shows of the sandbox afterwards: logs, sessions list/show/export, in every format. */
async function everythingShown(sandbox: Sandbox): Promise<string> {
  const list = await runHermes(['sessions', 'list', '--json'], sandbox);
  const ids = (JSON.parse(list.stdout) as { id: string }[]).map((session) => session.id);
  expect(ids.length).toBeGreaterThan(0);
  const runs = [list];
  for (const args of [['logs'], ['logs', '--file', 'errors'], ['logs', '-n', '500', '--level', 'debug']]) {
    runs.push(await runHermes(args, sandbox));
  }
  for (const id of ids) {
    for (const args of [
      ['sessions', 'show', id],
      ['sessions', 'show', id, '--json'],
      ['sessions', 'export', id],
    ]) {
      runs.push(await runHermes(args, sandbox));
    }
  }
  return runs.map((run) => run.stdout + run.stderr).join('\n');
}

describe('a key echoed bare by a provider is never printed, logged or stored', () => {
  it.each(['request-id-header', 'split-malformed-chunks'] as const)('echo in %s', async (where) => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    for (let index = 0; index < REPEATS; index++) emulator.addFault({ kind: 'key-echo', where });
    const sandbox = e2e.sandbox();
    const run = await runHermes(
      ['chat', '-q', 'say hello', ...routeArgs('deepseek', 'deepseek-v4-flash', emulator.baseUrl, KEY)],
      sandbox,
    );
    expect(run.code, run.stderr).not.toBe(0);
    expectNoPieceIn('the chat run', run.stdout + run.stderr);
    const logs = readFileSync(join(sandbox.home, 'logs', 'errors.log'), 'utf8');
    expect(logs).toContain('[redacted]');
    for (const file of filesUnder(sandbox.home)) expectNoPieceIn(file.path, file.text);
    expectNoPieceIn('what the CLI shows', await everythingShown(sandbox));
  });
});

describe('a key in the base URL is never printed, logged or stored', () => {
  it.each([
    ['a ?key= query', (origin: string) => `${origin}/v1?key=${KEY}`],
    ['an ?api_key= query after another', (origin: string) => `${origin}/v1?alt=x&api_key=${KEY}`],
    ['user info', (origin: string) => `${origin.replace('//', `//user:${KEY}@`)}/v1`],
  ])('%s', async (_name, urlFor) => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const sandbox = e2e.sandbox();
    const baseUrl = urlFor(new URL(emulator.baseUrl).origin);
    const run = await runHermes(['chat', '-q', 'say hello', ...routeArgs('custom', 'm', baseUrl, 'k')], sandbox);
    expectNoPieceIn('the chat run', run.stdout + run.stderr);
    for (const file of filesUnder(sandbox.home)) expectNoPieceIn(file.path, file.text);
    const shown = await everythingShown(sandbox);
    expectNoPieceIn('what the CLI shows', shown);
    expect(shown).toContain('[redacted]');
  });

  it('a resumed session asks for the URL again, or takes the configured one it was stored from', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const baseUrl = `${new URL(emulator.baseUrl).origin}/v1?key=${KEY}`;
    const sandbox = e2e.sandbox();
    await runHermes(['chat', '-q', 'say hello', ...routeArgs('custom', 'm', baseUrl, 'k')], sandbox);
    const list = await runHermes(['sessions', 'list', '--json'], sandbox);
    const [session] = JSON.parse(list.stdout) as { id: string }[];
    const resumed = await runHermes(['chat', '-r', session?.id ?? '', '-q', 'again'], sandbox);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain('pass --base-url with the full URL to resume it');
    expectNoPieceIn('the resume', resumed.stdout + resumed.stderr);

    const configured = e2e.sandbox({ config: `provider: custom\nmodel: m\nbase_url: "${baseUrl}"\n` });
    await runHermes(['chat', '-q', 'say hello'], configured);
    const [stored] = JSON.parse((await runHermes(['sessions', 'list', '--json'], configured)).stdout) as {
      id: string;
    }[];
    const again = await runHermes(['chat', '-r', stored?.id ?? '', '-q', 'again'], configured);
    expect(again.stderr).not.toContain('pass --base-url');
    expectNoPieceIn('the configured resume', again.stdout + again.stderr);
    for (const args of [['config', 'show'], ['config', 'show', '--json'], ['doctor']]) {
      const shown = await runHermes(args, configured);
      expectNoPieceIn(args.join(' '), shown.stdout + shown.stderr);
    }
    for (const file of filesUnder(configured.home)) {
      if (!file.path.endsWith('config.yaml')) expectNoPieceIn(file.path, file.text);
    }
  });
});
