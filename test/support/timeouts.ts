/**
 * A timeout a test sets itself (a child process, a wait for a server), multiplied by the scale
 * vitest.config.ts derives from the machine's load (`HERMES_TEST_TIMEOUT_SCALE`), so a busy
 * machine slows a test down instead of failing it. Timeouts stop hung tests; they never measure speed.
 */
export function scaledTimeout(milliseconds: number): number {
  const scale = Number(process.env['HERMES_TEST_TIMEOUT_SCALE']);
  return Number.isFinite(scale) && scale > 0 ? Math.round(milliseconds * scale) : milliseconds;
}
