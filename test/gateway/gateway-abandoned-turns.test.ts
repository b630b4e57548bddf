import { describe, expect, it } from 'vitest';
import { useE2e } from '../support/e2e.js';
import { useFrontDoors } from './front-door-helpers.js';
import { ask, startStallableGateway, until } from './gateway-stalled-turns.js';

/**
 * A turn the client abandons leaves nothing the client does not hold (docs/gateway.md
 * "Sessions"): no session row for a first turn that never answered, and no question left in a
 * session the client named. Every test leaves while the provider holds the request.
 */

const e2e = useE2e();
const doors = useFrontDoors();

async function startGateway() {
  const { emulator, gateway, post } = await startStallableGateway(e2e);
  /** Sends `text`, waits until the provider holds it, then leaves. */
  const abandon = async (text: string, stream: boolean, headers: Record<string, string> = {}) => {
    emulator.addFault({ kind: 'stall-before-headers' });
    const leaving = new AbortController();
    const before = emulator.requests.length;
    const stalled = post(ask(text, stream), headers, leaving.signal);
    await until(() => emulator.requests.length > before);
    if (stream) expect((await stalled).status).toBe(200);
    leaving.abort();
    await stalled.then((response) => response.text()).catch(() => undefined);
  };
  return { gateway, post, abandon };
}

describe('gateway: an abandoned turn leaves nothing behind', () => {
  it.each([false, true])('stream=%s: a new session whose first turn was abandoned is not stored', async (stream) => {
    const { gateway, abandon } = await startGateway();
    await abandon('a question nobody waits for', stream);
    // The take-back runs as the turn ends, after the client left: waited for, bounded.
    for (let attempt = 0; attempt < 200 && (await gateway.store.listSessions()).length > 0; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await gateway.store.listSessions()).toEqual([]);
  });

  it.each([false, true])(
    'stream=%s: in a session the client named, the abandoned question is taken back',
    async (stream) => {
      const { gateway, post, abandon } = await startGateway();
      const first = await post(ask('hello', false));
      expect(first.status).toBe(200);
      const sessionId = first.headers.get('x-hermes-session-id') ?? '';
      await first.text();
      const answered = await gateway.store.listMessages(sessionId);
      await abandon('a question nobody waits for', stream, { 'x-hermes-session-id': sessionId });
      for (let attempt = 0; attempt < 200; attempt += 1) {
        if ((await gateway.store.listMessages(sessionId)).length === answered.length) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(await gateway.store.listMessages(sessionId)).toEqual(answered);
      // The next turn sees the conversation the client holds, with nothing of the abandoned one.
      const next = await post(ask('and now?', false), { 'x-hermes-session-id': sessionId });
      expect(next.status).toBe(200);
      const users = (await gateway.store.listMessages(sessionId)).filter((message) => message.role === 'user');
      expect(users.map((message) => message.content)).toEqual(['hello', 'and now?']);
    },
  );
});

describe('front doors: a session named by the client', () => {
  it.each(['/v1/messages', '/v1/responses'])(
    '%s: a first turn the client abandoned stores no session',
    async (path) => {
      const { gateway, store, upstreams } = await doors.gateway(['deepseek']);
      const upstream = upstreams['deepseek']!;
      upstream.addFault?.({ kind: 'stall-before-headers' });
      const leaving = new AbortController();
      const before = upstream.requests.length;
      const body =
        path === '/v1/messages'
          ? { model: 'deepseek', max_tokens: 256, messages: [{ role: 'user', content: 'nobody waits' }] }
          : { model: 'deepseek', store: false, input: 'nobody waits' };
      const pending = fetch(`${gateway.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-claude-code-session-id': 'abandoned-1' },
        body: JSON.stringify(body),
        signal: leaving.signal,
      }).catch(() => undefined);
      await until(() => upstream.requests.length > before);
      // While the provider holds the request, nothing is stored yet.
      const whileWaiting = await store.getSession('abandoned-1');
      leaving.abort();
      await pending;
      expect(whileWaiting).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await store.listSessions()).toEqual([]);
    },
  );
});

describe('the Gemini door: a conversation found by its history', () => {
  it('a first turn the client abandoned stores no session (its session is created by the answer)', async () => {
    const { gateway, store, upstreams } = await doors.gateway(['deepseek']);
    const upstream = upstreams['deepseek']!;
    const generate = (text: string, signal?: AbortSignal) =>
      fetch(`${gateway.url}/v1beta/models/deepseek:generateContent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text }] }] }),
        ...(signal ? { signal } : {}),
      });
    upstream.addFault?.({ kind: 'stall-before-headers' });
    const leaving = new AbortController();
    const before = upstream.requests.length;
    const pending = generate('nobody waits', leaving.signal).catch(() => undefined);
    await until(() => upstream.requests.length > before);
    const whileWaiting = await store.listSessions();
    leaving.abort();
    await pending;
    expect(whileWaiting).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await store.listSessions()).toEqual([]);
    // An answered first turn is stored, titled by the user's words.
    const answered = await generate('read me a poem');
    expect(answered.status).toBe(200);
    await answered.text();
    expect((await store.listSessions()).map((session) => session.title)).toEqual(['read me a poem']);
  });
});
