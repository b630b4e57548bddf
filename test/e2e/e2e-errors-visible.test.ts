import { describe, expect, it } from 'vitest';
import { readLog, runHermes, useE2e } from '../support/e2e.js';

/**
 * Failures are visible (SPEC §20 logs): every failed provider request is logged with its status,
 * the provider's text, the route key and the request id, in `errors.log` and `agent.log`.
 */

const e2e = useE2e();

describe('errors are visible', () => {
  it('a provider 500 (retried, then given up) is in errors.log and agent.log, never the key', async () => {
    const emulator = await e2e.chat({
      persona: 'deepseek',
      faults: [
        { kind: 'status', status: 500 },
        { kind: 'status', status: 500 },
        { kind: 'status', status: 500 },
      ],
    });
    const sandbox = e2e.sandbox();
    const route = ['--provider', 'deepseek', '--model', 'deepseek-v4-flash', '--base-url', emulator.baseUrl];
    const run = await runHermes(['chat', '-q', 'hello', ...route, '--api-key', 'sk-secret-500'], sandbox);
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const routeKey = `deepseek|127.0.0.1|deepseek-v4-flash`;
    const errors = readLog(sandbox.home, 'errors.log');
    const failed = errors
      .split('\n')
      .filter((line) => line.includes('"level":50'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ routeKey, status: 500, attempt: 1 });
    expect(String(failed[0]?.['msg'])).toMatch(
      new RegExp(`^provider request failed: ${routeKey.replaceAll('|', '\\|')} HTTP 500`),
    );
    expect(String(failed[0]?.['error']).length).toBeGreaterThan(0);
    expect(errors).toContain('retrying (attempt 2)');
    expect(readLog(sandbox.home, 'agent.log')).toContain(`provider request failed: ${routeKey} HTTP 500`);
    expect(errors + readLog(sandbox.home, 'agent.log')).not.toContain('sk-secret-500');
    const shown = await runHermes(['logs', '--level', 'error'], sandbox);
    expect(shown.stdout).toContain('provider request failed');
  });
});
