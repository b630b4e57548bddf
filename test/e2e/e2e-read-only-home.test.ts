import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HERMES_BIN, runHermes, useE2e, type CliRun } from '../support/e2e.js';
import { scaledTimeout } from '../support/timeouts.js';

/**
 * Read-only commands need neither a writable HERMES_HOME nor a valid config.yaml: `sessions list`
 * in a read-only, empty home lists nothing; with a broken config.yaml it warns in one line and
 * goes on; commands that need the config fail with the YAML error whole (line, column, message).
 */

const e2e = useE2e();

/** Root writes anywhere: a read-only home is only read-only for another user (setpriv, as nobody). */
function runAsUnprivileged(args: string[], env: Record<string, string>): Promise<CliRun> {
  const root = process.getuid?.() === 0;
  const command = root ? 'setpriv' : process.execPath;
  const prefix = root ? ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath] : [];
  return new Promise((done) => {
    execFile(
      command,
      [...prefix, HERMES_BIN, ...args],
      { env: { ...process.env, NO_COLOR: '1', ...env }, cwd: '/', timeout: scaledTimeout(60_000) },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

/**
 * Whether the unprivileged user can run the built CLI at all: a checkout (or CI lane copy) below a
 * directory only root may enter cannot be tested this way, and the case says so by skipping.
 */
function unprivilegedCanRun(): boolean {
  if (process.getuid?.() !== 0) return true;
  try {
    const args = ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, HERMES_BIN, '--version'];
    execFileSync('setpriv', args, { stdio: 'ignore', cwd: '/', timeout: scaledTimeout(60_000) });
    return true;
  } catch {
    return false;
  }
}

describe('read-only commands without a writable home or a valid config', () => {
  it.skipIf(!unprivilegedCanRun())(
    'a read-only, empty HERMES_HOME: sessions list works; a chat says why it cannot store',
    async () => {
      const sandbox = e2e.sandbox();
      const home = join(sandbox.home, 'read-only');
      mkdirSync(home);
      chmodSync(sandbox.home, 0o755);
      chmodSync(home, 0o555);
      const listed = await runAsUnprivileged(['sessions', 'list'], { HERMES_HOME: home });
      expect(listed, listed.stderr).toMatchObject({
        code: 0,
        stdout: 'no sessions yet (start one with: hermes chat)\n',
      });
      expect(listed.stderr).toBe('');
      const json = await runAsUnprivileged(['sessions', 'list', '--json'], { HERMES_HOME: home });
      expect(JSON.parse(json.stdout)).toEqual([]);
      // A command that writes says, in one line, that the home is read-only.
      const rotate = await runAsUnprivileged(['gateway', 'rotate-key'], { HERMES_HOME: home });
      expect(rotate.code).toBe(1);
      expect(rotate.stderr).toBe(
        `hermes: cannot write to the session database ${home}/state.db: it or its directory is read-only; make it ` +
          'writable or point HERMES_HOME at a writable directory (read-only commands such as sessions list and show still work)\n',
      );
      const chat = await runAsUnprivileged(['chat', '-q', 'hello', '--provider', 'emulator:deepseek'], {
        HERMES_HOME: home,
      });
      expect(chat.code).toBe(1);
      expect(chat.stderr).toContain(`hermes: cannot write to ${home}/logs: it is read-only`);
      expect(chat.stderr).not.toMatch(/\n\s+at /);
    },
  );

  it('a broken config.yaml: read-only commands warn once and work; the YAML error is whole', async () => {
    const sandbox = e2e.sandbox();
    writeFileSync(
      join(sandbox.home, 'config.yaml'),
      'provider: deepseek\nmodel: [unclosed\nreasoning: { enabled: true }\n',
    );
    const yamlError =
      `${join(sandbox.home, 'config.yaml')}: not valid YAML at line 3, column 1: Flow sequence in block collection ` +
      'must be sufficiently indented and end with a ] (line 3: "reasoning: { enabled: true }")';
    for (const args of [
      ['sessions', 'list'],
      ['sessions', 'search', 'hello'],
      ['routes', 'verdicts'],
      ['gateway', 'keys'],
    ]) {
      const run = await runHermes(args, sandbox);
      expect({ args, code: run.code }).toEqual({ args, code: 0 });
      expect(run.stderr).toBe(`hermes: warning: ${yamlError}; reading with the default settings\n`);
    }
    const chat = await runHermes(['chat', '-q', 'hello'], sandbox);
    expect(chat.code).toBe(2);
    expect(chat.stderr).toBe(`hermes: ${yamlError}\n`);
  });
});
