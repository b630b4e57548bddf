import { describe, expect, it } from 'vitest';
import { FaultQueue, parseFaults } from '../../../src/emulators/shared/emulator-faults.js';
import { startLoopbackServer, sendJson } from '../../../src/emulators/shared/emulator-http-server.js';
import { redactHeaders, redactQuery } from '../../../src/emulators/shared/emulator-request-log.js';
import {
  openPayload,
  sealPayload,
  signText,
  verifyTextSignature,
} from '../../../src/emulators/shared/emulator-sealing.js';
import { EmulatorSseWriter } from '../../../src/emulators/shared/emulator-sse-writer.js';
import { estimateTokens, splitIntoFragments } from '../../../src/emulators/shared/emulator-text.js';
import { runScript } from '../../../src/emulators/shared/scripted-model.js';

// docs/architecture.md: emulators verify signatures (HMAC) and reject altered blocks; these
// shared helpers are what every emulator family builds on.

describe('sealing (verifiable opaque carriers)', () => {
  it('a signature verifies only for the same purpose and text', () => {
    const signature = signText('purpose-a', 'thinking text');
    expect(verifyTextSignature('purpose-a', 'thinking text', signature)).toBe(true);
    expect(verifyTextSignature('purpose-a', 'thinking text ', signature)).toBe(false);
    expect(verifyTextSignature('purpose-b', 'thinking text', signature)).toBe(false);
    expect(verifyTextSignature('purpose-a', 'thinking text', `${signature}x`)).toBe(false);
  });

  it.each([
    [
      'one character changed',
      (token: string) => `${token.slice(0, 10)}${token[10] === 'A' ? 'B' : 'A'}${token.slice(11)}`,
    ],
    ['truncated', (token: string) => token.slice(0, -4)],
    ['extra junk base64 would skip', (token: string) => `${token}!`],
    ['whitespace inserted', (token: string) => `${token.slice(0, 8)} ${token.slice(8)}`],
  ])('a sealed payload opens intact and fails when %s', (_name, alter) => {
    const token = sealPayload('p', { text: 'hello', call: 'call_1' });
    expect(openPayload('p', token)).toEqual({ text: 'hello', call: 'call_1' });
    expect(openPayload('other', token)).toBeUndefined();
    expect(openPayload('p', alter(token))).toBeUndefined();
  });
});

describe('text helpers', () => {
  it.each([
    ['', 12, 0],
    ['short', 12, 1],
    ['Turn 1: the user said "hello there"; a direct answer fits. [nonce:0123456789ab]', 12, 7],
  ])('splitIntoFragments(%j) rejoins exactly', (text, size, minimum) => {
    const fragments = splitIntoFragments(text, size);
    expect(fragments.join('')).toBe(text);
    expect(fragments.length).toBeGreaterThanOrEqual(minimum);
    expect(fragments.every((fragment) => fragment.length > 0)).toBe(true);
  });

  it('splits one 2,400,000-character word in linear time: fragments of the full size', () => {
    // Searching back to the word's start for a space, once per fragment, took minutes here.
    const fragments = splitIntoFragments('w'.repeat(2_400_000));
    expect(fragments).toHaveLength(200_000);
    expect(fragments.every((fragment) => fragment.length === 12)).toBe(true);
  });

  it('still cuts after a space in the second half of a fragment, as before', () => {
    expect(splitIntoFragments('abcd efgh ijkl mnop', 12)).toEqual(['abcd efgh ', 'ijkl mnop']);
    expect(splitIntoFragments('ab cdefghijklmnop', 12)).toEqual(['ab cdefghijk', 'lmnop']);
  });

  it('never splits a surrogate pair', () => {
    const text = 'ab😀cd😀ef😀gh😀';
    for (const fragment of splitIntoFragments(text, 3)) {
      // A lone surrogate does not survive a UTF-8 round trip.
      expect(Buffer.from(fragment, 'utf8').toString('utf8')).toBe(fragment);
    }
  });

  it('estimates four characters per token', () => {
    expect([estimateTokens(''), estimateTokens('abcd'), estimateTokens('abcde')]).toEqual([0, 1, 2]);
  });
});

describe('faults and headers', () => {
  it('parses one fault or a list, rejects unknown kinds, and queues first-in first-out', () => {
    expect(parseFaults({ kind: 'status', status: 429, retryAfterSeconds: 2 })).toEqual([
      { kind: 'status', status: 429, retryAfterSeconds: 2 },
    ]);
    expect(() => parseFaults({ kind: 'explode' })).toThrow(/invalid fault/);
    expect(() => parseFaults({ kind: 'status', status: 42 })).toThrow(/invalid fault/);
    const queue = new FaultQueue([{ kind: 'drop-mid-stream' }]);
    queue.add({ kind: 'error-chunk' });
    expect([queue.take(), queue.take(), queue.take()]).toEqual([
      { kind: 'drop-mid-stream' },
      { kind: 'error-chunk' },
      undefined,
    ]);
  });

  it('redacts every credential header', () => {
    expect(
      redactHeaders({
        Authorization: 'Bearer x',
        'x-api-key': 'k',
        'x-goog-api-key': 'g',
        'api-key': 'a',
        'set-cookie': ['a', 'b'],
      }),
    ).toEqual({
      authorization: 'REDACTED',
      'x-api-key': 'REDACTED',
      'x-goog-api-key': 'REDACTED',
      'api-key': 'REDACTED',
      'set-cookie': 'a, b',
    });
  });

  it('redacts an API key passed in the query string', () => {
    expect(redactQuery(new URLSearchParams('alt=sse&key=AIza-secret'))).toBe('alt=sse&key=REDACTED');
    expect(redactQuery(new URLSearchParams(''))).toBe('');
  });
});

describe('loopback server and SSE writer', () => {
  it('hands the handler the exact body bytes and binds 127.0.0.1', async () => {
    const seen: string[] = [];
    const server = await startLoopbackServer({
      handler: (request, response) => {
        seen.push(`${request.method} ${request.path} ${request.query.get('q') ?? ''} ${request.raw.toString('utf8')}`);
        sendJson(response, 201, { ok: true });
      },
    });
    try {
      expect(server.origin).toBe(`http://127.0.0.1:${server.port}`);
      const response = await fetch(`${server.origin}/x?q=1`, { method: 'POST', body: '{ "a" :1}' });
      expect([response.status, await response.json()]).toEqual([201, { ok: true }]);
      expect(seen).toEqual(['POST /x 1 { "a" :1}']);
    } finally {
      await server.close();
    }
  });

  it('answers 413 to a body over the limit and never calls the handler', async () => {
    let calls = 0;
    const server = await startLoopbackServer({
      maxBodyBytes: 16,
      handler: (_request, response) => {
        calls += 1;
        sendJson(response, 200, {});
      },
    });
    try {
      const small = await fetch(server.origin, { method: 'POST', body: '0123456789abcdef' });
      expect(small.status).toBe(200);
      const large = await fetch(server.origin, { method: 'POST', body: '0123456789abcdefX' });
      expect(large.status).toBe(413);
      expect(await large.json()).toEqual({
        error: { message: 'request body larger than 16 bytes', type: 'too_large' },
      });
      expect(calls).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('a handler crash becomes a 500, not a hung client', async () => {
    const server = await startLoopbackServer({
      handler: () => {
        throw new Error('boom');
      },
    });
    try {
      const response = await fetch(`${server.origin}/`);
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ error: { message: 'emulator crashed: boom', type: 'server_error' } });
    } finally {
      await server.close();
    }
  });

  it('destroy() delivers what was written, then resets the connection', async () => {
    const server = await startLoopbackServer({
      handler: async (_request, response) => {
        const writer = new EmulatorSseWriter(response);
        writer.comment('keep-alive');
        writer.data({ n: 1 });
        writer.data('[DONE]', 'done');
        await writer.destroy();
      },
    });
    try {
      const response = await fetch(server.origin);
      const reader = response.body?.getReader();
      let text = '';
      let failed = false;
      for (let reads = 0; reads < 1000 && reader; reads += 1) {
        try {
          const { done, value } = await reader.read();
          if (done) break;
          text += new TextDecoder().decode(value);
        } catch {
          failed = true;
          break;
        }
      }
      expect(text).toBe(': keep-alive\n\ndata: {"n":1}\n\nevent: done\ndata: [DONE]\n\n');
      expect(failed).toBe(true);
    } finally {
      await server.close();
    }
  });
});

describe('scripted model: a tool asked for by name', () => {
  const ask = (text: string, tools: string[]) =>
    runScript({ messages: [{ role: 'user', text }], tools }).toolCalls.map(({ name, arguments: args }) => [name, args]);

  it.each([
    ['call the tool mcp__fx__add with {"a": 1, "b": 2}', [['mcp__fx__add', '{"a": 1, "b": 2}']]],
    ['please call tool mcp__fx__fail', [['mcp__fx__fail', '{}']]],
    ['call the tool mcp__fx__missing with {}', []],
  ])('%j', (text, expected) => {
    expect(ask(text, ['mcp__fx__add', 'mcp__fx__fail', 'read_file'])).toEqual(expected);
  });
});
