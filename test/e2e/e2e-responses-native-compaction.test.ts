import { describe, expect, it } from 'vitest';
import type { ResponsesEmulator } from '../../src/emulators/responses/responses-emulator.js';
import { chatJson, readLog, routeArgs, runHermes, showSession, storedAssistants, useE2e } from '../support/e2e.js';

/**
 * SPEC §24.7 through the real `hermes` binary: `gpt-5.6` on `api.openai.com` (the bytes go to the
 * Responses emulator through `HERMES_CONNECT_TO`) is sent `context_management` with N = local
 * trigger − 8,192; the compaction item it gets back is stored with its issuer stamp and the next
 * request starts with that checkpoint. A deployment refusing the parameter gets one retry
 * without it, and the route stays off for the session.
 */

const e2e = useE2e();
const OPENAI = 'https://api.openai.com';
/**
 * context_window 11,000 × the default threshold 0.8 = an 8,800-token local trigger, so N = 608:
 * the first request (system prompt and tools, ~1,200 tokens) passes N but not the local trigger.
 */
const CONFIG = 'compaction:\n  context_window: 11000\n';
const N = 8800 - 8192;

type Item = Record<string, unknown>;

function bodyOf(emulator: ResponsesEmulator, index: number): Item {
  return emulator.requests[index]?.body as Item;
}

function setup(emulator: ResponsesEmulator) {
  const env = { HERMES_CONNECT_TO: `${OPENAI}=${new URL(emulator.baseUrl).origin}` };
  const route = routeArgs('openai', 'gpt-5.6', `${OPENAI}/v1`, 'x', 'codex_responses');
  return { env, route };
}

describe('SPEC §24.7: native compaction on gpt-5.6 at api.openai.com', () => {
  it('sends context_management with N, stores the compaction item, replays it next turn', async () => {
    const emulator = await e2e.responses();
    const sandbox = e2e.sandbox({ config: CONFIG });
    const { env, route } = setup(emulator);
    const first = await chatJson(sandbox, ['-q', 'hello', ...route], env);
    expect(emulator.requests.map((request) => request.status)).toEqual([200]);
    expect(bodyOf(emulator, 0)['context_management']).toEqual([{ type: 'compaction', compact_threshold: N }]);

    const [stored] = await storedAssistants(sandbox.home, first.session_id);
    const checkpoint = stored?.codex_reasoning_items?.[0] as Item;
    expect(checkpoint).toMatchObject({ type: 'compaction', _issuer_kind: `other:${OPENAI}/v1` });
    expect(String(checkpoint['id'])).toMatch(/^cmp_/);

    await chatJson(sandbox, ['--resume', first.session_id, '-q', 'thanks', ...route], env);
    expect(emulator.requests.map((request) => request.status)).toEqual([200, 200]);
    const input = bodyOf(emulator, 1)['input'] as Item[];
    expect(input[0]).toEqual({ type: 'compaction', encrypted_content: checkpoint['encrypted_content'] });
    // The checkpoint stands for what preceded it: the first question is not sent again.
    expect(input.filter((item) => item['role'] === 'user')).toEqual([{ role: 'user', content: 'thanks' }]);
    expect(bodyOf(emulator, 1)['context_management']).toEqual([{ type: 'compaction', compact_threshold: N }]);

    const explain = await runHermes(['replay', 'preview', '--session', first.session_id, '--explain'], sandbox, env);
    expect(explain.code).toBe(0);
    expect(explain.stdout).toContain('newest compaction checkpoint');

    // An ineligible route of the same issuer: checkpoints stay home, with a decision each.
    const other = routeArgs('openai', 'gpt-5.4', `${OPENAI}/v1`, 'x', 'codex_responses');
    const dropped = await runHermes(
      ['replay', 'preview', '--session', first.session_id, '--model', 'gpt-5.4', '--explain'],
      sandbox,
      env,
    );
    expect(dropped.stdout).toContain('native compaction not on for this route (SPEC §24.7)');
    expect(dropped.stdout).not.toContain('newest compaction checkpoint');
    await chatJson(sandbox, ['--resume', first.session_id, '-q', 'and now?', ...other], env);
    expect(emulator.requests.map((request) => request.status)).toEqual([200, 200, 200]);
    const plain = bodyOf(emulator, 2);
    expect(plain['context_management']).toBeUndefined();
    const items = plain['input'] as Item[];
    expect(items.filter((item) => item['type'] === 'compaction')).toEqual([]);
    expect(items.filter((item) => item['role'] === 'user').map((item) => item['content'])).toEqual([
      'hello',
      'thanks',
      'and now?',
    ]);
  });

  it('a 400 naming context_management: one retry without it, then off for the route', async () => {
    const emulator = await e2e.responses({ rejectContextManagement: true });
    const sandbox = e2e.sandbox({ config: CONFIG });
    const { env, route } = setup(emulator);
    const first = await chatJson(sandbox, ['-q', 'hello', ...route], env);
    expect(emulator.requests.map((request) => request.status)).toEqual([400, 200]);
    expect(bodyOf(emulator, 0)['context_management']).toBeDefined();
    expect(bodyOf(emulator, 1)['context_management']).toBeUndefined();
    const shown = await showSession(sandbox, first.session_id, env);
    expect(shown.model_config['responses_native_compaction_off']).toEqual([`openai|api.openai.com|gpt-5.6`]);
    expect(readLog(sandbox.home)).toContain('native-compaction-off');

    await chatJson(sandbox, ['--resume', first.session_id, '-q', 'thanks', ...route], env);
    expect(emulator.requests.map((request) => request.status)).toEqual([400, 200, 200]);
    expect(bodyOf(emulator, 2)['context_management']).toBeUndefined();
    // replay preview shows the body the next turn sends: without it, too.
    const preview = await runHermes(['replay', 'preview', '--session', first.session_id, '--json'], sandbox, env);
    expect(preview.code, preview.stderr).toBe(0);
    expect(JSON.parse(preview.stdout)).not.toHaveProperty('context_management');
  });
});
