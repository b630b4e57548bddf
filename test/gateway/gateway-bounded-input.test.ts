import { afterEach, describe, expect, it, vi } from 'vitest';
import { useE2e } from '../support/e2e.js';
import { checkJsonBounds, DEFAULT_JSON_BODY_BOUNDS } from '../../src/gateway/gateway-bounded-json.js';
import { SESSION_HEADER } from '../../src/gateway/gateway-chat.js';
import { MAX_ECHOED_LENGTH } from '../../src/gateway/gateway-errors.js';
import { MAX_SESSION_TITLE_LENGTH } from '../../src/storage/session-store-rules.js';
import { startDeepseekApp } from './gateway-test-helpers.js';

/**
 * Bounded everything (docs/architecture.md "Security"): a JSON body is refused for its nesting
 * or value count before `JSON.parse` builds anything, an error never repeats an unbounded
 * client value (a session id, a path), a branch title has a cap, and a turn whose text is one
 * 2,400,000-character word is answered (the emulator's text splitting is linear).
 */

const e2e = useE2e();
afterEach(() => vi.restoreAllMocks());

async function setup() {
  const { store, app } = await startDeepseekApp(e2e.defer);
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { store, app, post };
}

type ErrorBody = { error: { message: string; code: string | null } };

describe('JSON bodies are bounded before they are parsed', () => {
  /** Nearly 16 MiB of `[[[…]]]`: valid JSON that parses into eight million nested arrays. */
  const deep = `${'['.repeat(8 * 1024 * 1024 - 8)}${']'.repeat(8 * 1024 * 1024 - 8)}`;

  it.each([
    ['POST /v1/chat/completions', '/v1/chat/completions'],
    ['POST /v1/sessions/{id}/branch', '/v1/sessions/SESSION/branch'],
  ])('%s: a 16 MiB deeply nested body is a 400, and JSON.parse never sees it', async (_name, path) => {
    const { post, store } = await setup();
    const session = await store.createSession({});
    const parse = vi.spyOn(JSON, 'parse');
    const response = await post(path.replace('SESSION', session.id), deep);
    expect(response.status).toBe(400);
    const body = (await response.json()) as ErrorBody;
    expect(body.error.code).toBe('json_too_deep');
    expect(body.error.message).toBe('the request body nests deeper than 64 levels of arrays and objects');
    expect(parse.mock.calls.some(([text]) => typeof text === 'string' && text.length > 1_000_000)).toBe(false);
  });

  it('a body of more values than any conversation holds is a 400 before it is parsed', async () => {
    const { post } = await setup();
    const parse = vi.spyOn(JSON, 'parse');
    const many = `{"messages":[{"role":"user","content":"hi"}],"x":[${'0,'.repeat(DEFAULT_JSON_BODY_BOUNDS.maxValues)}0]}`;
    const response = await post('/v1/chat/completions', many);
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorBody).error.code).toBe('json_too_large');
    expect(parse.mock.calls.some(([text]) => typeof text === 'string' && text.length > 1_000_000)).toBe(false);
  });

  it.each([
    [
      'brackets inside strings do not count',
      '{"a":"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}',
      true,
    ],
    [
      'an escaped quote does not end the string',
      '{"a":"\\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}',
      true,
    ],
    ['64 levels pass', `${'['.repeat(64)}${']'.repeat(64)}`, true],
    ['65 levels do not', `${'['.repeat(65)}${']'.repeat(65)}`, false],
  ])('%s', (_name, text, passes) => {
    const check = () => checkJsonBounds(text, { maxDepth: 64, maxValues: 1000 });
    if (passes) expect(check).not.toThrow();
    else expect(check).toThrow(/nests deeper than 64 levels/);
  });
});

describe('errors never repeat an unbounded value', () => {
  const huge = 'x'.repeat(8 * 1024 * 1024);

  it('a 404 for an 8 MB session id repeats at most its first characters', async () => {
    const { post } = await setup();
    const response = await post(
      '/v1/chat/completions',
      JSON.stringify({ session_id: huge, messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(response.status).toBe(404);
    const text = await response.text();
    expect(text.length).toBeLessThan(500);
    expect(text).toContain(`${'x'.repeat(MAX_ECHOED_LENGTH)}… (8388608 characters)`);
  });

  it.each([
    ['GET /v1/sessions/{id}', (id: string) => `/v1/sessions/${id}`],
    ['an unknown route', (id: string) => `/v1/${id}`],
  ])('%s with a 12,000-character id', async (_name, pathOf) => {
    const { app } = await setup();
    const response = await app.request(pathOf('y'.repeat(12_000)), {
      headers: { [SESSION_HEADER]: 'y'.repeat(12_000) },
    });
    expect(response.status).toBe(404);
    expect((await response.text()).length).toBeLessThan(500);
  });
});

describe('branch titles have a cap', () => {
  it('a 10 MB title is a 400 and no branch is made', async () => {
    const { post, store } = await setup();
    const session = await store.createSession({ title: 'parent' });
    const response = await post(`/v1/sessions/${session.id}/branch`, JSON.stringify({ title: 't'.repeat(10_000_000) }));
    expect(response.status).toBe(400);
    const body = (await response.json()) as ErrorBody;
    expect(body.error.code).toBe('title_too_long');
    expect(body.error.message).toBe(
      `"title" is 10000000 characters; a session title is at most ${MAX_SESSION_TITLE_LENGTH}`,
    );
    expect(await store.childSessions(session.id)).toEqual([]);
  });

  it('a branch of a session with the longest title gets a numbered title within the cap', async () => {
    const { post, store } = await setup();
    const session = await store.createSession({ title: 'p'.repeat(MAX_SESSION_TITLE_LENGTH) });
    for (let round = 0; round < 2; round += 1) {
      const response = await post(`/v1/sessions/${session.id}/branch`, '');
      expect(response.status).toBe(201);
      const child = (await response.json()) as { title: string };
      expect(child.title.length).toBeLessThanOrEqual(MAX_SESSION_TITLE_LENGTH);
      expect(child.title).toMatch(new RegExp(`^p+… #${round + 2}$`));
    }
  });
});

describe('the offline emulator stays linear', () => {
  it('a turn whose question is one 2,400,000-character word is answered', async () => {
    const { post } = await setup();
    const word = 'w'.repeat(2_400_000);
    const response = await post(
      '/v1/chat/completions',
      JSON.stringify({ messages: [{ role: 'user', content: word }] }),
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]?.message.content.startsWith(`You said: ${word}`)).toBe(true);
  });
});
