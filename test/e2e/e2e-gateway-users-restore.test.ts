import { describe, expect, it } from 'vitest';
import { parseJson, routeArgs, runHermes, useE2e, type Sandbox } from '../support/e2e.js';

/**
 * Restoration never crosses gateway users (SPEC §26.1, §26.10), through the real CLI: a front
 * door gives a client back the reasoning it dropped from the session it names, from a session
 * whose history it forked, or (the Gemini door, no session header) from the conversation its
 * history matches. Each works for the user who owns the session; another user presenting the
 * same session id, the same history under a new id, or the same Gemini history gets a new,
 * separate session of its own and nothing restored. Run on a gateway without a token (every
 * caller's fingerprints would otherwise be alike) and on one with a token.
 */

const e2e = useE2e();
const MODEL = 'deepseek-v4-flash';
const TOKEN = 'restore-operator-token-01';
/** What the emulator says of a history whose one earlier turn came without its reasoning. */
const NOTHING_RESTORED = 'Reasoning continuity: broken (0 intact, 0 altered, 1 missing of 1).';

type Json = Record<string, unknown>;
type Block = Json & { type: string; text?: string };
type Part = Json & { text?: string; thought?: boolean; thoughtSignature?: string };

interface Reply {
  status: number;
  session: string | null;
  body: Json;
}

async function post(
  url: string,
  path: string,
  key: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    session: response.headers.get('x-hermes-session-id'),
    body: (await response.json()) as Json,
  };
}

async function addUser(sandbox: Sandbox, name: string): Promise<string> {
  const run = await runHermes(['gateway', 'users', 'add', name, '--json'], sandbox);
  expect(run.code, run.stderr).toBe(0);
  return parseJson<{ key: string }>(run).key;
}

/** A Messages answer's text. */
function messagesText(reply: Reply): string {
  const content = (reply.body['content'] ?? []) as Block[];
  return content.map((block) => block.text ?? '').join('');
}

/** A Gemini answer's text (thought parts left out). */
function geminiText(reply: Reply): string {
  const candidates = (reply.body['candidates'] ?? []) as { content: { parts: Part[] } }[];
  return (candidates[0]?.content.parts ?? [])
    .filter((part) => part.thought !== true)
    .map((part) => part.text ?? '')
    .join('');
}

/** Every decision the gateway recorded for a session's requests, as text (the inspector, read by the operator). */
async function decisionsOf(url: string, operator: string, sessionId: string): Promise<string> {
  const response = await fetch(`${url}/v1/sessions/${encodeURIComponent(sessionId)}/requests`, {
    headers: { authorization: `Bearer ${operator}` },
  });
  expect(response.status).toBe(200);
  return JSON.stringify(((await response.json()) as { data: { decisions: unknown[] }[] }).data);
}

async function sessionIds(url: string, key: string): Promise<string[]> {
  const response = await fetch(`${url}/v1/sessions`, { headers: { authorization: `Bearer ${key}` } });
  return ((await response.json()) as { data: { id: string }[] }).data.map((session) => session.id).sort();
}

describe.each([
  ['without a token', false],
  ['with a token', true],
])('a gateway %s: restoration stays within one user', (_name, withToken) => {
  it('session header, fork and Gemini history: the owner gets its reasoning back, another user a new session and nothing restored', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const sandbox = e2e.sandbox();
    const alice = await addUser(sandbox, 'alice');
    const bob = await addUser(sandbox, 'bob');
    const gateway = await e2e.gateway(
      [...routeArgs('deepseek', MODEL, emulator.baseUrl), ...(withToken ? ['--token', TOKEN] : [])],
      sandbox,
    );
    const url = gateway.url;
    const operator = withToken ? TOKEN : 'anyone';

    // Messages door, session named by header: Alice's first turn, then her history with the
    // thinking block dropped (as Claude Code drops it), restored from her session.
    const question = { role: 'user', content: 'read the file notes.txt' };
    const messages = (history: unknown[]) => ({ model: MODEL, max_tokens: 1000, messages: history });
    const named = { 'x-claude-code-session-id': 'conv-1' };
    const first = await post(url, '/v1/messages', alice, messages([question]), named);
    expect(first.status).toBe(200);
    expect(first.session).toBe('alice/conv-1');
    const answered = ((first.body['content'] ?? []) as Block[]).filter((block) => block.type !== 'thinking');
    expect(((first.body['content'] ?? []) as Block[]).some((block) => block.type === 'thinking')).toBe(true);
    const history = [question, { role: 'assistant', content: answered }, { role: 'user', content: 'thanks' }];
    const own = await post(url, '/v1/messages', alice, messages(history), named);
    expect(own.status).toBe(200);
    expect(messagesText(own)).toContain('Reasoning continuity: intact (1/1).');
    expect(await decisionsOf(url, operator, 'alice/conv-1')).toContain('restored from session');

    // Bob names the same session id and presents the same history: his own new session, nothing restored.
    const sameId = await post(url, '/v1/messages', bob, messages(history), named);
    expect(sameId.status).toBe(200);
    expect(sameId.session).toBe('bob/conv-1');
    expect(messagesText(sameId)).toContain(NOTHING_RESTORED);
    expect(await decisionsOf(url, operator, 'bob/conv-1')).not.toContain('restored');

    // A fork: the same history under a new session id. Alice's restores from her session; Bob's
    // finds nothing (the conversation index is per user), and neither touches the other's session.
    const aliceFork = await post(url, '/v1/messages', alice, messages(history), { 'x-claude-code-session-id': 'fork' });
    expect(aliceFork.session).toBe('alice/fork');
    expect(messagesText(aliceFork)).toContain('Reasoning continuity: intact (1/1).');
    expect(await decisionsOf(url, operator, 'alice/fork')).toContain('restored from session alice/conv-1');
    const bobFork = await post(url, '/v1/messages', bob, messages(history), { 'x-claude-code-session-id': 'fork-b' });
    expect(bobFork.status).toBe(200);
    expect(bobFork.session).toBe('bob/fork-b');
    expect(messagesText(bobFork)).toContain(NOTHING_RESTORED);
    expect(await decisionsOf(url, operator, 'bob/fork-b')).not.toContain('restored');

    // Gemini door (no session header: the history names the conversation). Alice resumes as
    // Gemini CLI does (thought parts and text signatures dropped) and is found; Bob is not.
    const path = `/v1beta/models/${MODEL}:generateContent`;
    const ask = { role: 'user', parts: [{ text: 'hello gemini door' }] };
    const opened = await post(url, path, alice, { contents: [ask] });
    expect(opened.status).toBe(200);
    const aliceGemini = opened.session as string;
    expect(aliceGemini).toMatch(/^alice\//);
    const candidates = (opened.body['candidates'] ?? []) as { content: { parts: Part[] } }[];
    const visible = (candidates[0]?.content.parts ?? [])
      .filter((part) => part.thought !== true)
      .map((part) => ({ text: part.text ?? '' }));
    const resumed = { contents: [ask, { role: 'model', parts: visible }, { role: 'user', parts: [{ text: 'more' }] }] };
    const found = await post(url, path, alice, resumed);
    expect(found.session).toBe(aliceGemini);
    expect(geminiText(found)).toContain('Reasoning continuity: intact (1/1).');
    const stranger = await post(url, path, bob, resumed);
    expect(stranger.status).toBe(200);
    expect(stranger.session).toMatch(/^bob\//);
    expect(geminiText(stranger)).toContain(NOTHING_RESTORED);
    expect(await decisionsOf(url, operator, stranger.session as string)).not.toContain('restored');

    // Each sees its own sessions only; Alice's hold exactly her turns.
    expect(await sessionIds(url, alice)).toEqual(['alice/conv-1', 'alice/fork', aliceGemini].sort());
    expect(await sessionIds(url, bob)).toEqual(['bob/conv-1', 'bob/fork-b', stranger.session as string].sort());
    const shown = await runHermes(['sessions', 'show', 'alice/conv-1', '--json'], sandbox);
    const assistants = parseJson<{ messages: { role: string }[] }>(shown).messages.filter(
      (message) => message.role === 'assistant',
    );
    expect(assistants).toHaveLength(2);
  }, 120_000);
});
