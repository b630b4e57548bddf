import { describe, expect, it } from 'vitest';
import { AbortError, BadRequestError, ConnectionError, RateLimitError } from '../../../src/core/errors.js';
import {
  jsonRequestHeaders,
  redactSecret,
  requestIdFromHeaders,
  trimBody,
} from '../../../src/transports/shared/transport-http.js';
import {
  abortableSleep,
  backoffDelayMs,
  parseRetryAfterMs,
  runWithRetries,
} from '../../../src/transports/shared/transport-retry.js';
import { ServerSentEventFramer } from '../../../src/transports/shared/transport-sse-reader.js';
import { ThinkTagSplitter } from '../../../src/transports/shared/transport-think-tags.js';

/** Shared transport helpers: SSE framing, retry/backoff, HTTP helpers, think-tag splitting. */

/** The event data a framer hands over when `bytes` arrive in two reads, cut at byte `cut`. */
function framedInTwo(bytes: Uint8Array, cut: number): string[] {
  const data: string[] = [];
  const framer = new ServerSentEventFramer((value) => data.push(value));
  framer.push(bytes.subarray(0, cut));
  framer.push(bytes.subarray(cut));
  framer.end();
  return data;
}

describe('ServerSentEventFramer', () => {
  it('survives a UTF-8 character split across reads, drops comments, flushes a final event without its blank line', () => {
    const bytes = new TextEncoder().encode(': OPENROUTER PROCESSING\n\ndata: {"t":"15 × 27"}\n\ndata: [DONE]\n');
    const cut = bytes.indexOf(0xc3) + 1; // inside the two-byte "×"
    expect(framedInTwo(bytes, cut)).toEqual(['{"t":"15 × 27"}', '[DONE]']);
  });

  it('hands over each event data, multi-line data joined, event names and CRLF framing dropped', () => {
    const data: string[] = [];
    const framer = new ServerSentEventFramer((text) => data.push(text));
    framer.push(new TextEncoder().encode('event: ping\r\ndata: a\r\n\r\ndata: b\ndata: c\n\n'));
    framer.end();
    expect(data).toEqual(['a', 'b\nc']);
  });

  it('frames every line ending (LF, CRLF, CR) cut anywhere, drops a BOM and the fields decoders do not read', () => {
    const text = '\uFEFFdata: one\r\n\r\ndata:two\r\rid: 7\nretry: 10\nevent: x\ndata\ndata: three\n\ndatum: no\n\n';
    const bytes = new TextEncoder().encode(text);
    for (let cut = 0; cut <= bytes.length; cut += 1) {
      expect(framedInTwo(bytes, cut), `cut at ${cut}`).toEqual(['one', 'two', '\nthree']);
    }
  });

  it('splits a multi-byte character at every byte boundary without damage', () => {
    const bytes = new TextEncoder().encode('data: {"t":"über — 😊"}\n\n');
    for (let cut = 0; cut <= bytes.length; cut += 1) {
      expect(framedInTwo(bytes, cut)).toEqual(['{"t":"über — 😊"}']);
    }
  });
});

describe('retry helpers', () => {
  it.each([
    { headers: { 'retry-after': '2' }, expected: 2000 },
    { headers: { 'retry-after': '0.5' }, expected: 500 },
    { headers: { 'retry-after-ms': '1500', 'retry-after': '9' }, expected: 1500 },
    { headers: { 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }, expected: 3000 },
    { headers: { 'retry-after': 'soon' }, expected: undefined },
    { headers: {}, expected: undefined },
  ])('parseRetryAfterMs($headers) = $expected', ({ headers, expected }) => {
    expect(parseRetryAfterMs(new Headers(headers), Date.parse('Thu, 01 Jan 2026 00:00:00 GMT'))).toBe(expected);
  });

  it('backoff doubles from 500 ms, is capped, and jitter only shortens', () => {
    expect([1, 2, 3, 4, 5, 6].map((attempt) => backoffDelayMs(attempt, {}, () => 0))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000,
    ]);
    expect(backoffDelayMs(1, {}, () => 0.999)).toBe(375);
  });

  it('retries retryable errors with notices, honours retryAfterMs, stops at maxAttempts', async () => {
    const waits: number[] = [];
    const notices: number[] = [];
    let calls = 0;
    const rateLimited = new RateLimitError('429', { status: 429, body: '', retryAfterMs: 1234 }, true);
    await expect(
      runWithRetries(
        {
          maxAttempts: 3,
          sleep: async (ms) => void waits.push(ms),
          random: () => 0,
          onRetry: (notice) => notices.push(notice.attempt),
        },
        async () => {
          calls += 1;
          throw calls === 1 ? rateLimited : new ConnectionError('reset', { retryable: true });
        },
      ),
    ).rejects.toBeInstanceOf(ConnectionError);
    expect(calls).toBe(3);
    expect(waits).toEqual([1234, 1000]);
    expect(notices).toEqual([2, 3]);
  });

  it('does not retry a non-retryable error, nor a retry-after beyond the limit', async () => {
    let calls = 0;
    const badRequest = new BadRequestError('400', { status: 400, body: '' });
    await expect(
      runWithRetries({ maxAttempts: 3, sleep: async () => undefined }, async () => {
        calls += 1;
        throw badRequest;
      }),
    ).rejects.toBe(badRequest);
    const daily = new RateLimitError('429', { status: 429, body: '', retryAfterMs: 3_600_000 }, true);
    await expect(
      runWithRetries({ maxAttempts: 3, sleep: async () => undefined }, async () => {
        calls += 1;
        throw daily;
      }),
    ).rejects.toBe(daily);
    expect(calls).toBe(2);
  });

  it('abortableSleep rejects with AbortError when aborted', async () => {
    const controller = new AbortController();
    const waiting = abortableSleep(60_000, controller.signal);
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(AbortError);
  });
});

describe('HTTP helpers', () => {
  it('headers carry authorization only with a key', () => {
    expect(jsonRequestHeaders({ stream: true })).toEqual({
      'content-type': 'application/json',
      accept: 'text/event-stream',
    });
    expect(jsonRequestHeaders({ apiKey: 'sk-1', stream: false })).toEqual({
      'content-type': 'application/json',
      accept: 'application/json',
      authorization: 'Bearer sk-1',
    });
  });

  it('request ids, trimming, redaction', () => {
    expect(requestIdFromHeaders(new Headers({ 'cf-ray': 'ray', 'x-request-id': 'req_1' }))).toBe('req_1');
    expect(requestIdFromHeaders(new Headers({ 'cf-ray': 'ray' }))).toBe('ray');
    expect(trimBody('  abcdef  ', 3)).toBe('abc… [3 more characters]');
    expect(redactSecret('bad key sk-secret-1 given', 'sk-secret-1')).toBe('bad key [redacted] given');
  });
});

describe('ThinkTagSplitter', () => {
  it('holds a possible tag prefix and releases it when it turns out to be text', () => {
    const splitter = new ThinkTagSplitter();
    expect(splitter.push('a <t')).toEqual([{ kind: 'text', text: 'a ' }]);
    expect(splitter.push('able>')).toEqual([{ kind: 'text', text: '<table>' }]);
    expect(splitter.push('<thinking>x')).toEqual([{ kind: 'think', text: 'x' }]);
    expect(splitter.end()).toEqual([]);
  });

  it('an unclosed think block stays reasoning at the end', () => {
    const splitter = new ThinkTagSplitter();
    expect([...splitter.push('<think>half'), ...splitter.push(' a thought</thi'), ...splitter.end()]).toEqual([
      { kind: 'think', text: 'half' },
      { kind: 'think', text: ' a thought' },
      { kind: 'think', text: '</thi' },
    ]);
  });
});

describe('ServerSentEventFramer decoding', () => {
  const framedIn = (pieces: Uint8Array[]): string[] => {
    const data: string[] = [];
    const framer = new ServerSentEventFramer((text) => data.push(text));
    for (const piece of pieces) framer.push(piece);
    framer.end();
    return data;
  };
  const bytes = (...parts: (string | number[])[]) =>
    parts.map((part) => (typeof part === 'string' ? new TextEncoder().encode(part) : new Uint8Array(part)));

  it('reads ASCII reads as they are and keeps a character split after them whole', () => {
    // "é" is C3 A9: an ASCII read, then one ending in C3, then one starting with A9.
    expect(framedIn(bytes('data: {"t":"ab', 'c', [0xc3], [0xa9, 0x22, 0x7d, 0x0a, 0x0a]))).toEqual(['{"t":"abcé"}']);
    expect(framedIn(bytes('data: {"t":"', [0xf0, 0x9f], [0x98, 0x8a], '"}\n\ndata: x\n\n'))).toEqual([
      '{"t":"😊"}',
      'x',
    ]);
  });

  it('drops a byte order mark at the start of the stream only', () => {
    expect(framedIn(bytes([0xef, 0xbb, 0xbf], 'data: a\n\n'))).toEqual(['a']);
    // After an ASCII read, U+FEFF is text like any other character.
    expect(framedIn(bytes('data: "', [0xef, 0xbb, 0xbf], '"\n\n'))).toEqual(['"\uFEFF"']);
  });

  it('gives what TextDecoder gives for bytes that are not UTF-8', () => {
    const bad = [0x64, 0x61, 0x74, 0x61, 0x3a, 0x20, 0xff, 0x41, 0xe2, 0x82, 0x0a, 0x0a];
    const expected = new TextDecoder()
      .decode(new Uint8Array(bad))
      .replace(/^data: /, '')
      .replace(/\n\n$/, '');
    for (let cut = 0; cut <= bad.length; cut += 1) {
      expect(framedIn([new Uint8Array(bad.slice(0, cut)), new Uint8Array(bad.slice(cut))]), `cut at ${cut}`).toEqual([
        expected,
      ]);
    }
  });
});
