import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import { chunkObjects, postJson, sseData } from './chat-emulator-test-helpers.js';
import { useE2e } from '../../support/e2e.js';

// Fault injection: 429 with retry-after, 500, a connection dropped mid-stream, a
// malformed chunk, and OpenRouter's in-band error chunk (`finish_reason: "error"`, WIRE.md §1.7).
// Each queued fault is consumed by exactly one request.

/** Starts a chat emulator that is closed after the test. */
const start = useE2e().chat;

const REQUEST = { model: 'm', messages: [{ role: 'user', content: 'hello there' }] };
const STREAM_REQUEST = { ...REQUEST, stream: true };

/** Reads a streamed body until it ends or fails; returns the text read and the failure, if any. */
async function readStream(url: string, body: unknown): Promise<{ text: string; failure: unknown }> {
  const response = await fetch(url, { method: 'POST', body: JSON.stringify(body) });
  const reader = response.body?.getReader();
  if (!reader) throw new Error('no body');
  const decoder = new TextDecoder();
  let text = '';
  for (let reads = 0; reads < 10_000; reads += 1) {
    try {
      const { done, value } = await reader.read();
      if (done) return { text, failure: undefined };
      text += decoder.decode(value, { stream: true });
    } catch (failure) {
      return { text, failure };
    }
  }
  throw new Error('stream did not end within 10000 reads');
}

describe('status faults', () => {
  it('429 with retry-after in the persona envelope, consumed by one request', async () => {
    const emulator = await start({
      persona: 'deepseek',
      faults: [{ kind: 'status', status: 429, retryAfterSeconds: 7 }],
    });
    const limited = await postJson(`${emulator.baseUrl}/chat/completions`, REQUEST);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(limited.json).toEqual({
      error: {
        message: 'Rate limit reached for requests. Please retry after the time given in retry-after.',
        type: 'rate_limit_error',
        param: null,
        code: null,
      },
    });
    const next = await postJson(`${emulator.baseUrl}/chat/completions`, REQUEST);
    expect(next.status).toBe(200);
    expect(emulator.requests.map((request) => request.status)).toEqual([429, 200]);
  });

  it('500 with a given body, byte for byte; OpenRouter envelope by default', async () => {
    const emulator = await start({ persona: 'openrouter' });
    emulator.addFault({ kind: 'status', status: 500, body: 'upstream exploded' });
    emulator.addFault({ kind: 'status', status: 502 });
    const first = await postJson(`${emulator.baseUrl}/chat/completions`, REQUEST);
    expect([first.status, first.text]).toEqual([500, 'upstream exploded']);
    const second = await postJson(`${emulator.baseUrl}/chat/completions`, REQUEST);
    expect(second.status).toBe(502);
    expect(second.json).toEqual({
      error: { message: 'The server had an error while processing your request. Sorry about that!', code: 502 },
    });
    expect(second.headers.get('retry-after')).toBeNull();
  });

  it('faults can be queued over HTTP at POST /_emulator/faults', async () => {
    const emulator = await start({ persona: 'local' });
    const queued = await postJson(`${emulator.baseUrl.replace(/\/v1$/, '')}/_emulator/faults`, [
      { kind: 'status', status: 503, retryAfterSeconds: 1 },
      { kind: 'malformed-chunk' },
    ]);
    expect(queued.json).toEqual({ queued: 2, pending: 2 });
    expect((await postJson(`${emulator.baseUrl}/chat/completions`, REQUEST)).status).toBe(503);
    expect((await postJson(`${emulator.baseUrl}/chat/completions`, STREAM_REQUEST)).text).toContain(
      'data: {not json\n\n',
    );
    const invalid = await postJson(`${emulator.baseUrl.replace(/\/v1$/, '')}/_emulator/faults`, { kind: 'explode' });
    expect(invalid.status).toBe(400);
  });
});

describe('stream faults', () => {
  it('drop-mid-stream: a few chunks, then the connection resets without [DONE]', async () => {
    const emulator = await start({ persona: 'deepseek', faults: [{ kind: 'drop-mid-stream' }] });
    const { text, failure } = await readStream(`${emulator.baseUrl}/chat/completions`, STREAM_REQUEST);
    expect(failure).toBeInstanceOf(Error);
    expect(sseData(text)).toHaveLength(3);
    expect(text).not.toContain('[DONE]');
    expect(emulator.requests[0]?.status).toBe(200);
    // The next request is served normally.
    expect((await readStream(`${emulator.baseUrl}/chat/completions`, STREAM_REQUEST)).text).toContain('data: [DONE]');
  });

  it('drop-mid-stream on a non-streaming request drops before any answer', async () => {
    const emulator = await start({ persona: 'deepseek', faults: [{ kind: 'drop-mid-stream' }] });
    await expect(
      fetch(`${emulator.baseUrl}/chat/completions`, { method: 'POST', body: JSON.stringify(REQUEST) }),
    ).rejects.toThrow();
    expect(emulator.requests[0]?.status).toBe(0);
  });

  it('malformed-chunk: `data: {not json` after three good chunks', async () => {
    const emulator = await start({ persona: 'strict-groq', faults: [{ kind: 'malformed-chunk' }] });
    const { text } = await readStream(`${emulator.baseUrl}/chat/completions`, STREAM_REQUEST);
    const data = sseData(text);
    expect(data[3]).toBe('{not json');
    expect(() => JSON.parse(data[2] ?? '')).not.toThrow();
  });

  it('malformed-chunk on a non-streaming request: a truncated JSON body', async () => {
    const emulator = await start({ persona: 'strict-groq', faults: [{ kind: 'malformed-chunk' }] });
    const result = await postJson(`${emulator.baseUrl}/chat/completions`, REQUEST);
    expect(result.status).toBe(200);
    expect(result.json).toBeUndefined();
  });

  it('error-chunk: OpenRouter in-band error with finish_reason "error", then [DONE], never a normal finish', async () => {
    const emulator = await start({ persona: 'openrouter', faults: [{ kind: 'error-chunk' }] });
    const { text } = await readStream(`${emulator.baseUrl}/chat/completions`, STREAM_REQUEST);
    const data = sseData(text);
    expect(data[data.length - 1]).toBe('[DONE]');
    const chunks = chunkObjects(text);
    expect(chunks).toHaveLength(4);
    const last = chunks[3] as JsonObject;
    expect(last['error']).toEqual({ code: 502, message: 'Upstream error from provider: connection reset by peer' });
    expect(last['choices']).toEqual([
      {
        index: 0,
        delta: { role: 'assistant', content: '' },
        finish_reason: 'error',
        native_finish_reason: 'error',
        logprobs: null,
      },
    ]);
    expect(text).not.toContain('"finish_reason":"stop"');
  });
});
