import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { requestLogLimits } from '../../../src/cli/emulate-options.js';
import { startChatEmulator } from '../../../src/emulators/chat-completions/chat-emulator.js';
import {
  keepRequest,
  receivedRequestFrom,
  type ReceivedRequest,
} from '../../../src/emulators/shared/emulator-request-log.js';

// `hermes emulate` keeps a bounded request log (SPEC §26.7): at most `--keep-requests` entries
// (HERMES_EMULATE_KEEP_REQUESTS, default 100) and at most 64 MiB of bodies, oldest dropped first.

const cli = resolve(process.cwd(), 'dist/cli.js');

const entry = (raw: string): ReceivedRequest => ({
  method: 'POST',
  path: '/v1/chat/completions',
  query: '',
  headers: {},
  raw,
  body: undefined,
  status: 0,
});

describe('receivedRequestFrom', () => {
  const request = (text: string) => ({
    method: 'POST',
    path: '/v1/chat/completions',
    query: new URLSearchParams('key=secret&alt=sse'),
    headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
    raw: Buffer.from(text, 'utf8'),
  });

  it('gives the handler the parsed body and logs the exact text, credentials redacted', () => {
    const text = '{"model":"m","messages":[{"role":"user","content":"héllo"}]}';
    const { entry, body } = receivedRequestFrom(request(text));
    expect(body).toEqual({ model: 'm', messages: [{ role: 'user', content: 'héllo' }] });
    expect(entry.raw).toBe(text);
    expect(entry.query).toBe('key=REDACTED&alt=sse');
    expect(entry.headers['authorization']).toBe('REDACTED');
    // The entry parses its own copy when read: the handler's objects are not kept by the log.
    expect(entry.body).toEqual(body);
    expect(entry.body).not.toBe(body);
    expect(entry.body).toBe(entry.body);
    expect(JSON.parse(JSON.stringify(entry)).body).toEqual(body);
  });

  it('logs a body that is not JSON with an undefined body', () => {
    const { entry, body } = receivedRequestFrom(request('{not json'));
    expect(body).toBeUndefined();
    expect(entry.body).toBeUndefined();
    expect(entry.raw).toBe('{not json');
  });
});

describe('keepRequest', () => {
  it('keeps the newest entries within the count', () => {
    const log: ReceivedRequest[] = [];
    for (let index = 0; index < 250; index += 1) keepRequest(log, entry(`request ${index}`), { maxRequests: 100 });
    expect(log).toHaveLength(100);
    expect(log[0]?.raw).toBe('request 150');
    expect(log.at(-1)?.raw).toBe('request 249');
  });

  it('keeps the body bytes within the byte bound, and always the newest entry', () => {
    const log: ReceivedRequest[] = [];
    const limits = { maxRequests: 1000, maxBytes: 10_000 };
    for (let index = 0; index < 50; index += 1) keepRequest(log, entry('x'.repeat(1000)), limits);
    const bytes = log.reduce((total, kept) => total + kept.raw.length * 2, 0);
    expect(bytes).toBeLessThanOrEqual(limits.maxBytes);
    expect(log).toHaveLength(5);
    keepRequest(log, entry('y'.repeat(20_000)), limits);
    expect(log.map((kept) => kept.raw[0])).toEqual(['y']);
  });

  it('keeps everything without limits (the in-process emulators of the tests)', () => {
    const log: ReceivedRequest[] = [];
    for (let index = 0; index < 300; index += 1) keepRequest(log, entry(String(index)), undefined);
    expect(log).toHaveLength(300);
  });

  it('takes the default and the environment, and refuses a count that is not one', () => {
    expect(requestLogLimits({}, {}).maxRequests).toBe(100);
    expect(requestLogLimits({}, { HERMES_EMULATE_KEEP_REQUESTS: '7' }).maxRequests).toBe(7);
    expect(requestLogLimits({ keepRequests: 3 }, { HERMES_EMULATE_KEEP_REQUESTS: '7' }).maxRequests).toBe(3);
    expect(() => requestLogLimits({}, { HERMES_EMULATE_KEEP_REQUESTS: 'lots' })).toThrow(
      'HERMES_EMULATE_KEEP_REQUESTS must be a whole number of requests (0 keeps none), got "lots"',
    );
  });
});

describe('an emulator with a bounded log', () => {
  it('serves many large requests while its log stays at the bound', async () => {
    const emulator = await startChatEmulator({ persona: 'deepseek', requestLog: { maxRequests: 4, maxBytes: 1e9 } });
    try {
      const padding = 'lorem ipsum '.repeat(20_000);
      for (let index = 0; index < 12; index += 1) {
        const response = await fetch(`${emulator.baseUrl}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer test' },
          body: JSON.stringify({
            model: 'deepseek-v4-flash',
            messages: [{ role: 'user', content: `turn ${index} ${padding}` }],
          }),
        });
        expect(response.status).toBe(200);
        await response.text();
        expect(emulator.requests.length).toBeLessThanOrEqual(4);
      }
      expect(emulator.requests.map((kept) => /turn (\d+)/.exec(kept.raw)?.[1])).toEqual(['8', '9', '10', '11']);
    } finally {
      await emulator.close();
    }
  });
});

describe('hermes emulate --keep-requests', () => {
  it.each([
    ['the flag', ['--keep-requests', '2'], {}],
    ['the environment', [], { HERMES_EMULATE_KEEP_REQUESTS: '2' }],
  ])('bounds GET /_emulator/requests (%s)', async (_name, flags, environment) => {
    const child = spawn(process.execPath, [cli, 'emulate', 'chat', '--persona', 'deepseek', ...flags, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...environment },
    });
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    try {
      const line = await new Promise<string>((done) => createInterface({ input: child.stdout }).once('line', done));
      const baseUrl = /listening on (\S+)$/.exec(line)?.[1];
      expect(baseUrl, line).toBeDefined();
      for (let index = 0; index < 5; index += 1) {
        const response = await fetch(`${baseUrl}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer test' },
          body: JSON.stringify({ model: 'deepseek-v4-flash', messages: [{ role: 'user', content: `turn ${index}` }] }),
        });
        await response.text();
      }
      const origin = new URL(baseUrl as string).origin;
      const log = (await (await fetch(`${origin}/_emulator/requests`)).json()) as ReceivedRequest[];
      expect(log.map((kept) => /turn (\d+)/.exec(kept.raw)?.[1])).toEqual(['3', '4']);
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });

  it('refuses a count that is not one, in one line', async () => {
    const child = spawn(process.execPath, [cli, 'emulate', 'chat', '--persona', 'deepseek', '--keep-requests', '-1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((done) => child.on('exit', (exit) => done(exit)));
    expect(code).toBe(2);
    expect(stderr.trim()).toMatch(/--keep-requests must be a whole number of requests \(0 keeps none\), got "-1"$/);
  });
});
