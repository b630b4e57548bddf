import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scaledTimeout } from '../support/timeouts.js';

/**
 * The README's quick start as a new user follows it from a clone: short, it says how to get
 * `hermes` on the PATH, and the ways it names work — `npm link` (checked against a throwaway
 * global prefix) and `npx hermes` inside the clone. The performance figures live in
 * docs/performance.md, linked from the README. Runs the built CLI (`npm run build` first).
 */

const README = readFileSync('README.md', 'utf8');
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** The text of a `## ` section of the README. */
function section(title: string): string {
  const start = README.indexOf(`## ${title}\n`);
  if (start < 0) return '';
  const next = README.indexOf('\n## ', start + 3);
  return README.slice(start, next < 0 ? undefined : next);
}

/** How long one npm command may take (npm itself starts slowly on a busy machine). */
const NPM_TIMEOUT_MS = scaledTimeout(120_000);

function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((done, fail) => {
    execFile(command, args, { env: { ...process.env, ...env }, timeout: NPM_TIMEOUT_MS }, (error, stdout, stderr) =>
      error ? fail(new Error(`${error.message}\n${stderr}`)) : done(stdout),
    );
  });
}

describe('README quick start', () => {
  it('is short and says how to get hermes on the PATH, then uses hermes', () => {
    const quickStart = section('Quick start');
    expect(quickStart.split('\n').length).toBeLessThanOrEqual(45);
    expect(quickStart).toMatch(/^npm link +# puts `hermes` on your PATH/m);
    expect(quickStart).toMatch(/^hermes chat /m);
    expect(quickStart).not.toContain('node dist/cli.js chat');
  });

  it(
    'npm link puts a working hermes in the global bin directory',
    async () => {
      const prefix = mkdtempSync(join(tmpdir(), 'hermes-link-'));
      cleanups.push(() => rmSync(prefix, { recursive: true, force: true }));
      // dist is built already: the link itself is what is checked, not the prepare script's build.
      await run('npm', ['link', '--ignore-scripts', '--no-audit', '--no-fund'], { npm_config_prefix: prefix });
      const bin = join(prefix, 'bin', 'hermes');
      expect(existsSync(bin)).toBe(true);
      expect((await run(bin, ['--version'])).trim()).toMatch(/^\d+\.\d+\.\d+$/);
    },
    2 * NPM_TIMEOUT_MS,
  );

  it(
    'npx hermes runs this checkout’s hermes inside the clone',
    async () => {
      // The first `npx hermes` from a checkout's path installs the checkout into npm's npx cache, and
      // that install runs the `prepare` script, which rebuilds dist while the tests beside this one
      // run the built CLI. dist is built already, so the install runs no scripts here.
      const version = await run('npx', ['--no-install', '--ignore-scripts', 'hermes', '--version']);
      expect(version.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    },
    NPM_TIMEOUT_MS,
  );

  it('the performance tables live in docs/performance.md, linked from the README', () => {
    expect(README).not.toMatch(/^## Performance$/m);
    expect(README).not.toContain('hidden-classes');
    expect(README).toContain('(docs/performance.md)');
    const performance = readFileSync('docs/performance.md', 'utf8');
    expect(performance).toContain('| sessions | floor CPU ms/turn |');
    expect(performance).toContain('`npm run bench -- hidden-classes`');
  });
});
