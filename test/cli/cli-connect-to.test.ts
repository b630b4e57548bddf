import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { connectToFetch, parseConnectTo } from '../../src/cli/cli-connect-to.js';

/** HERMES_CONNECT_TO (emulation aid): valid pairs map origins; a malformed value is a usage error, never ignored. */
describe('parseConnectTo', () => {
  it('maps each FROM origin to its TO origin (paths dropped), empty input maps nothing', () => {
    expect(parseConnectTo(undefined)).toEqual(new Map());
    expect(parseConnectTo('')).toEqual(new Map());
    expect(
      parseConnectTo(
        'https://api.githubcopilot.com/v1=http://127.0.0.1:4010/x, https://generativelanguage.googleapis.com=http://127.0.0.1:4011',
      ),
    ).toEqual(
      new Map([
        ['https://api.githubcopilot.com', 'http://127.0.0.1:4010'],
        ['https://generativelanguage.googleapis.com', 'http://127.0.0.1:4011'],
      ]),
    );
  });

  it.each(['garbage', 'a=b', 'https://api.openai.com=', 'https://x.example=http://127.0.0.1:1=y', 'ftp://a=http://b'])(
    'rejects %j with a usage error naming the expected form',
    (value) => {
      const parse = () => parseConnectTo(value);
      expect(parse).toThrow(UsageError);
      expect(parse).toThrow(
        /^HERMES_CONNECT_TO: ".*" is not ORIGIN=ORIGIN \(e\.g\. https:\/\/api\.githubcopilot\.com=http:\/\/127\.0\.0\.1:4010\)$/,
      );
    },
  );
});

/** The mapped fetch the CLI hands to the runtime: only mapped origins move; the global fetch stays as it is. */
describe('connectToFetch', () => {
  const seen: { url: string; method: string; body: string | null }[] = [];
  const base: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    seen.push({ url: request.url, method: request.method, body: request.body ? await request.text() : null });
    return new Response('ok');
  };
  const mapped = connectToFetch(new Map([['https://api.githubcopilot.com', 'http://127.0.0.1:4010']]), base);

  it('sends a mapped origin to its target with path, query, method and body unchanged', async () => {
    seen.length = 0;
    const original = globalThis.fetch;
    await mapped('https://api.githubcopilot.com/chat/completions?x=1', { method: 'POST', body: '{"a":1}' });
    await mapped(new URL('https://api.githubcopilot.com/models'));
    await mapped(new Request('https://api.githubcopilot.com/v1/x', { method: 'PUT', body: 'raw' }));
    await mapped('https://api.openai.com/v1/responses');
    expect(seen).toEqual([
      { url: 'http://127.0.0.1:4010/chat/completions?x=1', method: 'POST', body: '{"a":1}' },
      { url: 'http://127.0.0.1:4010/models', method: 'GET', body: null },
      { url: 'http://127.0.0.1:4010/v1/x', method: 'PUT', body: 'raw' },
      { url: 'https://api.openai.com/v1/responses', method: 'GET', body: null },
    ]);
    expect(globalThis.fetch).toBe(original);
  });
});
