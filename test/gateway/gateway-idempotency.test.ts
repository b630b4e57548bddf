import { describe, expect, it } from 'vitest';
import { useE2e } from '../support/e2e.js';
import { IDEMPOTENCY_HEADER, SESSION_HEADER } from '../../src/gateway/gateway-chat.js';
import { findKeyedTurn, TurnKeyReusedError, turnDigest } from '../../src/runtime/runtime-turn-key.js';
import { startDeepseekApp } from './gateway-test-helpers.js';

/**
 * An `Idempotency-Key` names one request (SPEC §23.6): sent again with the same request it is
 * answered from the store, never run twice; sent again with a different request it is a 422
 * saying so, and the new message is neither stored nor sent — never the first answer given for
 * a question that was silently dropped.
 */

const e2e = useE2e();

const ask = (text: string, stream = false) => ({ model: 'm', stream, messages: [{ role: 'user', content: text }] });

async function setup() {
  const { emulator, store, app } = await startDeepseekApp(e2e.defer);
  const post = (body: unknown, headers: Record<string, string>) =>
    app.request('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  return { emulator, store, post };
}

describe('Idempotency-Key reused with a different request', () => {
  it.each([false, true])('is a 422 naming the key, and stores nothing (stream: %s)', async (stream) => {
    const { emulator, store, post } = await setup();
    const first = await post(ask('hello'), { [IDEMPOTENCY_HEADER]: 'key-1' });
    expect(first.status).toBe(200);
    const sessionId = first.headers.get(SESSION_HEADER) ?? '';
    const answer = ((await first.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message;
    const sent = emulator.requests.length;

    const changed = await post(ask('a different question', stream), {
      [IDEMPOTENCY_HEADER]: 'key-1',
      [SESSION_HEADER]: sessionId,
    });
    expect(changed.status).toBe(422);
    expect(changed.headers.get('content-type')).toContain('application/json');
    const error = ((await changed.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('idempotency_key_reused');
    expect(error.message).toMatch(/^Idempotency-Key "key-1" was already used in this session for a different request/);
    expect(emulator.requests.length).toBe(sent);
    const users = (await store.listMessages(sessionId)).filter((message) => message.role === 'user');
    expect(users.map((message) => message.content)).toEqual(['hello']);

    // The same request again is answered from the store, with no provider request.
    const again = await post(ask('hello'), { [IDEMPOTENCY_HEADER]: 'key-1', [SESSION_HEADER]: sessionId });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { choices: { message: unknown }[] }).choices[0]?.message).toEqual(answer);
    expect(emulator.requests.length).toBe(sent);
  });

  it('the stored user message carries the key and the digest of its request', async () => {
    const { store, post } = await setup();
    const first = await post(ask('hello'), { [IDEMPOTENCY_HEADER]: 'key-2' });
    const sessionId = first.headers.get(SESSION_HEADER) ?? '';
    const user = (await store.listMessages(sessionId)).find((message) => message.role === 'user');
    expect(user).toMatchObject({ content: 'hello', _turn_key: 'key-2', _turn_digest: turnDigest('hello') });
  });
});

describe('findKeyedTurn', () => {
  const user = { role: 'user' as const, content: 'hello', _turn_key: 'k', _turn_digest: turnDigest('hello') };
  const answer = { role: 'assistant' as const, content: 'hi' };

  it('finds the finished turn of the same request', () => {
    expect(findKeyedTurn([user, answer], 'k', 'hello')).toEqual({ state: 'finished', messages: [answer] });
  });

  it('refuses the key for another request, also on a message stored without a digest', () => {
    expect(() => findKeyedTurn([user, answer], 'k', 'changed')).toThrow(TurnKeyReusedError);
    const legacy = { role: 'user' as const, content: 'hello', _turn_key: 'k' };
    expect(() => findKeyedTurn([legacy, answer], 'k', 'changed')).toThrow(TurnKeyReusedError);
    expect(findKeyedTurn([legacy, answer], 'k', 'hello').state).toBe('finished');
  });

  it('caps the key it repeats', () => {
    const long = 'x'.repeat(10_000);
    const message = new TurnKeyReusedError(long).message;
    expect(message.length).toBeLessThan(400);
  });
});
