import { describe, expect, it } from 'vitest';
import { StorageError } from '../../src/storage/storage-errors.js';
import type { SessionStore } from '../../src/storage/session-store.js';
import { addGatewayUser } from '../../src/gateway/gateway-users.js';
import { handleDropReason } from '../../src/gateway/gateway-metrics.js';
import { useE2e } from '../support/e2e.js';
import { startDeepseekApp } from './gateway-test-helpers.js';

/**
 * The operator's side of the gateway (SPEC §26.10): probes without a token, metrics behind it,
 * and per-user keys through the one access check, in process (`app.request`). The CLI and a
 * PostgreSQL fleet are covered end to end in test/e2e/e2e-gateway-operations.test.ts and
 * e2e-gateway-users.test.ts.
 */

const e2e = useE2e();
const TOKEN = 'operator-token-123456';

function chat(content: string, headers: Record<string, string> = {}) {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'deepseek-v4-flash', messages: [{ role: 'user', content }] }),
  };
}

/** A store whose reads fail as an unreachable database does. */
function failingStore(store: SessionStore): SessionStore {
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key === 'ping') {
        return async () => {
          throw new StorageError(
            'unreachable',
            'cannot reach the session database postgres://db/hermes: connect ECONNREFUSED',
          );
        };
      }
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
}

describe('probes', () => {
  it('answer without the token, in one line; readyz says 503 when the store does not answer', async () => {
    const { app, store } = await startDeepseekApp(e2e.defer, { token: TOKEN });
    for (const path of ['/healthz', '/readyz']) {
      const response = await app.request(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
    }
    expect(await (await app.request('/healthz')).text()).toBe('ok\n');
    expect(await (await app.request('/readyz')).text()).toBe('ready\n');
    const { app: down } = await startDeepseekApp(e2e.defer, { token: TOKEN, store: failingStore(store) });
    const refused = await down.request('/readyz');
    expect(refused.status).toBe(503);
    expect(await refused.text()).toBe(
      'not ready: the session store does not answer: cannot reach the session database postgres://db/hermes: connect ECONNREFUSED\n',
    );
    expect((await down.request('/healthz')).status).toBe(200);
  });
});

describe('metrics', () => {
  it('are behind the token, count requests by door and status and upstream requests by provider', async () => {
    const { app } = await startDeepseekApp(e2e.defer, { token: TOKEN });
    expect((await app.request('/metrics')).status).toBe(401);
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect((await app.request('/v1/chat/completions', chat('hello', auth))).status).toBe(200);
    expect((await app.request('/v1/sessions/nope', { headers: auth })).status).toBe(404);
    expect((await app.request('/no/such/route', { headers: auth })).status).toBe(404);
    const response = await app.request('/metrics', { headers: auth });
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(text).toContain('hermes_gateway_requests_total{door="/v1/chat/completions",method="POST",status="200"} 1');
    expect(text).toContain('hermes_gateway_requests_total{door="/v1/sessions/:id",method="GET",status="404"} 1');
    expect(text).toContain('hermes_gateway_requests_total{door="unmatched",method="GET",status="404"} 1');
    expect(text).toContain(
      'hermes_upstream_requests_total{provider="deepseek",model="deepseek-v4-flash",status="200"} 1',
    );
    expect(text).toMatch(
      /hermes_upstream_tokens_total\{provider="deepseek",model="deepseek-v4-flash",type="input"\} [1-9]/,
    );
    expect(text).toContain('hermes_gateway_live_sessions 1');
    expect(text).toContain('hermes_process_cpu_seconds_total');
    expect(text).toContain('hermes_nodejs_eventloop_lag_p99_seconds');
    // No per-collection GC observer: it slows every allocation-heavy turn.
    expect(text).not.toContain('gc_duration');
    // Probes are not counted (and not logged).
    expect(text).not.toContain('/healthz');
  });

  it('names the reason a handle did not open with a bounded label', () => {
    expect(handleDropReason('empty or null')).toBe('empty');
    expect(handleDropReason('does not authenticate (altered, truncated, or moved from another field)')).toBe(
      'tampered',
    );
    expect(handleDropReason('not a gateway handle: a provider blob goes only to its own wire API')).toBe(
      'not-a-handle',
    );
    expect(handleDropReason('a second handle on one assistant turn')).toBe('mismatch');
  });

  it('can be turned off', async () => {
    const { app } = await startDeepseekApp(e2e.defer, { metrics: false });
    expect((await app.request('/metrics')).status).toBe(404);
  });
});

describe('user keys', () => {
  it('open every route, scope sessions to their user, and keep the token and /metrics apart', async () => {
    const { app, store } = await startDeepseekApp(e2e.defer, { token: TOKEN });
    const alice = (await addGatewayUser(store, 'alice', null)).key;
    const bob = (await addGatewayUser(store, 'bob', null)).key;
    const as = (key: string) => ({ authorization: `Bearer ${key}` });

    const first = await app.request('/v1/chat/completions', chat('hello', as(alice)));
    expect(first.status).toBe(200);
    const aliceSession = first.headers.get('x-hermes-session-id') as string;
    expect(aliceSession).toMatch(/^alice\//);
    // Bob cannot continue or read Alice's session, by its full id or its short one.
    const short = aliceSession.slice('alice/'.length);
    expect(
      (await app.request('/v1/chat/completions', chat('again', { ...as(bob), 'x-hermes-session-id': aliceSession })))
        .status,
    ).toBe(404);
    expect((await app.request(`/v1/sessions/${encodeURIComponent(aliceSession)}`, { headers: as(bob) })).status).toBe(
      404,
    );
    expect((await app.request(`/v1/sessions/${short}`, { headers: as(alice) })).status).toBe(200);
    const bobList = (await (await app.request('/v1/sessions', { headers: as(bob) })).json()) as { data: unknown[] };
    expect(bobList.data).toEqual([]);
    const operatorList = (await (await app.request('/v1/sessions', { headers: as(TOKEN) })).json()) as {
      data: { id: string }[];
    };
    expect(operatorList.data.map((session) => session.id)).toEqual([aliceSession]);
    // x-api-key works as well (Claude Code); /metrics is the operator's.
    expect((await app.request('/v1/sessions', { headers: { 'x-api-key': alice } })).status).toBe(200);
    expect((await app.request('/metrics', { headers: as(alice) })).status).toBe(403);
    expect((await app.request('/metrics', { headers: as(TOKEN) })).status).toBe(200);
  });

  it('refuses unknown and revoked keys (401) and a POST over the limit (429 with retry-after)', async () => {
    const { app, store } = await startDeepseekApp(e2e.defer);
    const { key } = await addGatewayUser(store, 'ci', 2);
    const unknown = await app.request('/v1/sessions', { headers: { authorization: 'Bearer hermes-user-nobody' } });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toBe('Bearer');
    // Without a gateway token other credentials still pass (Claude Code sends some key anyway).
    expect((await app.request('/v1/sessions', { headers: { 'x-api-key': 'unused' } })).status).toBe(200);
    const as = { authorization: `Bearer ${key}` };
    expect((await app.request('/v1/chat/completions', chat('one', as))).status).toBe(200);
    expect((await app.request('/v1/chat/completions', chat('two', as))).status).toBe(200);
    // GETs are not counted.
    expect((await app.request('/v1/sessions', { headers: as })).status).toBe(200);
    const limited = await app.request('/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({
        model: 'deepseek-v4-flash',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'three' }],
      }),
    });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The Messages door answers in Anthropic's envelope.
    expect(((await limited.json()) as { type: string; error: { type: string } }).error.type).toBe('rate_limit_error');
    await store.revokeGatewayUser('ci', Date.now());
    const revoked = await app.request('/v1/sessions', { headers: as });
    expect(revoked.status).toBe(401);
    expect(await revoked.text()).toContain('revoked');
  });

  it("open the Gemini door as Google's key; a conversation found by its history is only ever the user's own", async () => {
    const { app, store } = await startDeepseekApp(e2e.defer, { token: TOKEN });
    const alice = (await addGatewayUser(store, 'alice', null)).key;
    const bob = (await addGatewayUser(store, 'bob', null)).key;
    const generate = (key: string, contents: unknown[]) =>
      app.request('/v1beta/models/deepseek:generateContent', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
        body: JSON.stringify({ contents }),
      });
    const question = { role: 'user', parts: [{ text: 'hello there' }] };
    const first = await generate(alice, [question]);
    expect(first.status).toBe(200);
    const session = first.headers.get('x-hermes-session-id') as string;
    expect(session).toMatch(/^alice\//);
    const answer = ((await first.json()) as { candidates: { content: unknown }[] }).candidates[0]?.content;
    const history = [question, answer, { role: 'user', parts: [{ text: 'and then?' }] }];
    // Alice's next request is found in her conversation; Bob sending the same history is not.
    expect((await generate(alice, history)).headers.get('x-hermes-session-id')).toBe(session);
    const other = (await generate(bob, history)).headers.get('x-hermes-session-id');
    expect(other).toMatch(/^bob\//);
    const refused = await generate('hermes-user-nobody', [question]);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { status: string } }).error.status).toBe('UNAUTHENTICATED');
    expect((await generate(TOKEN, [question])).status).toBe(200);
  });
});
