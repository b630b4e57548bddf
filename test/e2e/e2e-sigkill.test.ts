import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { stateDbPath } from '../../src/storage/store-paths.js';
import { chatJson, resumeArgs, routeArgs, spawnHermes, useE2e } from '../support/e2e.js';

/** A provider that starts streaming a turn and then stalls forever (until the test closes it). */
async function startStallingProvider(): Promise<{ baseUrl: string; streaming: Promise<void>; close(): Promise<void> }> {
  const open: ServerResponse[] = [];
  let markStreaming: () => void = () => undefined;
  const streaming = new Promise<void>((resolve) => (markStreaming = resolve));
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: object) =>
        `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
      response.write(chunk({ role: 'assistant', content: null, reasoning_content: 'Half a thought' }));
      response.write(chunk({ content: 'Half an ans' }));
      open.push(response);
      markStreaming();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    streaming,
    close: () =>
      new Promise((resolve) => {
        for (const response of open) response.destroy();
        server.close(() => resolve());
      }),
  };
}

const e2e = useE2e();

describe('a process killed mid-stream', () => {
  it('SIGKILL during a streamed turn leaves a database that opens, intact earlier turns, and a working --resume', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const sandbox = e2e.sandbox();
    const route = (baseUrl: string) => routeArgs('deepseek', 'deepseek-v4-flash', baseUrl);
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route(emulator.baseUrl)]);
    const database = () => new Database(stateDbPath(sandbox.home));
    const counting = database();
    const countBefore = (counting.prepare('SELECT COUNT(*) AS n FROM messages').get() as { n: number }).n;
    counting.close();

    const stalling = await startStallingProvider();
    const child = spawnHermes(
      ['chat', '--resume', first.session_id, '-q', 'and now?', ...route(stalling.baseUrl)],
      sandbox,
    );
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    );
    await stalling.streaming;
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    await stalling.close();

    const db = database();
    expect((db.prepare('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check).toBe('ok');
    const rows = db
      .prepare('SELECT seq, role FROM messages WHERE session_id = ? ORDER BY seq')
      .all(first.session_id) as {
      seq: number;
      role: string;
    }[];
    db.close();
    // Earlier turns are intact; the killed turn left only its user message (no half assistant message).
    expect(rows.length).toBe(countBefore + 1);
    expect(rows.map((row) => row.seq)).toEqual(rows.map((_row, index) => index + 1));
    expect(rows.at(-1)?.role).toBe('user');

    const before = emulator.requests.length;
    const resumed = await chatJson(sandbox, [...resumeArgs(first.session_id, 'try again'), ...route(emulator.baseUrl)]);
    expect(resumed.answer).toContain('Reasoning continuity: intact');
    expect(emulator.requests.slice(before).every((request) => request.status === 200)).toBe(true);
  });
});
