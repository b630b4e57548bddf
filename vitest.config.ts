import { availableParallelism, loadavg } from 'node:os';
import { defineConfig } from 'vitest/config';

/** The test and hook timeout on a quiet machine; the slowest test takes about a third of it. */
const BASE_TIMEOUT_MS = 30_000;

/**
 * How much slower than a quiet machine this run may be: `HERMES_TEST_TIMEOUT_SCALE` when set (a
 * positive number), otherwise the one-minute load average per core, rounded up, between 1 and 8.
 * Timeouts are there to stop a hung test, never to measure speed, so a busy machine (other builds,
 * several suites at once) gets proportionally more time instead of failing. The value is exported
 * to the test processes, where `scaledTimeout` (test/support/timeouts.ts) applies it to the
 * timeouts tests set themselves (child processes, waits).
 */
function timeoutScale(): number {
  const configured = Number(process.env['HERMES_TEST_TIMEOUT_SCALE']);
  if (Number.isFinite(configured) && configured > 0) return configured;
  const loadPerCore = (loadavg()[0] ?? 0) / availableParallelism();
  return Math.min(8, Math.max(1, Math.ceil(loadPerCore)));
}

const scale = timeoutScale();
process.env['HERMES_TEST_TIMEOUT_SCALE'] = String(scale);

/**
 * The AWS SDK prints its Node-version notice (NodeVersionSupportWarning, Node < 22) once per
 * process that makes a Bedrock client; the tests make them in every worker that touches Bedrock,
 * so `npm test` on Node 20 printed it once per such file. The SDK's documented opt-out turns it
 * off for the test processes, as `src/cli.ts` does for `hermes`; the `hermes` children the
 * end-to-end tests start do not inherit it (test/support/e2e.ts), so they still prove the CLI
 * sets it itself (test/e2e/e2e-node-warnings.test.ts).
 */
const AWS_NODE_WARNING_OPT_OUT = 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    env: { [AWS_NODE_WARNING_OPT_OUT]: 'true' },
    testTimeout: BASE_TIMEOUT_MS * scale,
    hookTimeout: BASE_TIMEOUT_MS * scale,
    pool: 'forks',
    // The slow files run `hermes` as child processes and wait on them, so one worker leaves a
    // core idle; two workers keep both cores of a 2-core machine busy (vitest's default is
    // cores − 1).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
