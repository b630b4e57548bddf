import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeminiEmulator, type GeminiEmulator } from '../../../src/emulators/gemini/gemini-emulator.js';

// The Gemini emulator serves the same `/_emulator/*` control endpoints and fault kinds as the
// other four emulators (docs/architecture.md: tests and CLI users script provider failures).

const MODEL = 'gemini-3-pro-preview';
let emulator: GeminiEmulator;

beforeAll(async () => {
  emulator = await startGeminiEmulator();
});
afterAll(async () => {
  await emulator.close();
});

const origin = (): string => new URL(emulator.baseUrl).origin;

function generate(stream: boolean): Promise<Response> {
  const method = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  return fetch(`${emulator.baseUrl}/models/${MODEL}:${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': 'test-key' },
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hello' }] }] }),
  });
}

function queueFaults(faults: unknown): Promise<Response> {
  return fetch(`${origin()}/_emulator/faults`, { method: 'POST', body: JSON.stringify(faults) });
}

/** Reads a body to its end; `failed` when the connection broke before the end. */
async function readAll(response: Response): Promise<{ text: string; failed: boolean }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (let reads = 0; reads < 1000; reads += 1) {
    try {
      const { done, value } = await reader.read();
      if (done) return { text, failed: false };
      text += decoder.decode(value, { stream: true });
    } catch {
      return { text, failed: true };
    }
  }
  return { text, failed: false };
}

describe('Gemini emulator control endpoints', () => {
  it('GET /_emulator/requests lists model requests with the key redacted; DELETE clears them', async () => {
    await fetch(`${origin()}/_emulator/requests`, { method: 'DELETE' });
    const keyInQuery = await fetch(`${emulator.baseUrl}/models/${MODEL}:generateContent?key=AIza-secret`, {
      method: 'POST',
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    expect(keyInQuery.status).toBe(200);
    const log = (await (await fetch(`${origin()}/_emulator/requests`)).json()) as Record<string, unknown>[];
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      method: 'POST',
      path: `/v1beta/models/${MODEL}:generateContent`,
      query: 'key=REDACTED',
      status: 200,
      issuer: 'ai-studio',
    });
    expect(JSON.stringify(log)).not.toContain('AIza-secret');
    expect(await (await fetch(`${origin()}/_emulator/requests`, { method: 'DELETE' })).json()).toEqual({
      cleared: true,
    });
    expect(emulator.requests).toEqual([]);
  });

  it('a queued status fault answers in Google error shape with retry-after, then service resumes', async () => {
    expect((await queueFaults({ kind: 'status', status: 503, retryAfterSeconds: 1 })).status).toBe(200);
    const failed = await generate(false);
    expect(failed.status).toBe(503);
    expect(failed.headers.get('retry-after')).toBe('1');
    expect(await failed.json()).toEqual({
      error: { code: 503, message: 'Injected fault: HTTP 503', status: 'UNAVAILABLE' },
    });
    expect((await generate(false)).status).toBe(200);
  });

  it('drop-mid-stream sends a first chunk, then resets the connection', async () => {
    await queueFaults({ kind: 'drop-mid-stream' });
    const response = await generate(true);
    expect(response.status).toBe(200);
    const { text, failed } = await readAll(response);
    expect(failed).toBe(true);
    expect(text.startsWith('data: {')).toBe(true);
  });

  it('malformed-chunk and error-chunk end the stream with a bad frame and an in-band error', async () => {
    await queueFaults([{ kind: 'malformed-chunk' }, { kind: 'error-chunk' }]);
    const malformed = await readAll(await generate(true));
    expect(malformed.text.endsWith('data: {not json\r\n\r\n')).toBe(true);
    const inBand = await readAll(await generate(true));
    const last = inBand.text.trim().split('\r\n\r\n').at(-1) ?? '';
    expect(JSON.parse(last.slice('data: '.length))).toEqual({
      error: { code: 500, message: 'Injected fault: stream error', status: 'INTERNAL' },
    });
  });

  it('an invalid fault is a 400 naming the problem', async () => {
    const response = await queueFaults({ kind: 'explode' });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain('invalid fault');
  });
});
