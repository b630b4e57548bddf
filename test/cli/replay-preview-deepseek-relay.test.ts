import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { scaledTimeout } from '../support/timeouts.js';

/**
 * The DeepSeek rule of Anthropic-compatible relays (SPEC §24.1) is for DeepSeek's thinking models
 * only (the reasoner, R1 and V4 families): `deepseek-chat` and `deepseek-coder` behind a generic
 * relay are third-party routes that get no thinking block. DeepSeek's own `/anthropic` endpoint
 * keeps the rule for every model. Runs the built CLI (`npm run build` first).
 */

const BIN = resolve(process.cwd(), 'dist/cli.js');
const RELAY = 'https://gateway.example.com/anthropic';

const history = [
  { role: 'user', content: 'read notes.txt' },
  {
    role: 'assistant',
    content: null,
    reasoning_content: 'I should read the file.',
    tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"notes.txt"}' } },
    ],
    origin: { api: 'chat_completions', provider: 'deepseek', host: 'api.deepseek.com', model: 'deepseek-v4-flash' },
  },
  { role: 'tool', tool_call_id: 'call_1', tool_name: 'read_file', content: 'alpha beta' },
];

let file = '';
beforeAll(() => {
  file = join(mkdtempSync(join(tmpdir(), 'hermes-ds-relay-')), 'ds.json');
  writeFileSync(file, JSON.stringify(history));
});

/** The block types of the assistant turn `replay preview --json` would send. */
function assistantBlocks(model: string, baseUrl: string): Promise<string[]> {
  const args = ['replay', 'preview', '--history', file, '--provider', 'anthropic', '--model', model];
  args.push('--api', 'anthropic_messages', '--base-url', baseUrl, '--json');
  return new Promise((done, fail) => {
    execFile(process.execPath, [BIN, ...args], { timeout: scaledTimeout(30_000) }, (error, stdout, stderr) => {
      if (error) return fail(new Error(stderr || error.message));
      const body = JSON.parse(stdout) as { messages: { role: string; content: { type: string }[] | string }[] };
      const assistant = body.messages.find((message) => message.role === 'assistant');
      done(Array.isArray(assistant?.content) ? assistant.content.map((block) => block.type) : []);
    });
  });
}

describe('a DeepSeek model behind an Anthropic-compatible relay (SPEC §24.1)', () => {
  it.each(['deepseek-chat', 'deepseek-coder'])('%s, not a thinking model: no thinking block', async (model) => {
    expect(await assistantBlocks(model, RELAY)).toEqual(['tool_use']);
  });

  it.each(['deepseek-reasoner', 'deepseek-r1', 'deepseek-v4-flash', 'deepseek-ai/DeepSeek-V4-Pro'])(
    '%s, a thinking model: its tool loop gets the readable thinking back, unsigned',
    async (model) => {
      expect(await assistantBlocks(model, RELAY)).toEqual(['thinking', 'tool_use']);
    },
  );

  it("DeepSeek's own /anthropic endpoint keeps the rule for every model", async () => {
    expect(await assistantBlocks('deepseek-chat', 'https://api.deepseek.com/anthropic')).toEqual([
      'thinking',
      'tool_use',
    ]);
  });
});
