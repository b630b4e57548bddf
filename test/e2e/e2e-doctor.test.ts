import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runHermes, useE2e } from '../support/e2e.js';

const e2e = useE2e();

/** `hermes doctor` through the real binary (SPEC §20 CLI surfaces; SPEC §5 route row, §23.1 verdicts). */
describe('hermes doctor', () => {
  it('healthy: store, config, .env key (never its value), route row and carriers, verdicts, probe; exit 0', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const sandbox = e2e.sandbox({
      config: `provider: deepseek\nmodel: deepseek-v4-flash\nbase_url: ${emulator.baseUrl}\n`,
    });
    writeFileSync(join(sandbox.home, '.env'), 'DEEPSEEK_API_KEY=sk-doctor-secret\n');
    expect((await runHermes(['chat', '-q', 'hello'], sandbox)).code).toBe(0);
    const run = await runHermes(['doctor', '--probe'], sandbox);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('sk-doctor-secret');
    expect(run.stdout).toMatch(/^ok {4}node {6}v\d+\.\d+\.\d+$/m);
    expect(run.stdout).toMatch(/^ok {4}home {6}.* \(mode 700, writable\)$/m);
    expect(run.stdout).toMatch(
      /^ok {4}state\.db {2}.*state\.db: integrity ok, schema version (\d+) \(this build: \1\)$/m,
    );
    expect(run.stdout).toContain('config.yaml is valid');
    expect(run.stdout).toContain('.env: 1 variables loaded');
    expect(run.stdout).toContain('set: DEEPSEEK_API_KEY (.env)');
    // A loopback DeepSeek URL gets the SPEC §5 local fallback row.
    expect(run.stdout).toContain('chat_completions · deepseek · deepseek-v4-flash');
    expect(run.stdout).toMatch(/table row local-fallback, carriers reasoning_content, reasoning/);
    expect(run.stdout).toMatch(/^ok {4}verdicts {2}none learned$/m);
    expect(run.stdout).toMatch(/^ok {4}probe {5}answered in \d+ ms/m);
    expect(run.stdout.endsWith('healthy\n')).toBe(true);
    expect(emulator.requests).toHaveLength(2);
  });

  it('unhealthy: a damaged state.db, an invalid config and a failing probe each fail in one line; exit 1', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek', faults: [{ kind: 'status', status: 500 }] });
    const sandbox = e2e.sandbox({ config: `provider: deepseek\nbase_url: ${emulator.baseUrl}\n` });
    writeFileSync(join(sandbox.home, 'state.db'), 'this is not a database, just text long enough to be read\n');
    const probe = await runHermes(['doctor', '--probe'], sandbox);
    expect(probe.code).toBe(1);
    expect(probe.stderr).toBe('');
    expect(probe.stdout).toMatch(/^FAIL {2}state\.db {2}.*state\.db: file is not a database$/m);
    expect(probe.stdout).toMatch(/^FAIL {2}probe {5}HTTP 500: /m);
    expect(probe.stdout).toContain('deepseek-v4-flash'); // the provider's default model
    expect(probe.stdout.endsWith('2 checks failed\n')).toBe(true);

    writeFileSync(join(sandbox.home, 'config.yaml'), 'provider: deepseek\nreasoning: {effort: extreme}\n');
    const config = await runHermes(['doctor'], sandbox);
    expect(config.code).toBe(1);
    expect(config.stdout).toMatch(/^FAIL {2}config {4}.*config\.yaml: reasoning\.effort: Invalid option/m);
    expect(config.stdout).not.toContain('    at ');
  });

  it('unhealthy: a remote route without its key names the variable', async () => {
    const sandbox = e2e.sandbox({ config: 'provider: anthropic\n' });
    const run = await runHermes(['doctor'], sandbox, { ANTHROPIC_API_KEY: '' });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('anthropic_messages · anthropic · claude-opus-4-8 · https://api.anthropic.com');
    expect(run.stdout).toContain('no API key: set ANTHROPIC_API_KEY (environment or $HERMES_HOME/.env)');
  });
});
