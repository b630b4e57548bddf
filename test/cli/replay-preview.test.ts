import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { scaledTimeout } from '../support/timeouts.js';
import { toolCall } from '../support/messages.js';

// Runs the built CLI (`npm run build` first; `npm test` does it in pretest).
const BIN = resolve(process.cwd(), 'dist/cli.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function hermes(args: string[]): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { timeout: scaledTimeout(30_000), env: { ...process.env, NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

const history = [
  { role: 'user', content: 'hello' },
  {
    role: 'assistant',
    content: 'hi',
    reasoning_content: 'greeting',
    reasoning: 'greeting',
    reasoning_details: [{ type: 'reasoning.text', text: 'greeting' }],
    timestamp: 1,
  },
  { role: 'user', content: 'list files' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [toolCall('t1', 'list_directory', '{"path":"."}')],
    reasoning_details: [{ type: 'hermes.native_assistant', reasoning_opaque: 'OPAQUE-BLOB' }],
  },
  { role: 'tool', tool_call_id: 't1', content: 'notes.txt', tool_name: 'list_directory' },
];
const toolCalls = [toolCall('t1', 'list_directory', '{"path":"."}')];

let file = '';
let original = '';

beforeAll(() => {
  const directory = mkdtempSync(join(tmpdir(), 'hermes-preview-'));
  file = join(directory, 'history.json');
  original = JSON.stringify(history, null, 1);
  writeFileSync(file, original);
});

/** `hermes replay preview --history FILE ARGS` on the history file. */
function preview(...args: string[]) {
  return hermes(['replay', 'preview', '--history', file, ...args]);
}

async function bodyFor(...route: string[]): Promise<{ messages: Record<string, unknown>[] }> {
  const result = await preview(...route, '--json');
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as { messages: Record<string, unknown>[] };
}

const assistantsOf = (body: { messages: Record<string, unknown>[] }) =>
  body.messages.filter((message) => message['role'] === 'assistant');

describe('hermes replay preview (SPEC §5, §6, §7)', () => {
  test('OpenRouter gets all three carriers', async () => {
    expect(assistantsOf(await bodyFor('--provider', 'openrouter', '--model', 'openai/gpt-5'))).toEqual([
      {
        role: 'assistant',
        content: 'hi',
        reasoning_content: 'greeting',
        reasoning: 'greeting',
        reasoning_details: [{ type: 'reasoning.text', text: 'greeting' }],
      },
      { role: 'assistant', content: null, tool_calls: toolCalls },
    ]);
  });

  test('Novita gets reasoning_content and reasoning_details', async () => {
    expect(assistantsOf(await bodyFor('--provider', 'novita', '--model', 'm'))[0]).toEqual({
      role: 'assistant',
      content: 'hi',
      reasoning_content: 'greeting',
      reasoning_details: [{ type: 'reasoning.text', text: 'greeting' }],
    });
  });

  test('a local URL gets reasoning_content and reasoning', async () => {
    expect(
      assistantsOf(
        await bodyFor('--provider', 'llamacpp', '--base-url', 'http://127.0.0.1:8080/v1', '--model', 'm'),
      )[0],
    ).toEqual({
      role: 'assistant',
      content: 'hi',
      reasoning_content: 'greeting',
      reasoning: 'greeting',
    });
  });

  test('Mistral gets none', async () => {
    expect(assistantsOf(await bodyFor('--provider', 'mistral', '--model', 'magistral-medium'))).toEqual([
      { role: 'assistant', content: 'hi' },
      { role: 'assistant', content: null, tool_calls: toolCalls },
    ]);
  });

  test('DeepSeek pads the bare tool turn with " "', async () => {
    expect(assistantsOf(await bodyFor('--provider', 'deepseek', '--model', 'deepseek-v4-pro'))).toEqual([
      { role: 'assistant', content: 'hi', reasoning_content: 'greeting' },
      { role: 'assistant', content: null, tool_calls: toolCalls, reasoning_content: ' ' },
    ]);
  });

  test('the Copilot record lifts reasoning_opaque only on a githubcopilot.com base URL', async () => {
    const copilot = assistantsOf(
      await bodyFor(
        '--provider',
        'custom',
        '--base-url',
        'https://api.githubcopilot.com',
        '--model',
        'claude-sonnet-4',
      ),
    );
    expect(copilot[1]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: toolCalls,
      reasoning_opaque: 'OPAQUE-BLOB',
    });
    const elsewhere = assistantsOf(
      await bodyFor('--provider', 'custom', '--base-url', 'https://copilot.example.com', '--model', 'claude-sonnet-4'),
    );
    expect(elsewhere[1]).toEqual({ role: 'assistant', content: null, tool_calls: toolCalls });
  });

  test('--rejected simulates learned verdicts; --reasoning-echo pads a non-tier route', async () => {
    const rejected = assistantsOf(
      await bodyFor('--provider', 'openrouter', '--model', 'x', '--rejected', 'reasoning,reasoning_details'),
    );
    expect(rejected[0]).toEqual({ role: 'assistant', content: 'hi', reasoning_content: 'greeting' });
    const echoed = assistantsOf(await bodyFor('--provider', 'openrouter', '--model', 'x', '--reasoning-echo'));
    expect(echoed[1]).toEqual({ role: 'assistant', content: null, tool_calls: toolCalls, reasoning_content: ' ' });
  });

  test('--explain prints one row per message with the reason for each decision', async () => {
    const result = await preview('--provider', 'mistral', '--model', 'm', '--explain');
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').filter((line) => line !== '')).toEqual([
      'route mistral|api.mistral.ai|m · chat_completions · table row: strict (reads no reasoning carrier) · must echo: no',
      '#  role       carriers',
      '0  user       -',
      '1  assistant  dropped reasoning_content (strict route, 8 B)',
      '              dropped reasoning (strict route, 8 B)',
      '              dropped reasoning_details (strict route, 22 B)',
      '2  user       -',
      '3  assistant  dropped reasoning_opaque (not read by route, 11 B)',
      '4  tool       -',
    ]);
  });

  test('default output is the table plus a one-line summary', async () => {
    const result = await preview('--provider', 'deepseek', '--model', 'deepseek-v4-pro');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toContain('3  assistant  padded reasoning_content (must-echo pad (deepseek), 1 B)');
    expect(lines.at(-1)).toBe(
      'route deepseek|api.deepseek.com|deepseek-v4-pro · api chat_completions · carriers reasoning_content · pad yes · sent reasoning_content',
    );
  });

  test('JSON lines history works the same as a JSON array', async () => {
    const lines = join(mkdtempSync(join(tmpdir(), 'hermes-preview-')), 'history.jsonl');
    writeFileSync(lines, history.map((message) => JSON.stringify(message)).join('\n'));
    const result = await hermes([
      'replay',
      'preview',
      '--history',
      lines,
      '--provider',
      'openrouter',
      '--model',
      'openai/gpt-5',
      '--json',
    ]);
    expect(JSON.parse(result.stdout)).toEqual(await bodyFor('--provider', 'openrouter', '--model', 'openai/gpt-5'));
  });

  test('the input file is byte-identical afterwards', () => {
    expect(readFileSync(file, 'utf8')).toBe(original);
  });
});

describe('hermes replay preview: the model of the route', () => {
  test.each([
    ['deepseek', 'deepseek-v4-flash'],
    ['openrouter', 'anthropic/claude-sonnet-4.5'],
  ])(
    '--provider %s without --model previews the provider default model (%s), as hermes chat uses',
    async (provider, model) => {
      const body = (await bodyFor('--provider', provider)) as unknown as { model: string };
      expect(body.model).toBe(model);
    },
  );
});

describe('hermes replay preview: bad input exits 2 with one line', () => {
  test.each([
    [
      ['--history', '/nonexistent/history.json', '--provider', 'openrouter'],
      /^hermes: cannot read history file ".*": no such file$/,
    ],
    [['--provider', 'openrouter', '--api', 'soap'], /^hermes: unknown --api "soap"/],
    [['--provider', 'openrouter', '--rejected', 'thinking'], /^hermes: unknown --rejected field "thinking"/],
    [['--model', 'x'], /^hermes: --provider is required/],
    [['--provider', 'nope'], /^hermes: unknown provider "nope"/],
    [
      ['--provider', 'custom', '--base-url', 'http://127.0.0.1:9/v1'],
      /^hermes: no model for provider "custom": pass --model$/,
    ],
  ])('%j', async (args, message) => {
    const withHistory = args.includes('--history') ? args : ['--history', file, ...args];
    const result = await hermes(['replay', 'preview', ...withHistory]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr.trim()).toMatch(message);
  });

  test('invalid JSON and an invalid message are usage errors naming the problem', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'hermes-preview-'));
    const broken = join(directory, 'broken.json');
    writeFileSync(broken, '[{"role":"user",');
    const bad = join(directory, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify([
        { role: 'user', content: 'x' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: 1 } }],
        },
      ]),
    );
    const first = await hermes(['replay', 'preview', '--history', broken, '--provider', 'openrouter']);
    expect([first.code, first.stderr.trim().startsWith('hermes: history is not valid JSON')]).toEqual([2, true]);
    const second = await hermes(['replay', 'preview', '--history', bad, '--provider', 'openrouter']);
    expect([second.code, second.stderr.trim()]).toEqual([
      2,
      'hermes: message 1: "tool_calls[0].function.arguments" must be a string',
    ]);
  });
});
