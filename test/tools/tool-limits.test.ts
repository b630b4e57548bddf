import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { executeToolCall } from '../../src/tools/tool-registry.js';
import { headAndTail, limitOutput } from '../../src/tools/tool-limits.js';
import type { Tool } from '../../src/tools/tool-types.js';

/** Every tool call runs under a deadline and the turn's abort signal, whatever the tool does. */

const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-limits-')));
const allow = async () => true;

function tool(run: Tool['run'], deadlineMs: number): Tool {
  return {
    definition: { name: 'slow', description: 'test tool', parameters: { type: 'object' } },
    needsApproval: false,
    deadlineMs,
    run,
  };
}

describe('tool deadlines and interruption', () => {
  it('a tool that honours its signal reports the deadline it hit', async () => {
    const honest = tool(
      (_args, context) =>
        new Promise((_, reject) => context.signal?.addEventListener('abort', () => reject(context.signal?.reason))),
      20,
    );
    expect(await executeToolCall('slow', '{}', { workspace, approve: allow, tools: [honest] })).toEqual({
      content: 'error: slow stopped at its 0.02 s time limit',
      isError: true,
    });
  });

  it('a tool that ignores its signal is cut off anyway, so it cannot hold the turn', async () => {
    const stuck = tool(() => new Promise<string>(() => undefined), 20);
    expect(await executeToolCall('slow', '{}', { workspace, approve: allow, tools: [stuck] })).toEqual({
      content: 'error: slow stopped at its 0.02 s time limit',
      isError: true,
    });
  });

  it('an already interrupted turn runs no tool', async () => {
    let ran = false;
    const eager = tool(async () => {
      ran = true;
      return 'ran';
    }, 1000);
    const controller = new AbortController();
    controller.abort();
    const outcome = await executeToolCall('slow', '{}', {
      workspace,
      approve: allow,
      tools: [eager],
      signal: controller.signal,
    });
    expect([outcome, ran]).toEqual([{ content: 'error: slow was interrupted by the user', isError: true }, false]);
  });

  it('read_file stops reading at the window it returns and says how to read on', async () => {
    writeFileSync(
      join(workspace, 'long.txt'),
      Array.from({ length: 5000 }, (_, index) => `line ${index + 1}`).join('\n'),
    );
    const first = await executeToolCall('read_file', '{"path":"long.txt","limit":2}', { workspace, approve: allow });
    expect(first.content).toBe('line 1\nline 2\n[lines 1-2 shown; the file goes on: read_file with offset 3]');
    const last = await executeToolCall('read_file', '{"path":"long.txt","offset":4999}', { workspace, approve: allow });
    expect(last.content).toBe('line 4999\nline 5000');
    const beyond = await executeToolCall('read_file', '{"path":"long.txt","offset":6000}', {
      workspace,
      approve: allow,
    });
    expect(beyond).toEqual({ content: 'error: offset 6000 is past the end of long.txt', isError: true });
    const whole = await executeToolCall('read_file', '{"path":"long.txt"}', { workspace, approve: allow });
    expect(
      whole.content.endsWith('line 2000\n[lines 1-2000 shown; the file goes on: read_file with offset 2001]'),
    ).toBe(true);
  });

  it('read_file cuts a single huge line at the output cap', async () => {
    writeFileSync(join(workspace, 'minified.js'), `${'x'.repeat(100_000)}\nsecond\n`);
    const outcome = await executeToolCall('read_file', '{"path":"minified.js"}', { workspace, approve: allow });
    expect(outcome.content.endsWith('\n[line 1 cut at 64 KiB; read_file with offset 2 goes on after it]')).toBe(true);
  });

  it('output caps: limitOutput keeps the head, headAndTail keeps both ends', () => {
    expect(limitOutput('abcdef', 4)).toBe('abcd\n[output cut at 4 characters of 6]');
    expect(headAndTail('abcdefgh', 4)).toBe('ab\n[… 4 characters cut from the middle of 8 …]\ngh');
  });
});
