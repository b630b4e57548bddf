/**
 * `hermes chat -q` as scripts use it: the `--json` answer reports the reasoning of every request
 * of the turn (a tool loop thinks before each call), and Ctrl-C (SIGINT) during the turn stops it
 * with exit status 130, as shells expect of an interrupted command.
 */
import { describe, expect, it } from 'vitest';
import { chatJson, collectRun, routeArgs, spawnHermes, useE2e } from '../support/e2e.js';

const e2e = useE2e();

describe('hermes chat -q', () => {
  it('--json reasoning holds every request of the tool loop, in order', async () => {
    const { emulator, sandbox, route } = await e2e.chatRoute({ persona: 'deepseek' }, 'deepseek', 'deepseek-v4-flash');
    const answer = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route]);
    expect(emulator.requests).toHaveLength(2);
    expect(answer.tool_calls.map((call) => call.name)).toEqual(['read_file']);
    const reasoning = answer.reasoning ?? '';
    const first = reasoning.indexOf('Turn 1: to answer "read the file notes.txt" I should call read_file.');
    const second = reasoning.indexOf('Turn 2: the tool answered');
    expect(first).toBe(0);
    expect(second).toBeGreaterThan(first);
  });

  it('SIGINT while the model is answering exits 130 and says the turn was interrupted', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const gated = await e2e.gated(emulator.baseUrl);
    const sandbox = e2e.sandbox();
    // The gate holds the request: the turn is in flight, waiting for the provider, when SIGINT comes.
    gated.close();
    const child = spawnHermes(
      ['chat', '-q', 'hello', ...routeArgs('deepseek', 'deepseek-v4-flash', gated.baseUrl)],
      sandbox,
    );
    const done = collectRun(child);
    await gated.whenReceived(1);
    child.kill('SIGINT');
    const run = await done;
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toContain('hermes: turn interrupted; nothing partial was stored');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
