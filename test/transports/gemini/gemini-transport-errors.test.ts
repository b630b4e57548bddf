import { describe, expect, it } from 'vitest';
import { AuthenticationError, RateLimitError, type ApiError } from '../../../src/core/errors.js';
import { createGeminiTransport } from '../../../src/transports/gemini/gemini-transport.js';
import type { TransportRequest } from '../../../src/transports/shared/transport.js';

/**
 * WIRE.md §4.5 error mapping, security side: the credential a Gemini request carried (AI Studio
 * `x-goog-api-key`, Vertex bearer token) never appears in the error a person or a log sees, even
 * when the answering server echoes it.
 */

const API_KEY = 'AIzaSy-secret-gemini-key-0123456789';
const ACCESS_TOKEN = 'ya29.secret-vertex-access-token';

function echoingFetch(): typeof globalThis.fetch {
  return async (_url, init) => {
    const headers = new Headers(init?.headers);
    const credential = headers.get('x-goog-api-key') ?? headers.get('authorization') ?? '';
    const body = JSON.stringify({
      error: { code: 401, message: `credential ${credential} is not valid`, status: 'UNAUTHENTICATED' },
    });
    return new Response(body, { status: 401, headers: { 'content-type': 'application/json' } });
  };
}

const cases: { name: string; request: TransportRequest; secret: string }[] = [
  {
    name: 'AI Studio API key',
    request: {
      route: { api: 'gemini', provider: 'gemini', model: 'gemini-3-pro-preview', baseUrl: 'http://127.0.0.1:9/v1beta' },
      history: [{ role: 'user', content: 'hi' }],
      tools: [],
      reasoning: { enabled: false },
      apiKey: API_KEY,
    },
    secret: API_KEY,
  },
  {
    name: 'Vertex access token',
    request: {
      route: {
        api: 'gemini',
        provider: 'vertex',
        model: 'gemini-3-pro-preview',
        baseUrl: 'http://127.0.0.1:9/v1/projects/p/locations/global/publishers/google',
      },
      history: [{ role: 'user', content: 'hi' }],
      tools: [],
      reasoning: { enabled: false },
    },
    secret: ACCESS_TOKEN,
  },
];

describe('Gemini transport: a rejected credential is redacted from the error (WIRE.md §4.5)', () => {
  it.each(cases)('$name', async ({ request, secret }) => {
    const transport = createGeminiTransport({
      fetch: echoingFetch(),
      environment: {},
      accessTokenProvider: async () => ACCESS_TOKEN,
      sleep: async () => undefined,
    });
    const error = await transport
      .send(request)
      .result()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthenticationError);
    const apiError = error as ApiError;
    expect(apiError.status).toBe(401);
    expect(apiError.message).toMatch(/credential (Bearer )?\[redacted\] is not valid/);
    expect(JSON.stringify({ message: apiError.message, body: apiError.body })).not.toContain(secret);
  });
});

describe('Gemini transport: 429 retry timing (WIRE.md §4.5)', () => {
  const request: TransportRequest = {
    route: { api: 'gemini', provider: 'gemini', model: 'gemini-3-pro-preview', baseUrl: 'http://127.0.0.1:9/v1beta' },
    history: [{ role: 'user', content: 'hi' }],
    tools: [],
    reasoning: { enabled: false },
    apiKey: 'key',
    stream: false,
  };
  const quotaFetch = (retryDelay: string, calls: string[]): typeof globalThis.fetch => {
    return async (url) => {
      calls.push(String(url));
      const body = JSON.stringify({
        error: {
          code: 429,
          message: 'Resource has been exhausted (e.g. check quota).',
          status: 'RESOURCE_EXHAUSTED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay }],
        },
      });
      return new Response(body, { status: 429, headers: { 'content-type': 'application/json' } });
    };
  };

  it.each([
    {
      name: 'a short RetryInfo delay is slept through, then the attempts run out',
      retryDelay: '2s',
      sleeps: [2000, 2000],
    },
    { name: 'a delay over 60 s (daily quota) is surfaced at once, not slept through', retryDelay: '3600s', sleeps: [] },
  ])('$name', async ({ retryDelay, sleeps }) => {
    const calls: string[] = [];
    const slept: number[] = [];
    const transport = createGeminiTransport({
      fetch: quotaFetch(retryDelay, calls),
      environment: {},
      sleep: async (milliseconds) => void slept.push(milliseconds),
    });
    const error = await transport
      .send(request)
      .result()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(slept).toEqual(sleeps);
    expect(calls).toHaveLength(sleeps.length + 1);
  });
});
