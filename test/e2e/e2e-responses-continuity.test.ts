import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ChatJson, parseJson, runHermes, showSession, useE2e, withStateDb } from '../support/e2e.js';

/**
 * (OpenAI Responses, SPEC §12, §23.2; WIRE.md §5.4–§5.5): the real `hermes`
 * binary against the Responses emulator over loopback — a tool loop with reasoning, `--resume`,
 * zero 4xx, every encrypted reasoning item back verbatim, without its id, right before the item it
 * preceded; a session moved between two issuers never sends a foreign blob; a tampered blob
 * triggers the `invalid_encrypted_content` kill switch once, scoped and logged; `replay preview
 * --api codex_responses` prints the body the next turn sends.
 */

const e2e = useE2e();

type Json = Record<string, unknown>;
interface StoredMessage extends Json {
  role: string;
  content?: string | null;
  tool_calls?: { id: string; call_id?: string; function: { name: string; arguments: string } }[];
  codex_reasoning_items?: Json[];
  codex_message_items?: Json[];
}
interface Shown {
  model_config: Json;
  messages: StoredMessage[];
}

const MODEL = 'gpt-5.4';

/** The issuer kind includes the base URL (SPEC §12), so one session keeps one URL per issuer. */
function route(baseUrl: string): string[] {
  return ['--provider', 'openai-responses', '--api', 'codex_responses', '--model', MODEL, '--base-url', baseUrl];
}

function chat(sessionId: string | null, query: string, baseUrl: string): string[] {
  const resume = sessionId === null ? [] : ['--resume', sessionId];
  return ['chat', ...resume, '-q', query, '--json', ...route(baseUrl), '--api-key', 'x'];
}

function assistants(shown: Shown): StoredMessage[] {
  return shown.messages.filter((message) => message.role === 'assistant');
}

/** A stored reasoning item as the wire must carry it: verbatim minus `id` and private `_…` keys (SPEC §12). */
function wireItem(item: Json): Json {
  return Object.fromEntries(Object.entries(item).filter(([key]) => key !== 'id' && !key.startsWith('_')));
}

function reasoningItem(message: StoredMessage | undefined): Json {
  const item = message?.codex_reasoning_items?.[0];
  expect(item?.['type']).toBe('reasoning');
  return item!;
}

function blobsOf(messages: StoredMessage[]): string[] {
  return messages.flatMap((message) =>
    (message.codex_reasoning_items ?? [])
      .map((item) => item['encrypted_content'])
      .filter((blob) => typeof blob === 'string'),
  ) as string[];
}

function inputOf(body: unknown): Json[] {
  return (body as { input: Json[] }).input;
}

describe('hermes chat against the Responses emulator (SPEC §12)', () => {
  it('tool loop with reasoning, then --resume: encrypted items back verbatim, in place, without ids, zero 4xx', async () => {
    const emulator = await e2e.responses({ issuer: 'openai' });
    const sandbox = e2e.sandbox();
    const first = parseJson<ChatJson>(
      await runHermes(chat(null, 'read the file notes.txt', emulator.baseUrl), sandbox),
    );
    expect(first.tool_calls.map((call) => call.name)).toEqual(['read_file']);
    expect(first.answer).toContain('Reasoning continuity: intact (1/1).');
    const resumed = parseJson<ChatJson>(await runHermes(chat(first.session_id, 'thanks', emulator.baseUrl), sandbox));
    // The emulator reads each turn's reasoning back only out of a verified blob: 2/2 intact.
    expect(resumed.answer).toContain('Reasoning continuity: intact (2/2).');
    expect(emulator.requests.map((request) => request.status)).toEqual([200, 200, 200]);

    const [toolTurn, answerTurn] = assistants(await showSession<Shown>(sandbox, first.session_id));
    const call = toolTurn?.tool_calls?.[0];
    const messageItem = answerTurn?.codex_message_items?.at(-1);
    const functionCall = {
      type: 'function_call',
      call_id: call?.call_id,
      name: 'read_file',
      arguments: call?.function.arguments,
    };
    const functionOutput = { type: 'function_call_output', call_id: call?.call_id, output: 'alpha beta\n' };
    // Inside the tool loop: the reasoning item right before the call it preceded.
    expect(inputOf(emulator.requests[1]?.body)).toEqual([
      { role: 'user', content: 'read the file notes.txt' },
      wireItem(reasoningItem(toolTurn)),
      functionCall,
      functionOutput,
    ]);
    // After --resume: each item before its follower; the message item keeps its id and phase (SPEC §12).
    const afterResume = emulator.requests[2]!;
    expect(inputOf(afterResume.body)).toEqual([
      { role: 'user', content: 'read the file notes.txt' },
      wireItem(reasoningItem(toolTurn)),
      functionCall,
      functionOutput,
      wireItem(reasoningItem(answerTurn)),
      {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: answerTurn?.content }],
        id: messageItem?.['id'],
        phase: messageItem?.['phase'],
      },
      { role: 'user', content: 'thanks' },
    ]);
    // Verbatim on the bytes; no reasoning id and no private stamp ever leaves (store:false would 404 an id).
    for (const blob of blobsOf([toolTurn!, answerTurn!])) expect(afterResume.raw).toContain(JSON.stringify(blob));
    expect(afterResume.raw).not.toMatch(/"id":"rs_|_issuer_kind|_precedes_call_id/);
    expect(afterResume.body).toMatchObject({ store: false, include: ['reasoning.encrypted_content'] });
    // SPEC §23.3: the request log explains each decision with sizes, never the blobs.
    const logs = await runHermes(['logs', '-n', '1000'], sandbox);
    expect(logs.stdout).toContain('kept (same issuer');
    for (const blob of blobsOf([toolTurn!, answerTurn!])) expect(logs.stdout).not.toContain(blob);
  });

  it('issuer one → issuer two → issuer one: no foreign blob is ever sent, zero 4xx', async () => {
    const one = await e2e.responses({ issuer: 'deployment-one' });
    const two = await e2e.responses({ issuer: 'deployment-two' });
    const sandbox = e2e.sandbox();
    const first = parseJson<ChatJson>(await runHermes(chat(null, 'read the file notes.txt', one.baseUrl), sandbox));
    const blobsOfOne = blobsOf(assistants(await showSession<Shown>(sandbox, first.session_id)));
    expect(blobsOfOne.length).toBe(2);

    // Moved to another issuer: a tool loop there too.
    const moved = parseJson<ChatJson>(
      await runHermes(chat(first.session_id, 'read the file notes.txt', two.baseUrl), sandbox),
    );
    expect(moved.tool_calls.map((call) => call.name)).toEqual(['read_file']);
    expect(two.requests.map((request) => request.status)).toEqual([200, 200]);
    for (const request of two.requests) {
      for (const blob of blobsOfOne) expect(request.raw).not.toContain(blob);
    }
    const afterMove = assistants(await showSession<Shown>(sandbox, first.session_id));
    const blobsOfTwo = blobsOf(afterMove.slice(2));
    expect(blobsOfTwo.length).toBe(2);
    // Within the loop on issuer two, its own item travels, right before its call.
    const ownItem = wireItem(reasoningItem(afterMove[2]));
    const input = inputOf(two.requests[1]?.body);
    const ownCall = afterMove[2]?.tool_calls?.[0]?.call_id;
    expect(
      input[input.findIndex((item) => item['type'] === 'function_call' && item['call_id'] === ownCall) - 1],
    ).toEqual(ownItem);
    expect(input.filter((item) => item['type'] === 'reasoning')).toEqual([ownItem]);

    // Back to issuer one: its own blobs again, issuer two's never.
    const oneBefore = one.requests.length;
    const back = await runHermes(chat(first.session_id, 'thanks', one.baseUrl), sandbox);
    expect(back.code).toBe(0);
    const backRequest = one.requests[oneBefore]!;
    for (const blob of blobsOfOne) expect(backRequest.raw).toContain(JSON.stringify(blob));
    for (const blob of blobsOfTwo) expect(backRequest.raw).not.toContain(blob);
    for (const request of [...one.requests, ...two.requests]) expect(request.status).toBe(200);
  });

  it('GitHub Copilot /responses rotates item ids: the .done copy is replayed (it verifies), no item id is sent (WIRE.md §5.3)', async () => {
    const emulator = await e2e.responses({ issuer: 'github', rotateIds: true });
    const sandbox = e2e.sandbox();
    // The route keeps its real host, so the github_responses issuer rules apply; the bytes go to the emulator.
    const env = { HERMES_CONNECT_TO: `https://api.githubcopilot.com=${new URL(emulator.baseUrl).origin}` };
    const copilot = (sessionId: string | null, query: string) => {
      const resume = sessionId === null ? [] : ['--resume', sessionId];
      return [
        'chat',
        ...resume,
        '-q',
        query,
        '--json',
        '--provider',
        'copilot',
        '--api',
        'codex_responses',
        '--model',
        MODEL,
        '--base-url',
        'https://api.githubcopilot.com/v1',
        '--api-key',
        'gho_x',
      ];
    };
    const first = parseJson<ChatJson>(await runHermes(copilot(null, 'read the file notes.txt'), sandbox, env));
    const resumed = parseJson<ChatJson>(await runHermes(copilot(first.session_id, 'thanks'), sandbox, env));
    // The provisional blob of `output_item.added` never verifies: intact means the `.done` copy was kept.
    expect(resumed.answer).toContain('Reasoning continuity: intact (2/2).');
    expect(emulator.requests.map((request) => request.status)).toEqual([200, 200, 200]);
    const stored = assistants(await showSession<Shown>(sandbox, first.session_id));
    expect(
      stored.flatMap((message) => message.codex_reasoning_items ?? []).map((item) => item['_issuer_kind']),
    ).toEqual(['github_responses', 'github_responses', 'github_responses']);
    const input = inputOf(emulator.requests[2]?.body);
    expect(input.filter((item) => item['type'] === 'reasoning')).toEqual(
      stored.slice(0, 2).map((message) => wireItem(reasoningItem(message))),
    );
    // Copilot rejects the ids it handed out: neither reasoning nor message items carry one.
    expect(input.filter((item) => 'id' in item)).toEqual([]);
  });

  it('kill switch: a tampered stored blob → invalid_encrypted_content once, encrypted replay off for the route (model_config + WARN), one retry succeeds', async () => {
    const emulator = await e2e.responses({ issuer: 'openai' });
    const sandbox = e2e.sandbox();
    const first = parseJson<ChatJson>(
      await runHermes(chat(null, 'read the file notes.txt', emulator.baseUrl), sandbox),
    );

    // Tamper with the first stored blob in state.db, as a key rotation or a corrupted row would.
    const tampered = withStateDb(sandbox.home, (database) => {
      const row = database
        .prepare(
          'SELECT id, codex_reasoning_items FROM messages WHERE session_id = ? AND codex_reasoning_items IS NOT NULL ORDER BY seq LIMIT 1',
        )
        .get(first.session_id) as { id: number; codex_reasoning_items: string };
      const items = JSON.parse(row.codex_reasoning_items) as Json[];
      const original = String(items[0]?.['encrypted_content']);
      const tampered = `${original.slice(0, 40)}${original[40] === 'A' ? 'B' : 'A'}${original.slice(41)}`;
      items[0]!['encrypted_content'] = tampered;
      database.prepare('UPDATE messages SET codex_reasoning_items = ? WHERE id = ?').run(JSON.stringify(items), row.id);
      return tampered;
    });

    const before = emulator.requests.length;
    const resumed = parseJson<ChatJson>(await runHermes(chat(first.session_id, 'thanks', emulator.baseUrl), sandbox));
    expect(resumed.answer).toContain('You said: thanks');
    const attempts = emulator.requests.slice(before);
    // Exactly one rejection, then exactly one retry.
    expect(attempts.map((request) => request.status)).toEqual([400, 200]);
    expect(attempts[0]?.raw).toContain(tampered);
    const retried = inputOf(attempts[1]?.body);
    expect(retried.filter((item) => item['type'] === 'reasoning')).toEqual([]);
    // Output still asks for `include: ["reasoning.encrypted_content"]`; only replay is off.
    expect(JSON.stringify(retried)).not.toContain('encrypted_content');

    const routeKey = `openai-responses|${new URL(emulator.baseUrl).hostname}|${MODEL}`;
    const shown = await showSession<Shown>(sandbox, first.session_id);
    expect(shown.model_config).toEqual({ workspace: sandbox.workspace, responses_encrypted_replay_off: [routeKey] });
    const warnings = await runHermes(['logs', '--level', 'warn', '--session', first.session_id], sandbox);
    const warnLines = warnings.stdout.split('\n').filter((line) => / WARN /.test(line));
    expect(warnLines.length).toBe(1);
    expect(warnLines[0]).toContain(`encrypted reasoning rejected on ${routeKey} (invalid_encrypted_content)`);

    // `replay preview --session` honours the persisted switch: it shows what the next turn sends.
    const preview = await runHermes(['replay', 'preview', '--session', first.session_id, '--json'], sandbox);
    expect(preview.code).toBe(0);
    const previewBody = parseJson<Json & { input: Json[] }>(preview);
    expect(JSON.stringify(previewBody.input)).not.toContain('encrypted_content');

    // The switch persists: the next resume sends no encrypted item and needs no retry.
    const nextBefore = emulator.requests.length;
    const again = await runHermes(chat(first.session_id, 'and again', emulator.baseUrl), sandbox);
    expect(again.code).toBe(0);
    expect(emulator.requests.slice(nextBefore).map((request) => request.status)).toEqual([200]);
    const next = emulator.requests[nextBefore]?.body as Json & { input: Json[] };
    expect(JSON.stringify(next.input)).not.toContain('encrypted_content');
    expect(previewBody).toEqual({ ...next, input: next.input.slice(0, -1) });
  });

  it('replay preview --api codex_responses on an exported session prints the body the next turn sends', async () => {
    const emulator = await e2e.responses({ issuer: 'openai' });
    const sandbox = e2e.sandbox();
    const first = parseJson<ChatJson>(
      await runHermes(chat(null, 'read the file notes.txt', emulator.baseUrl), sandbox),
    );
    const storedBlobs = blobsOf(assistants(await showSession<Shown>(sandbox, first.session_id)));
    expect(storedBlobs.length).toBe(2);
    const exported = await runHermes(['sessions', 'export', first.session_id], sandbox);
    expect(exported.code).toBe(0);
    const historyFile = join(sandbox.workspace, 'history.jsonl');
    writeFileSync(historyFile, exported.stdout);
    const preview = await runHermes(
      ['replay', 'preview', '--history', historyFile, ...route(emulator.baseUrl), '--json'],
      sandbox,
    );
    expect(preview.code).toBe(0);
    const previewBody = parseJson<Json>(preview);

    const before = emulator.requests.length;
    await runHermes(chat(first.session_id, 'next', emulator.baseUrl), sandbox);
    const sent = emulator.requests[before]!;
    expect(sent.status).toBe(200);
    const sentBody = sent.body as Json & { input: Json[] };
    expect(sentBody.input.at(-1)).toEqual({ role: 'user', content: 'next' });
    // The next turn adds its user message and the chat's tools; everything else is the preview.
    const { tools: _tools, ...sentWithoutTools } = sentBody;
    expect(previewBody).toEqual({ ...sentWithoutTools, input: sentBody.input.slice(0, -1) });
    for (const blob of storedBlobs) expect(preview.stdout).toContain(JSON.stringify(blob));
  });
});
