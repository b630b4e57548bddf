import { describe, expect, it } from 'vitest';
import { startChatEmulator } from '../../../src/emulators/chat-completions/chat-emulator.js';
import { postJson } from './chat-emulator-test-helpers.js';
import { useE2e } from '../../support/e2e.js';

// The loopback server itself — request log with exact bytes, endpoints, context
// window, input validation.

/** Starts a chat emulator that is closed after the test. */
const start = useE2e().chat;

describe('request log', () => {
  it('records the exact bytes, the parsed body, redacted credentials and the status', async () => {
    const emulator = await start({ persona: 'local' });
    expect(emulator.baseUrl).toBe(`http://127.0.0.1:${emulator.port}/v1`);
    const raw = '{"model":"m",  "messages":[{"role":"user","content":"h\\u00e9llo ✓"}] }';
    const result = await postJson(`${emulator.baseUrl}/chat/completions`, raw, {
      authorization: 'Bearer sk-secret-value',
      'x-trace': 'abc',
    });
    expect(result.status).toBe(200);
    expect(emulator.requests).toHaveLength(1);
    const [entry] = emulator.requests;
    expect(entry?.raw).toBe(raw);
    expect(entry?.body).toEqual({ model: 'm', messages: [{ role: 'user', content: 'héllo ✓' }] });
    expect(entry?.headers['authorization']).toBe('REDACTED');
    expect(entry?.headers['x-trace']).toBe('abc');
    expect(JSON.stringify(emulator.requests)).not.toContain('sk-secret-value');
    expect([entry?.method, entry?.path, entry?.status]).toEqual(['POST', '/v1/chat/completions', 200]);

    const origin = emulator.baseUrl.replace(/\/v1$/, '');
    const listed = await (await fetch(`${origin}/_emulator/requests`)).json();
    expect(listed).toEqual(JSON.parse(JSON.stringify(emulator.requests)));
    await fetch(`${origin}/_emulator/requests`, { method: 'DELETE' });
    expect(emulator.requests).toEqual([]);
  });

  it('serves /chat/completions without /v1 and lists the model at /v1/models; other paths 404', async () => {
    const emulator = await start({ persona: 'deepseek', model: 'deepseek-v4-flash' });
    const origin = emulator.baseUrl.replace(/\/v1$/, '');
    const result = await postJson(`${origin}/chat/completions`, { messages: [{ role: 'user', content: 'hi' }] });
    expect((result.json as { model: string }).model).toBe('deepseek-v4-flash');
    expect(emulator.requests[0]?.path).toBe('/chat/completions');
    const models = await (await fetch(`${emulator.baseUrl}/models`)).json();
    expect(models).toEqual({
      object: 'list',
      data: [{ id: 'deepseek-v4-flash', object: 'model', created: 1_700_000_000, owned_by: 'deepseek' }],
    });
    expect((await fetch(`${emulator.baseUrl}/embeddings`, { method: 'POST' })).status).toBe(404);
    expect(emulator.requests).toHaveLength(1);
  });

  it('answers invalid JSON and empty messages with a 400 in the persona envelope', async () => {
    const emulator = await start({ persona: 'copilot' });
    const broken = await postJson(`${emulator.baseUrl}/chat/completions`, '{"model":');
    expect(broken.status).toBe(400);
    expect(broken.json).toEqual({
      error: { message: 'We could not parse the JSON body of your request.', code: 'invalid_request_body' },
    });
    expect(emulator.requests[0]?.body).toBeUndefined();
    const empty = await postJson(`${emulator.baseUrl}/chat/completions`, { model: 'm', messages: [] });
    expect(empty.json).toEqual({
      error: { message: "'messages' must be a non-empty array", code: 'invalid_request_body' },
    });
  });
});

describe('context window', () => {
  it('answers the context-length 400 above the window and serves requests under it', async () => {
    const emulator = await start({ persona: 'deepseek', contextWindow: 50 });
    const small = await postJson(`${emulator.baseUrl}/chat/completions`, {
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(small.status).toBe(200);
    const big = await postJson(`${emulator.baseUrl}/chat/completions`, {
      model: 'm',
      messages: [{ role: 'user', content: 'x'.repeat(400) }],
    });
    expect(big.status).toBe(400);
    expect(big.json).toEqual({
      error: {
        message:
          "This model's maximum context length is 50 tokens. However, your messages resulted in 104 tokens. Please reduce the length of the messages.",
        type: 'invalid_request_error',
        param: null,
        code: 'context_length_exceeded',
      },
    });
  });

  it('does not count opaque bytes (signatures, encrypted data) against the window', async () => {
    const emulator = await start({ persona: 'local', contextWindow: 60 });
    const result = await postJson(`${emulator.baseUrl}/chat/completions`, {
      model: 'm',
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: 'ok',
          reasoning_details: [{ type: 'reasoning.encrypted', data: 'A'.repeat(4000) }],
        },
        { role: 'user', content: 'again' },
      ],
    });
    expect(result.status).toBe(200);
  });
});

describe('options', () => {
  it('rejects an unknown persona with a usage error', async () => {
    await expect(startChatEmulator({ persona: 'nope' as never })).rejects.toThrow('unknown chat persona "nope"');
  });

  it('close() ends an open keep-alive connection and is idempotent', async () => {
    const emulator = await startChatEmulator({ persona: 'local' });
    await postJson(`${emulator.baseUrl}/chat/completions`, { messages: [{ role: 'user', content: 'hi' }] });
    await Promise.all([emulator.close(), emulator.close()]);
    await expect(fetch(`${emulator.baseUrl}/models`)).rejects.toThrow();
  });
});
