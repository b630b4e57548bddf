import { describe, expect, it } from 'vitest';
import type { ResponsesEmulator } from '../../src/emulators/responses/responses-emulator.js';
import { chatJson, routeArgs, runHermes, storedAssistants, useE2e, withStateDb } from '../support/e2e.js';

/**
 * SPEC §24.4 and §24.5 through the real `hermes` binary against the strict Responses emulator:
 * output-only keys stored with a reasoning item (`status`, `response_id`) never reach the wire
 * (the emulator answers them with OpenAI's `Unknown parameter` 400), and on an Azure OpenAI host
 * a same-issuer item keeps its `rs_` id, as `replay preview --explain` says.
 */

const e2e = useE2e();
const MODEL = 'gpt-5.4';

type Item = Record<string, unknown>;

function inputOf(emulator: ResponsesEmulator, index: number): Item[] {
  return (emulator.requests[index]?.body as { input: Item[] }).input;
}

/** Adds `extra` to every stored reasoning item of a session, as a client that kept output keys would. */
function addToStoredItems(home: string, sessionId: string, extra: Item): void {
  withStateDb(home, (database) => {
    const rows = database
      .prepare(
        'SELECT id, codex_reasoning_items FROM messages WHERE session_id = ? AND codex_reasoning_items IS NOT NULL',
      )
      .all(sessionId) as { id: number; codex_reasoning_items: string }[];
    for (const row of rows) {
      const items = (JSON.parse(row.codex_reasoning_items) as Item[]).map((item) => ({ ...item, ...extra }));
      database.prepare('UPDATE messages SET codex_reasoning_items = ? WHERE id = ?').run(JSON.stringify(items), row.id);
    }
  });
}

describe('SPEC §24.4: a replayed reasoning item carries input-schema keys only', () => {
  it('status and response_id stored with an item are left out; the strict emulator accepts the replay', async () => {
    const emulator = await e2e.responses();
    const sandbox = e2e.sandbox();
    const route = routeArgs('openai-responses', MODEL, emulator.baseUrl, 'x', 'codex_responses');
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route]);
    addToStoredItems(sandbox.home, first.session_id, { status: 'completed', response_id: 'resp_0123' });
    const [stored] = await storedAssistants(sandbox.home, first.session_id);
    const storedItem = stored?.codex_reasoning_items?.[0] as Item;
    expect(storedItem).toMatchObject({ status: 'completed', response_id: 'resp_0123' });

    const before = emulator.requests.length;
    const resumed = await chatJson(sandbox, ['--resume', first.session_id, '-q', 'thanks', ...route]);
    expect(resumed.answer).toContain('Reasoning continuity: intact (2/2).');
    expect(emulator.requests.slice(before).map((request) => request.status)).toEqual([200]);
    const sent = inputOf(emulator, before).filter((item) => item['type'] === 'reasoning');
    expect(sent).toHaveLength(2);
    for (const item of sent) expect(Object.keys(item).sort()).toEqual(['encrypted_content', 'summary', 'type']);
    expect(emulator.requests[before]?.raw).not.toMatch(/"status"|"response_id"|resp_0123/);

    // The same item sent with its stored keys is what OpenAI refuses (WIRE.md §5.5).
    const input = inputOf(emulator, before);
    const index = input.findIndex((item) => item['type'] === 'reasoning');
    const leaked = input.map((item, position) => (position === index ? { ...item, status: 'completed' } : item));
    const refused = await fetch(`${emulator.baseUrl}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...(emulator.requests[before]?.body as Item), input: leaked, stream: false }),
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: Item }).error).toMatchObject({
      message: `Unknown parameter: 'input[${index}].status'.`,
      code: 'unknown_parameter',
    });
  });
});

describe('SPEC §24.5: an Azure OpenAI host keeps a same-issuer rs_ id', () => {
  it('the replayed item carries its id on *.openai.azure.com, and --explain says why', async () => {
    const emulator = await e2e.responses({ issuer: 'azure-resource' });
    const sandbox = e2e.sandbox();
    const azure = 'https://my-resource.openai.azure.com';
    // The route keeps the Azure host, so the host rule applies; the bytes go to the emulator.
    const env = { HERMES_CONNECT_TO: `${azure}=${new URL(emulator.baseUrl).origin}` };
    const route = routeArgs('openai-responses', MODEL, `${azure}/openai/v1`, 'x', 'codex_responses');
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route], env);
    const resumed = await chatJson(sandbox, ['--resume', first.session_id, '-q', 'thanks', ...route], env);
    expect(resumed.answer).toContain('Reasoning continuity: intact (2/2).');
    expect(emulator.requests.map((request) => request.status)).toEqual([200, 200, 200]);

    const stored = await storedAssistants(sandbox.home, first.session_id);
    const ids = stored.slice(0, 2).map((message) => message.codex_reasoning_items?.[0]?.['id']);
    expect(ids.every((id) => typeof id === 'string' && id.startsWith('rs_'))).toBe(true);
    const sent = inputOf(emulator, 2).filter((item) => item['type'] === 'reasoning');
    expect(sent.map((item) => item['id'])).toEqual(ids);
    expect(Object.keys(sent[0] ?? {}).sort()).toEqual(['encrypted_content', 'id', 'summary', 'type']);

    const explain = await runHermes(['replay', 'preview', '--session', first.session_id, '--explain'], sandbox, env);
    expect(explain.code).toBe(0);
    expect(explain.stdout).toContain('same issuer, rs_ id kept (Azure resolves it)');
  });
});
