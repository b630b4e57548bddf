import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson, runHermes, useE2e } from '../support/e2e.js';

const e2e = useE2e();

/** `hermes model`, `hermes config` and `$HERMES_HOME/.env` through the real binary (SPEC §20 CLI surfaces). */
describe('setup commands: model, config, .env', () => {
  it('hermes model lists every provider with its key state (never the value) and sets the default', async () => {
    const sandbox = e2e.sandbox();
    const listed = parseJson<{
      current: { provider: string | null };
      providers: { provider: string; key_env: string | null; key_set: boolean | null; default_model: string | null }[];
    }>(await runHermes(['model', '--json'], sandbox, { DEEPSEEK_API_KEY: 'sk-secret-value', OPENAI_API_KEY: '' }));
    expect(listed.current.provider).toBeNull();
    const deepseek = listed.providers.find((row) => row.provider === 'deepseek');
    expect(deepseek).toMatchObject({ key_env: 'DEEPSEEK_API_KEY', key_set: true, default_model: 'deepseek-v4-flash' });
    expect(listed.providers.find((row) => row.provider === 'openai')?.key_set).toBe(false);
    // Every provider but `custom` (a server only the user can name) has a default model.
    expect(listed.providers.filter((row) => row.default_model === null).map((row) => row.provider)).toEqual(['custom']);
    const plain = await runHermes(['model'], sandbox, { DEEPSEEK_API_KEY: 'sk-secret-value' });
    expect(plain.stdout).toContain('DEEPSEEK_API_KEY set');
    expect(plain.stdout).not.toContain('sk-secret-value');

    const set = await runHermes(['model', 'set', 'ollama:gpt-oss:20b'], sandbox);
    expect(set.code).toBe(0);
    expect(readFileSync(join(sandbox.home, 'config.yaml'), 'utf8')).toBe('provider: ollama\nmodel: gpt-oss:20b\n');
    const unknown = await runHermes(['model', 'set', 'nosuch:thing'], sandbox);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^hermes: unknown provider "nosuch" \(known: openai, /);
    expect(unknown.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect((await runHermes(['model', 'set', '--help'], sandbox)).stdout).toContain('PROVIDER:MODEL');
  });

  it('hermes config set validates with the schema in one line and leaves the file as it was', async () => {
    const sandbox = e2e.sandbox();
    const path = (await runHermes(['config', 'path'], sandbox)).stdout.trim();
    expect(path).toBe(join(sandbox.home, 'config.yaml'));
    writeFileSync(path, '# my settings\nprovider: deepseek\n');
    expect((await runHermes(['config', 'set', 'reasoning.effort', 'high'], sandbox)).code).toBe(0);
    expect((await runHermes(['config', 'set', 'compaction.threshold', '0.5'], sandbox)).code).toBe(0);
    const before = readFileSync(path, 'utf8');
    expect(before).toBe(
      '# my settings\nprovider: deepseek\nreasoning:\n  effort: high\ncompaction:\n  threshold: 0.5\n',
    );
    const bad = await runHermes(['config', 'set', 'reasoning.effort', 'extreme'], sandbox);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^hermes: .*config\.yaml: reasoning\.effort: Invalid option/);
    expect(bad.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    const typo = await runHermes(['config', 'set', 'compaction.treshold', '0.5'], sandbox);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('unknown key "treshold"');
    expect(readFileSync(path, 'utf8')).toBe(before);
    const shown = parseJson<{ provider: string; reasoning: { effort: string }; compaction: { threshold: number } }>(
      await runHermes(['config', 'show', '--json'], sandbox),
    );
    expect(shown).toMatchObject({
      provider: 'deepseek',
      reasoning: { effort: 'high' },
      compaction: { threshold: 0.5 },
    });
    expect((await runHermes(['config', 'unset', 'compaction'], sandbox)).code).toBe(0);
    expect(readFileSync(path, 'utf8')).not.toContain('compaction');
  });

  it('hermes config set provider takes a known provider or emulator persona; an unknown one only with base_url', async () => {
    const sandbox = e2e.sandbox();
    const path = join(sandbox.home, 'config.yaml');
    writeFileSync(path, 'provider: deepseek\n');
    const unknown = await runHermes(['config', 'set', 'provider', 'nosuch'], sandbox);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /^hermes: unknown provider "nosuch" \(known: .*deepseek.*\); for an OpenAI-compatible server the list does not know, set base_url first\n$/,
    );
    const persona = await runHermes(['config', 'set', 'provider', 'emulator:nosuch'], sandbox);
    expect(persona.code).toBe(2);
    expect(persona.stderr).toMatch(/^hermes: unknown emulator persona "nosuch"/);
    expect(readFileSync(path, 'utf8')).toBe('provider: deepseek\n');
    expect((await runHermes(['config', 'set', 'provider', 'emulator:deepseek'], sandbox)).code).toBe(0);
    expect((await runHermes(['config', 'set', 'provider', 'openrouter'], sandbox)).code).toBe(0);
    // A server the table does not know is fine once its base URL is set.
    expect((await runHermes(['config', 'set', 'base_url', 'http://127.0.0.1:8080/v1'], sandbox)).code).toBe(0);
    expect((await runHermes(['config', 'set', 'provider', 'my-vllm'], sandbox)).code).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe('provider: my-vllm\nbase_url: http://127.0.0.1:8080/v1\n');
  });

  it('--provider deepseek alone uses its default model and the key from $HERMES_HOME/.env; the environment wins', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const sandbox = e2e.sandbox();
    writeFileSync(join(sandbox.home, '.env'), '# keys\nDEEPSEEK_API_KEY=from-dotenv\nHERMES_TEST_MARKER="x"\n');
    // The real DeepSeek origin is mapped onto the emulator, so the route needs a key like production
    // (the test environment has no DEEPSEEK_API_KEY: `runHermes` passes the parent's environment).
    const env = { HERMES_CONNECT_TO: `https://api.deepseek.com=${new URL(emulator.baseUrl).origin}` };
    const run = await runHermes(['chat', '-q', 'hello', '--provider', 'deepseek', '--json'], sandbox, env);
    expect(run.stderr).not.toContain('no API key');
    expect(run.code).toBe(0);
    expect((emulator.requests[0]?.body as { model: string }).model).toBe('deepseek-v4-flash');
    // Without the file the key is missing: the one-line error names the variable.
    writeFileSync(join(sandbox.home, '.env'), '');
    const missing = await runHermes(['chat', '-q', 'hello', '--provider', 'deepseek'], sandbox, env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      'hermes: no API key for deepseek: set DEEPSEEK_API_KEY or pass --api-key (the key is never stored)\n',
    );
  });
});
