/**
 * SPEC §24.10 end to end through the real `hermes` binary: a session whose first turn ran on the
 * Responses emulator and whose second runs on the Gemini emulator. `replay preview --explain`
 * lists both dropped reasoning items with their sizes and "foreign origin", no assistant line that
 * carried a carrier is left without a decision, and agent.log's request lines name the native
 * carriers actually sent.
 */
import { describe, expect, it } from 'vitest';
import { chatJson, readLog, runHermes, useE2e } from '../support/e2e.js';

const e2e = useE2e();

describe('SPEC §24.10 every drop explained', () => {
  it('Responses then Gemini: preview --explain lists both dropped reasoning items with sizes and foreign origin', async () => {
    const sandbox = e2e.sandbox();
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', '--provider', 'emulator:responses']);
    const second = await runHermes(
      ['chat', '--resume', first.session_id, '-q', 'thanks', '--json', '--provider', 'emulator:gemini'],
      sandbox,
    );
    expect(second.code, second.stderr).toBe(0);

    const explained = await runHermes(['replay', 'preview', '--session', first.session_id, '--explain'], sandbox);
    expect(explained.code, explained.stderr).toBe(0);
    const drops = explained.stdout.match(/dropped codex_reasoning_items\[0\] \(foreign origin, \d+ B\)/g) ?? [];
    expect(drops).toHaveLength(2);
    // Every assistant line of the table carries at least one decision.
    const assistantLines = explained.stdout.split('\n').filter((line) => /^\d+\s+assistant\s/.test(line));
    expect(assistantLines.length).toBeGreaterThanOrEqual(3);
    for (const line of assistantLines) expect(line).not.toMatch(/assistant\s+-\s*$/);

    // The Responses tool loop's second request sent its encrypted item; the log line says so, and
    // names the emulator the route's bytes went to.
    const log = readLog(sandbox.home);
    expect(log).toMatch(
      /request openai-responses\|api\.openai\.com\|gpt-5\.4 → emulator responses at http:\/\/127\.0\.0\.1:\d+\/v1 attempt 1: reasoning carriers sent: codex_reasoning_items/,
    );
    // A request line never says "none" while one of its decisions kept a carrier.
    for (const line of log.split('\n').filter((entry) => entry.includes('"msg":"request '))) {
      const entry = JSON.parse(line) as { decisions: string[]; msg: string };
      if (entry.decisions.some((decision) => / kept \(/.test(decision))) expect(entry.msg).not.toMatch(/sent: none$/);
    }
  });
});
