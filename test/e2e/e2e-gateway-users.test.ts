import { describe, expect, it } from 'vitest';
import { createTestDatabase, skipWithoutPostgres } from '../storage/postgres-test-database.js';
import { parseJson, routeArgs, runHermes, useE2e, type GatewayProcess, type Sandbox } from '../support/e2e.js';

/**
 * Per-user keys on a two-gateway PostgreSQL fleet (SPEC §26.10), through the real CLI: keys made
 * with `hermes gateway users add` open every door and the inspector on both gateways, each user
 * sees only its own sessions (the same session id from two users is two sessions), the
 * requests-per-minute limit is counted across the fleet (429 with retry-after), a revoked key is
 * refused everywhere (401), and the gateway's token keeps working and sees everything.
 */

const e2e = useE2e();
const TOKEN = 'fleet-operator-token-0001';
const MODEL = 'deepseek-v4-flash';

/** The fields of the answers this test reads. */
interface AnswerBody {
  data?: { id: string }[];
  messages?: { role: string }[];
  error?: { message: string };
  type?: string;
}

interface Answer {
  status: number;
  headers: Headers;
  body: AnswerBody;
}

async function call(
  url: string,
  path: string,
  key: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as AnswerBody };
}

const chatBody = (content: string) => ({ model: MODEL, messages: [{ role: 'user', content }] });
const messagesBody = (content: string) => ({ model: MODEL, max_tokens: 1000, messages: [{ role: 'user', content }] });
const responsesBody = (content: string) => ({ model: MODEL, input: [{ role: 'user', content }] });

async function addUser(sandbox: Sandbox, env: Record<string, string>, name: string, limit?: number): Promise<string> {
  const args = [
    'gateway',
    'users',
    'add',
    name,
    '--json',
    ...(limit === undefined ? [] : ['--requests-per-minute', String(limit)]),
  ];
  const run = await runHermes(args, sandbox, env);
  expect(run.code, run.stderr).toBe(0);
  const added = parseJson<{ name: string; key: string; requests_per_minute: number | null }>(run);
  expect(added).toMatchObject({ name, requests_per_minute: limit ?? null });
  return added.key;
}

describe.skipIf(skipWithoutPostgres())('gateway users on a PostgreSQL fleet', () => {
  it('add, every door on both gateways, own sessions only, one limit across the fleet, revoke everywhere', async () => {
    const database = await createTestDatabase();
    e2e.defer(database.drop);
    const env = { HERMES_DATABASE_URL: database.url };
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const admin = e2e.sandbox();
    const alice = await addUser(admin, env, 'alice', 6);
    const bob = await addUser(admin, env, 'bob');
    expect(alice).toMatch(/^hermes-user-[A-Za-z0-9_-]{43}$/);
    const gateways: GatewayProcess[] = [];
    for (let index = 0; index < 2; index += 1) {
      gateways.push(
        await e2e.gateway([...routeArgs('deepseek', MODEL, emulator.baseUrl), '--token', TOKEN], e2e.sandbox(), env),
      );
    }
    const [a, b] = gateways.map((gateway) => gateway.url) as [string, string];

    // Alice on every door, across both gateways: 3 counted requests.
    const chat = await call(a, '/v1/chat/completions', alice, chatBody('hello from alice'));
    expect(chat.status).toBe(200);
    const chatSession = chat.headers.get('x-hermes-session-id') as string;
    expect(chatSession).toMatch(/^alice\//);
    const messages = await call(b, '/v1/messages', alice, messagesBody('hi'), { 'x-claude-code-session-id': 'conv-1' });
    expect(messages.status).toBe(200);
    expect(messages.headers.get('x-hermes-session-id')).toBe('alice/conv-1');
    const responses = await call(a, '/v1/responses', alice, responsesBody('and more'), { 'session-id': 'conv-1' });
    expect(responses.status).toBe(200);
    // The inspector on either gateway: Alice's sessions only.
    const listed = await call(b, '/v1/sessions', alice);
    expect(listed.body.data!.map((session) => session.id).sort()).toEqual(['alice/conv-1', chatSession].sort());
    const shown = await call(a, '/v1/sessions/conv-1', alice);
    expect(shown.status).toBe(200);
    expect(shown.body.messages!.filter((message) => message.role === 'assistant')).toHaveLength(2);

    // Bob's conv-1 is another session; Alice's are invisible to him, whatever id he names.
    const bobTurn = await call(b, '/v1/messages', bob, messagesBody('bob here'), {
      'x-claude-code-session-id': 'conv-1',
    });
    expect(bobTurn.status).toBe(200);
    expect(bobTurn.headers.get('x-hermes-session-id')).toBe('bob/conv-1');
    expect((await call(a, '/v1/sessions', bob)).body.data!.map((session) => session.id)).toEqual(['bob/conv-1']);
    expect((await call(a, `/v1/sessions/${encodeURIComponent('alice/conv-1')}`, bob)).status).toBe(404);
    expect(
      (await call(b, '/v1/chat/completions', bob, chatBody('x'), { 'x-hermes-session-id': chatSession })).status,
    ).toBe(404);
    const bobConv = await call(b, '/v1/sessions/conv-1', bob);
    expect(bobConv.body.messages!.filter((message) => message.role === 'assistant')).toHaveLength(1);

    // The operator's token sees every session.
    const everything = await call(a, '/v1/sessions', TOKEN);
    expect(everything.body.data).toHaveLength(3);

    // Alice's limit (6 a minute) is one count for the fleet: 3 more, alternating, then 429 on both.
    for (let index = 0; index < 3; index += 1) {
      const gateway = index % 2 === 0 ? b : a;
      expect((await call(gateway, '/v1/chat/completions', alice, chatBody(`more ${index}`))).status).toBe(200);
    }
    for (const gateway of [a, b]) {
      const limited = await call(gateway, '/v1/messages', alice, messagesBody('one too many'));
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(limited.body.error?.message).toContain('over its limit of 6 requests per minute');
    }
    // Reads are not counted; Bob has no limit.
    expect((await call(a, '/v1/sessions', alice)).status).toBe(200);
    expect((await call(a, '/v1/chat/completions', bob, chatBody('bob again'))).status).toBe(200);

    // Revoked on the command line: refused by both gateways at once; Bob and the token unaffected.
    const revoked = await runHermes(['gateway', 'users', 'revoke', 'alice'], admin, env);
    expect(revoked.code, revoked.stderr).toBe(0);
    for (const gateway of [a, b]) {
      const refused = await call(gateway, '/v1/sessions', alice);
      expect(refused.status).toBe(401);
      expect(refused.body.error?.message).toContain('revoked');
      const anthropic = await call(gateway, '/v1/messages', alice, messagesBody('x'));
      expect(anthropic.status).toBe(401);
      expect(anthropic.body.type).toBe('error');
      expect(anthropic.headers.get('x-should-retry')).toBe('false');
    }
    expect((await call(b, '/v1/sessions', bob)).status).toBe(200);
    expect((await call(b, '/v1/sessions', TOKEN)).status).toBe(200);
    const unknown = await call(a, '/v1/sessions', 'hermes-user-not-a-real-key');
    expect(unknown.status).toBe(401);

    const list = parseJson<{ name: string; revoked_at: string | null }[]>(
      await runHermes(['gateway', 'users', 'list', '--json'], admin, env),
    );
    expect(list.map((user) => [user.name, user.revoked_at === null])).toEqual([
      ['alice', false],
      ['bob', true],
    ]);
    // The store holds hashes, never keys.
    const stored = await runHermes(['sessions', 'list', '--json'], admin, env);
    expect(stored.stdout).not.toContain(alice);
  }, 240_000);
});
