import { describe, expect, it } from 'vitest';
import { routeArgs, runHermes, useE2e } from '../support/e2e.js';

/**
 * `hermes chat` enforces config.yaml `timeouts` on every provider request: a provider that only
 * sends keep-alive comments or never answers fails within the configured limit, after the
 * retries, with one line naming the limit; a bad limit is a usage error naming the key.
 */

const e2e = useE2e();

describe('provider time limits from config.yaml', () => {
  it('a keep-alive-only provider fails on the idle limit, retried, in one line; the question is kept', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    for (let i = 0; i < 3; i++) emulator.addFault({ kind: 'keep-alive-only', intervalMs: 100 });
    const sandbox = e2e.sandbox({ config: 'timeouts:\n  idle: 0.5\n' });
    const run = await runHermes(
      ['chat', '-q', 'hello', ...routeArgs('deepseek', 'deepseek-v4-flash', emulator.baseUrl)],
      sandbox,
    );
    expect(run.code).not.toBe(0);
    const lines = run.stderr.trim().split('\n');
    expect(lines.at(-1)).toMatch(
      /the stream sent no data within the idle timeout \(0\.5 s\); raise timeouts\.idle in config\.yaml/,
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
    // The transport's attempts each reached the provider.
    expect(emulator.requests.length).toBeGreaterThanOrEqual(2);
  });

  it('a provider that never sends headers fails on first_byte', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    for (let i = 0; i < 3; i++) emulator.addFault({ kind: 'stall-before-headers' });
    const sandbox = e2e.sandbox({ config: 'timeouts:\n  first_byte: 0.4\n' });
    const run = await runHermes(
      ['chat', '-q', 'hello', ...routeArgs('deepseek', 'deepseek-v4-flash', emulator.baseUrl)],
      sandbox,
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/no response headers arrived within the first_byte timeout \(0\.4 s\)/);
  });

  it('a limit that is not a positive number of seconds is a usage error naming the key', async () => {
    const sandbox = e2e.sandbox({ config: 'timeouts:\n  idle: -1\n' });
    const run = await runHermes(['chat', '-q', 'hello'], sandbox);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('timeouts.idle');
  });
});
