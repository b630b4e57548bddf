import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { bearerMatches, bindRefusal, isLoopbackHost } from '../../src/gateway/gateway-auth.js';
import { startGateway } from '../../src/gateway/gateway-serve.js';
import { postChatCompletion, runHermes, useE2e } from '../support/e2e.js';
import { gatewayOptions, startDeepseekApp } from './gateway-test-helpers.js';

/**
 * Loopback needs no token; any other bind refuses to start without one and
 * then every API route requires `Authorization: Bearer <token>`; the token is never logged.
 */

const e2e = useE2e();

async function setup(token?: string) {
  const { app, store, route, sandbox } = await startDeepseekApp(e2e.defer, token ? { token } : {});
  return { app, store, route, sandbox };
}

describe('bind rules', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.20', false],
    ['gateway.example.com', false],
  ])('isLoopbackHost(%s) = %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
    expect(bindRefusal(host, undefined) === null).toBe(loopback);
    expect(bindRefusal(host, 'tok')).toBeNull();
  });

  it('startGateway refuses a non-loopback host without a token (before binding anything)', async () => {
    const { store, route, sandbox } = await setup();
    await expect(
      startGateway({ ...gatewayOptions(store, route, sandbox.workspace), host: '0.0.0.0', port: 0 }),
    ).rejects.toThrow(UsageError);
  });

  it.each([
    [undefined, false],
    ['Bearer s3cret', true],
    ['bearer s3cret', true],
    ['Bearer s3cre', false],
    ['Bearer s3cret0', false],
    ['Basic s3cret', false],
    ['Bearer ', false],
  ])('bearerMatches(%s) = %s', (header, matches) => {
    expect(bearerMatches(header, 's3cret')).toBe(matches);
  });
});

describe('token required', () => {
  const unauthorized = {
    error: {
      message:
        'missing or wrong token: send "Authorization: Bearer <token>", or the token in the x-api-key header (the token the gateway was started with)',
      type: 'authentication_error',
      param: null,
      code: 'invalid_token',
    },
  };

  it.each([
    ['GET', '/v1/models'],
    ['GET', '/v1/sessions'],
    ['GET', '/v1/sessions/x'],
    ['GET', '/v1/sessions/x/requests'],
    ['POST', '/v1/sessions/x/branch'],
    ['POST', '/v1/chat/completions'],
  ])('%s %s: 401 without and with a wrong bearer, served with the right one', async (method, path) => {
    const { app } = await setup('s3cret');
    for (const authorization of [undefined, 'Bearer wrong', 'Bearer s3cret ']) {
      const headers: Record<string, string> = authorization ? { authorization } : {};
      const response = await app.request(path, { method, headers });
      if (authorization === 'Bearer s3cret ') {
        // Surrounding whitespace is trimmed: the right token passes auth and reaches the route.
        expect(response.status).not.toBe(401);
        continue;
      }
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(await response.json()).toEqual(unauthorized);
    }
  });

  it('a chat turn with the right bearer works; the inspector page loads without one (it holds no data)', async () => {
    const { app } = await setup('s3cret');
    const turn = await app.request('/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: 'Bearer s3cret', 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(turn.status).toBe(200);
    const page = await app.request('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('loopback without a token: no Authorization needed', async () => {
    const { app } = await setup();
    expect((await app.request('/v1/sessions')).status).toBe(200);
  });
});

describe('hermes gateway (built CLI)', () => {
  it('refuses --host 0.0.0.0 without a token: exit 2 with the reason', async () => {
    const run = await runHermes(['gateway', '--host', '0.0.0.0', '--port', '0'], e2e.sandbox(), {
      HERMES_GATEWAY_TOKEN: '',
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'hermes: refusing to bind 0.0.0.0 without a token: anyone who can reach that address could run tools in the workspace. ' +
        'Pass --token T (or set HERMES_GATEWAY_TOKEN), or bind 127.0.0.1\n',
    );
  });

  it('serves the offline emulator on loopback with HERMES_GATEWAY_TOKEN, logs to gateway.log without the token, stops on SIGTERM', async () => {
    const sandbox = e2e.sandbox();
    const gateway = await e2e.gateway(['--provider', 'emulator:deepseek'], sandbox, {
      HERMES_GATEWAY_TOKEN: 'tok-9f8e7d',
    });
    expect(gateway.stderr).toContain('token required');
    expect((await fetch(`${gateway.url}/v1/models`)).status).toBe(401);
    const turn = await postChatCompletion(
      gateway.url,
      { messages: [{ role: 'user', content: 'read the file notes.txt' }] },
      { authorization: 'Bearer tok-9f8e7d' },
    );
    expect(turn.status).toBe(200);
    const body = (await turn.json()) as { choices: { message: { content: string; reasoning_content: string } }[] };
    expect(body.choices[0]?.message.content).toContain('alpha beta');
    expect(body.choices[0]?.message.reasoning_content).toContain('[nonce:');
    gateway.process.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    const log = readFileSync(join(sandbox.home, 'logs', 'gateway.log'), 'utf8');
    expect(log).toContain('"msg":"POST /v1/chat/completions 200"');
    expect(log).toContain('"msg":"GET /v1/models 401"');
    expect(log).not.toContain('tok-9f8e7d');
    expect(log).not.toContain('emulator-key');
  });
});

describe('browser-forged requests are refused (CSRF and DNS rebinding)', () => {
  const chat = JSON.stringify({ messages: [{ role: 'user', content: 'read the file notes.txt' }] });

  it.each([
    {
      name: 'a cross-site text/plain POST (no CORS preflight) from another origin',
      url: 'http://127.0.0.1:8642/v1/chat/completions',
      headers: { origin: 'https://evil.example', 'content-type': 'text/plain' },
      message:
        "cross-origin request from https://evil.example refused: web pages other than the gateway's own inspector may not drive it",
    },
    {
      name: 'a page on a rebound name (same origin as itself, Host not loopback)',
      url: 'http://rebind.evil.example:8642/v1/chat/completions',
      headers: { origin: 'http://rebind.evil.example:8642', 'content-type': 'application/json' },
      message:
        'requests must be addressed to a loopback host (127.0.0.1 or localhost), not "rebind.evil.example:8642"; bind another address with --token to serve other names',
    },
  ])('$name: 403, no turn runs, no session is created', async ({ url, headers, message }) => {
    const { app, store } = await setup();
    const response = await app.request(url, { method: 'POST', headers, body: chat });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      error: { message, type: 'permission_error', param: null, code: 'forbidden_origin' },
    });
    expect(await store.listSessions({ limit: 10 })).toEqual([]);
  });

  it('a rebound name cannot read sessions either (GET)', async () => {
    const { app } = await setup();
    const response = await app.request('http://rebind.evil.example:8642/v1/sessions');
    expect(response.status).toBe(403);
  });

  it.each([
    { name: 'no Origin (the openai SDK, curl)', headers: {} as Record<string, string> },
    { name: "the gateway's own inspector page", headers: { origin: 'http://127.0.0.1:8642' } },
  ])('$name is served', async ({ headers }) => {
    const { app } = await setup();
    const response = await app.request('http://127.0.0.1:8642/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: chat,
    });
    expect(response.status).toBe(200);
  });

  it('with a token, any Host name is served (the token is what a forged page lacks)', async () => {
    const { app } = await setup('s3cret');
    const response = await app.request('http://gateway.lan:8642/v1/sessions', {
      headers: { authorization: 'Bearer s3cret' },
    });
    expect(response.status).toBe(200);
  });
});
