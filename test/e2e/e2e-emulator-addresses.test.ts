import { describe, expect, it } from 'vitest';
import { readLog, runHermes, useE2e } from '../support/e2e.js';

/**
 * An emulator persona's route names the real host (`api.deepseek.com`: the replay rules read
 * it), while its bytes go to the emulator on 127.0.0.1. `/model`, the request log line and the
 * gateway inspector's request records name the emulator and its address beside the route.
 */

const e2e = useE2e();

/** The emulator's address the CLI's first line announces. */
function announced(stderr: string): string {
  const match = /offline: using the built-in emulator \(persona \w+, (http:\/\/127\.0\.0\.1:\d+\/v1)\)/.exec(stderr);
  if (!match?.[1]) throw new Error(`no emulator line in: ${stderr}`);
  return match[1];
}

describe('an emulator route names the emulator and its address', () => {
  it('the agent.log request line and /model: emulator deepseek at http://127.0.0.1:PORT/v1', async () => {
    const sandbox = e2e.sandbox();
    const run = await runHermes(['chat', '-q', 'hello', '--provider', 'emulator:deepseek'], sandbox);
    expect(run.code, run.stderr).toBe(0);
    const address = announced(run.stderr);
    expect(readLog(sandbox.home)).toContain(
      `"msg":"request deepseek|api.deepseek.com|deepseek-v4-flash → emulator deepseek at ${address} attempt 1:`,
    );
    const interactive = await runHermes(['chat', '--provider', 'emulator:deepseek'], sandbox, {}, '/model\n/exit\n');
    expect(interactive.code, interactive.stderr).toBe(0);
    expect(interactive.stdout).toContain(
      `chat_completions · deepseek · deepseek-v4-flash · https://api.deepseek.com/v1 · sent to emulator deepseek at ${announced(interactive.stderr)}`,
    );
  });

  it('the gateway inspector: each request record names where the route was sent', async () => {
    const sandbox = e2e.sandbox();
    const gateway = await e2e.gateway(['--provider', 'emulator:deepseek'], sandbox);
    const answer = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'read the file notes.txt' }] }),
    });
    expect(answer.status).toBe(200);
    const sessionId = answer.headers.get('x-hermes-session-id') ?? '';
    await answer.text();
    const records = (await (await fetch(`${gateway.url}/v1/sessions/${sessionId}/requests`)).json()) as {
      data: { route_key: string; route: { header: string; sent_to?: string } }[];
    };
    expect(records.data.length).toBe(2);
    for (const record of records.data) {
      expect(record.route_key).toBe('deepseek|api.deepseek.com|deepseek-v4-flash');
      expect(record.route.sent_to).toMatch(/^emulator deepseek at http:\/\/127\.0\.0\.1:\d+\/v1$/);
    }
    expect(gateway.stderr).toContain(records.data[0]?.route.sent_to?.replace('emulator deepseek at ', '') ?? '-');
  });
});
