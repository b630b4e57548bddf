/**
 * SPEC §24.9 through the real `hermes` binary: `hermes sessions branch ID` and interactive
 * `/branch` without a title name the child `<parent title> #N`, numbered across the lineage.
 */
import { describe, expect, it } from 'vitest';
import { parseJson, runHermes, useE2e, chatJson } from '../support/e2e.js';

const e2e = useE2e();

describe('SPEC §24.9 default branch titles', () => {
  it('sessions branch and /branch number the lineage: Plan #2, #3, #4', async () => {
    const sandbox = e2e.sandbox();
    const first = await chatJson(sandbox, ['-q', 'hello', '--provider', 'emulator:deepseek']);
    expect((await runHermes(['sessions', 'rename', first.session_id, 'Plan'], sandbox)).code).toBe(0);
    const branched = parseJson<{ session_id: string; title: string }>(
      await runHermes(['sessions', 'branch', first.session_id, '--json'], sandbox),
    );
    expect(branched.title).toBe('Plan #2');
    const plain = await runHermes(['sessions', 'branch', branched.session_id], sandbox);
    expect(plain.stdout).toMatch(/^Branched to Plan #3: \d{8}-\d{6}-[0-9a-z]{6}\n$/);
    const interactive = await runHermes(
      ['chat', '--resume', first.session_id, '--provider', 'emulator:deepseek'],
      sandbox,
      {},
      '/branch\n/exit\n',
    );
    expect(interactive.code, interactive.stderr).toBe(0);
    expect(interactive.stdout).toMatch(/Branched to Plan #4 \(\d{8}-\d{6}-[0-9a-z]{6}\)/);
  });
});
