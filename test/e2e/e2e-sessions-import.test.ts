import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { carrierText, sentThinkingBlocks, type Block } from '../support/carriers.js';
import { chatJson, parseJson, routeArgs, runHermes, showSession, useE2e, type Sandbox } from '../support/e2e.js';
import { fixturePath, readFixtureText } from '../support/fixtures.js';

/**
 * `hermes sessions import --from claude|codex` on transcripts written in the public formats
 * (test/fixtures/imports): what is stored, and a resumed turn on the issuer's emulator — reached
 * at the issuer's real origin through HERMES_CONNECT_TO — whose recorded request carries every
 * imported signature, redacted blob and encrypted_content byte for byte, while another route
 * gets the readable reasoning only (SPEC §9, §12, §23.2).
 */

const e2e = useE2e();

const CLAUDE = 'imports/claude-code-session.jsonl';
const CODEX = 'imports/rollout-2026-11-27T16-40-01-019ac4d2-6f3b-7e21-a8c4-3d9f0b1e5a72.jsonl';

interface Imported {
  session_id: string;
  title: string;
  workspace: string;
  provider: string;
  model: string;
  base_url: string | null;
  messages: number;
  kept: Record<string, number>;
}

async function importFixture(sandbox: Sandbox, from: 'claude' | 'codex', fixture: string): Promise<Imported> {
  const run = await runHermes(['sessions', 'import', '--from', from, fixturePath(fixture), '--json'], sandbox);
  if (run.code !== 0) throw new Error(`import exited ${run.code}: ${run.stderr}`);
  return parseJson<Imported>(run);
}

/** The fixture's records of one type, parsed. */
function fixtureRecords(fixture: string): Record<string, unknown>[] {
  return readFixtureText(fixture)
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The Anthropic thinking blocks of the Claude Code fixture, per API response, as written. */
function claudeThinkingBlocks(): Block[][] {
  const byResponse = new Map<string, Block[]>();
  for (const record of fixtureRecords(CLAUDE)) {
    const message = record['message'] as { id?: string; content?: unknown } | undefined;
    if (record['type'] !== 'assistant' || !message?.id || !Array.isArray(message.content)) continue;
    const blocks = (message.content as Block[]).filter((block) => String(block['type']).endsWith('thinking'));
    byResponse.set(message.id, [...(byResponse.get(message.id) ?? []), ...blocks]);
  }
  return [...byResponse.values()];
}

/** Every `encrypted_content` of the Codex fixture, in order. */
function codexBlobs(): string[] {
  return fixtureRecords(CODEX)
    .map((record) => record['payload'] as Record<string, unknown>)
    .filter((payload) => payload['type'] === 'reasoning')
    .map((payload) => String(payload['encrypted_content']));
}

describe('hermes sessions import --from claude', () => {
  it('stores the turns, the signed blocks as Anthropic returned them, the origin and the workspace', async () => {
    const sandbox = e2e.sandbox();
    const imported = await importFixture(sandbox, 'claude', CLAUDE);
    expect(imported).toMatchObject({
      title: 'Tokenizer splits negative numbers',
      workspace: '/home/dev/acme-parser',
      provider: 'anthropic',
      model: 'claude-opus-4-5-20251101',
      base_url: null,
      messages: 4,
      kept: { signed_thinking: 2, redacted_thinking: 1, encrypted_reasoning: 0 },
    });
    const shown = await showSession<{
      model_config: Record<string, unknown>;
      messages: (Message & Record<string, unknown>)[];
    }>(sandbox, imported.session_id);
    expect(shown.model_config).toMatchObject({
      workspace: '/home/dev/acme-parser',
      imported_from: { tool: 'claude-code', session_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7', version: '2.0.37' },
    });
    expect(shown.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    const assistants = shown.messages.filter((message) => message.role === 'assistant');
    // One API response written as three records comes back as one message, blocks in order.
    expect(
      assistants.map((message) => (message['anthropic_content_blocks'] as Block[]).map((block) => block['type'])),
    ).toEqual([
      ['thinking', 'text', 'tool_use'],
      ['thinking', 'redacted_thinking', 'text'],
    ]);
    expect(
      assistants.map((message) =>
        (message['anthropic_content_blocks'] as Block[]).filter((block) => String(block['type']).endsWith('thinking')),
      ),
    ).toEqual(claudeThinkingBlocks());
    expect(assistants.map((message) => message['origin'])).toEqual([
      {
        api: 'anthropic_messages',
        provider: 'anthropic',
        host: 'api.anthropic.com',
        model: 'claude-opus-4-5-20251101',
      },
      {
        api: 'anthropic_messages',
        provider: 'anthropic',
        host: 'api.anthropic.com',
        model: 'claude-opus-4-5-20251101',
      },
    ]);
    expect(shown.messages[2]).toMatchObject({
      role: 'tool',
      tool_call_id: 'toolu_01QhT3kN7yW2rD5cV8bX1mZa',
      tool_name: 'Read',
    });
  });

  it('a resumed turn on the Anthropic API (emulated) replays every signature and redacted blob byte for byte', async () => {
    const emulator = await e2e.anthropic();
    const sandbox = e2e.sandbox();
    const imported = await importFixture(sandbox, 'claude', CLAUDE);
    // The session's own route: api.anthropic.com, mapped onto the emulator; no route flags.
    const env = {
      HERMES_CONNECT_TO: `https://api.anthropic.com=${new URL(emulator.baseUrl).origin}`,
      ANTHROPIC_API_KEY: 'k',
    };
    const resumed = await chatJson(sandbox, ['--resume', imported.session_id, '-q', 'and how do I fix it?'], env);
    expect(resumed.answer).toContain('You said: and how do I fix it?');
    const request = emulator.requests[0];
    expect(request?.status).toBe(200);
    expect((request?.body as { model: string }).model).toBe('claude-opus-4-5-20251101');
    expect(sentThinkingBlocks(request?.body)).toEqual(claudeThinkingBlocks());
    for (const block of claudeThinkingBlocks().flat()) expect(request?.raw).toContain(carrierText(block));
  });

  it('a resume on another route gets the readable thinking, never a signature', async () => {
    const { emulator, sandbox, route } = await e2e.chatRoute({ persona: 'deepseek' }, 'deepseek', 'deepseek-v4-flash');
    const imported = await importFixture(sandbox, 'claude', CLAUDE);
    await chatJson(sandbox, ['--resume', imported.session_id, '-q', 'summarise', ...route]);
    const raw = emulator.requests[0]?.raw ?? '';
    expect(emulator.requests[0]?.status).toBe(200);
    for (const block of claudeThinkingBlocks().flat()) {
      expect(raw).not.toContain(String(block['type'] === 'thinking' ? block['signature'] : block['data']));
      if (block['type'] === 'thinking') expect(raw).toContain(JSON.stringify(block['thinking']));
    }
  });
});

describe('hermes sessions import --from codex', () => {
  it('stores the Responses items with their encrypted_content, stamped with the ChatGPT Codex backend', async () => {
    const sandbox = e2e.sandbox();
    const imported = await importFixture(sandbox, 'codex', CODEX);
    expect(imported).toMatchObject({
      title: 'Why does GET /health return 500 right after start?',
      workspace: '/home/dev/acme-api',
      provider: 'openai',
      model: 'gpt-5.1-codex',
      base_url: 'https://chatgpt.com/backend-api/codex',
      messages: 5,
      kept: { signed_thinking: 0, redacted_thinking: 0, encrypted_reasoning: 2 },
    });
    const shown = await showSession<{ messages: (Message & Record<string, unknown>)[] }>(sandbox, imported.session_id);
    expect(shown.messages.map((message) => message.role)).toEqual(['user', 'user', 'assistant', 'tool', 'assistant']);
    const items = shown.messages.flatMap((message) => (message['codex_reasoning_items'] as Block[] | undefined) ?? []);
    expect(items.map((item) => item['encrypted_content'])).toEqual(codexBlobs());
    expect(items.map((item) => item['_issuer_kind'])).toEqual(['codex_backend', 'codex_backend']);
    expect(items[0]?.['_precedes_call_id']).toBe('call_Qm3xT8vK2pLr9sWd4hYz7nBc');
    expect(shown.messages[2]?.['origin']).toEqual({
      api: 'codex_responses',
      provider: 'openai',
      host: 'chatgpt.com',
      model: 'gpt-5.1-codex',
    });
  });

  it('a resumed turn on the issuer (emulated) sends every encrypted_content byte for byte and the reasoning comes back intact', async () => {
    const emulator = await e2e.responses();
    const sandbox = e2e.sandbox();
    const imported = await importFixture(sandbox, 'codex', CODEX);
    const env = { HERMES_CONNECT_TO: `https://chatgpt.com=${new URL(emulator.baseUrl).origin}`, OPENAI_API_KEY: 'k' };
    const resumed = await chatJson(sandbox, ['--resume', imported.session_id, '-q', 'so what should I change?'], env);
    expect(resumed.answer).toContain('Reasoning continuity: intact (2/2).');
    const request = emulator.requests[0];
    expect(request?.path).toBe('/backend-api/codex/responses');
    expect(request?.status).toBe(200);
    const sent = ((request?.body as { input: Block[] }).input ?? []).filter((item) => item['type'] === 'reasoning');
    expect(sent.map((item) => item['encrypted_content'])).toEqual(codexBlobs());
    for (const blob of codexBlobs()) expect(request?.raw).toContain(`"encrypted_content":${JSON.stringify(blob)}`);
  });

  it('another route gets the readable summaries, never the encrypted_content', async () => {
    const other = await e2e.responses({ issuer: 'another-deployment' });
    const sandbox = e2e.sandbox();
    const imported = await importFixture(sandbox, 'codex', CODEX);
    const route = routeArgs('openai', 'gpt-5.1-codex', other.baseUrl, 'k', 'codex_responses');
    await chatJson(sandbox, ['--resume', imported.session_id, '-q', 'and then?', ...route]);
    expect(other.requests[0]?.status).toBe(200);
    for (const blob of codexBlobs()) expect(other.requests[0]?.raw).not.toContain(blob);
    const { emulator: chat, route: chatRoute } = await e2e.chatRoute(
      { persona: 'deepseek' },
      'deepseek',
      'deepseek-v4-flash',
    );
    await chatJson(sandbox, ['--resume', imported.session_id, '-q', 'summarise', ...chatRoute]);
    const raw = chat.requests[0]?.raw ?? '';
    for (const blob of codexBlobs()) expect(raw).not.toContain(blob);
    expect(raw).toContain(
      JSON.stringify('**Finding the health route**\n\nI need to see what GET /health calls before changing anything.'),
    );
  });
});

describe('bad files', () => {
  /** The fixture with line `line` (1-based) replaced. */
  function variant(sandbox: Sandbox, fixture: string, line: number, replacement: string): string {
    const lines = readFixtureText(fixture).split('\n');
    lines[line - 1] = replacement;
    const path = join(sandbox.workspace, 'bad.jsonl');
    writeFileSync(path, lines.join('\n'));
    return path;
  }

  const claudeLine = (line: number) => fixtureRecords(CLAUDE)[line - 1] as Record<string, unknown>;
  const unsigned = () => {
    const record = structuredClone(claudeLine(3));
    const content = (record['message'] as { content: Block[] }).content;
    delete content[0]?.['signature'];
    return JSON.stringify(record);
  };
  const orphanResult = () =>
    JSON.stringify({
      ...claudeLine(6),
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_nope', content: 'x' }] },
    });

  it.each([
    ['claude', CLAUDE, 4, '{"type": "assistant", "message": ', 'bad.jsonl:4: not valid JSON'],
    ['claude', CLAUDE, 3, 'UNSIGNED', 'bad.jsonl:3: thinking block 0 without its "thinking" text and "signature"'],
    ['claude', CLAUDE, 6, 'ORPHAN', 'bad.jsonl:6: tool_result for "toolu_nope", a tool_use not seen before'],
    [
      'claude',
      CODEX,
      0,
      '',
      'bad.jsonl:1: a Codex rollout record ("session_meta"): import this file with --from codex',
    ],
    ['codex', CLAUDE, 0, '', 'bad.jsonl:1: a Claude Code record ("summary"): import this file with --from claude'],
    [
      'codex',
      CODEX,
      9,
      '{"timestamp":"x","type":"response_item","payload":{"type":"function_call_output","call_id":"call_nope","output":"x"}}',
      'bad.jsonl:9: function_call_output for "call_nope", a call not seen before',
    ],
    [
      'codex',
      CODEX,
      3,
      '{"timestamp":"x","type":"turn_context","payload":{"cwd":"/"}}',
      'bad.jsonl:7: no model known for this turn (no turn_context names one before it): pass --model',
    ],
    ['codex', CODEX, 7, '[1, 2]', 'bad.jsonl:7: not a JSON object'],
  ])(
    '--from %s: a bad record is one line naming it, exit 2, nothing stored (%#)',
    async (from, fixture, line, replacement, expected) => {
      const sandbox = e2e.sandbox();
      const text = replacement === 'UNSIGNED' ? unsigned() : replacement === 'ORPHAN' ? orphanResult() : replacement;
      const path =
        line === 0
          ? variant(sandbox, fixture, 1, readFixtureText(fixture).split('\n')[0] ?? '')
          : variant(sandbox, fixture, line, text);
      const run = await runHermes(['sessions', 'import', '--from', from, path], sandbox);
      expect(run.code).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toContain(`hermes: ${path.replace(/bad\.jsonl$/, '')}${expected}`);
      expect(parseJson<unknown[]>(await runHermes(['sessions', 'list', '--json'], sandbox))).toEqual([]);
    },
  );

  it('--dry-run reads and checks the whole file and stores nothing; a missing file is one line', async () => {
    const sandbox = e2e.sandbox();
    const dry = await runHermes(['sessions', 'import', '--from', 'codex', fixturePath(CODEX), '--dry-run'], sandbox);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(
      `would import ${fixturePath(CODEX)} (5 messages; kept byte for byte: 2 encrypted reasoning items)`,
    );
    expect(parseJson<unknown[]>(await runHermes(['sessions', 'list', '--json'], sandbox))).toEqual([]);
    const missing = await runHermes(['sessions', 'import', '--from', 'claude', 'nope.jsonl'], sandbox);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`hermes: cannot read ${join(sandbox.workspace, 'nope.jsonl')}: ENOENT\n`);
    const wrongTool = await runHermes(['sessions', 'import', '--from', 'cursor', fixturePath(CODEX)], sandbox);
    expect(wrongTool.stderr).toBe('hermes: --from must be claude or codex, not "cursor"\n');
  });
});

describe('importing a transcript again', () => {
  it('unchanged: nothing stored, the session it became named; grown: a new session naming the earlier one', async () => {
    const sandbox = e2e.sandbox();
    const lines = readFixtureText(CLAUDE).trim().split('\n');
    const earlierState = join(sandbox.workspace, 'earlier.jsonl');
    writeFileSync(earlierState, `${lines.slice(0, -4).join('\n')}\n`);
    const importFile = async (file: string) => {
      const run = await runHermes(['sessions', 'import', '--from', 'claude', file, '--json'], sandbox);
      expect(run.code, run.stderr).toBe(0);
      return parseJson<{ session_id: string; already_imported: boolean; earlier_imports: string[] }>(run);
    };
    const first = await importFile(earlierState);
    expect(first).toMatchObject({ already_imported: false, earlier_imports: [] });
    const again = await runHermes(['sessions', 'import', '--from', 'claude', earlierState], sandbox);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`was imported already, unchanged since, as ${first.session_id}; nothing stored`);
    // The whole transcript: the same Claude Code session, further on.
    const grown = await importFile(fixturePath(CLAUDE));
    expect(grown.session_id).not.toBe(first.session_id);
    expect(grown).toMatchObject({ already_imported: false, earlier_imports: [first.session_id] });
    expect(await importFile(fixturePath(CLAUDE))).toMatchObject({
      session_id: grown.session_id,
      already_imported: true,
    });
    const listed = parseJson<{ id: string }[]>(await runHermes(['sessions', 'list', '--json'], sandbox));
    expect(listed.map((session) => session.id).sort()).toEqual([first.session_id, grown.session_id].sort());
  });

  it('edited: the same session id and message count with other content is imported, naming the earlier one', async () => {
    const sandbox = e2e.sandbox();
    const original = readFixtureText(CLAUDE);
    const first = parseJson<{ session_id: string }>(
      await runHermes(['sessions', 'import', '--from', 'claude', fixturePath(CLAUDE), '--json'], sandbox),
    );
    const edited = join(sandbox.workspace, 'edited.jsonl');
    const question = 'The tokenizer test fails for \\"-3\\". Can you find out why?';
    expect(original).toContain(question);
    writeFileSync(edited, original.replace(question, 'The tokenizer test fails for \\"-4\\". Why?'));
    const run = await runHermes(['sessions', 'import', '--from', 'claude', edited, '--json'], sandbox);
    expect(run.code, run.stderr).toBe(0);
    const again = parseJson<{ session_id: string; already_imported: boolean; earlier_imports: string[] }>(run);
    expect(again).toMatchObject({ already_imported: false, earlier_imports: [first.session_id] });
    expect(again.session_id).not.toBe(first.session_id);
    const shown = await showSession(sandbox, again.session_id);
    expect(shown.messages.find((message) => message.role === 'user')?.content).toBe(
      'The tokenizer test fails for "-4". Why?',
    );
  });
});
