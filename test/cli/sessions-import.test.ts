import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message } from '../../src/core/message.js';
import { importClaudeTranscript } from '../../src/cli/sessions-import-claude.js';
import { importCodexRollout } from '../../src/cli/sessions-import-codex.js';
import { jsonLines } from '../../src/cli/sessions-import-records.js';

/** The transcript importers on small record lists: shapes the fixture files do not show. */

const text = (records: object[]) => records.map((record) => JSON.stringify(record)).join('\n');
const claude = (records: object[]) => importClaudeTranscript(jsonLines(text(records), 't.jsonl'), { file: 't.jsonl' });
const codex = (records: object[], model?: string) =>
  importCodexRollout(jsonLines(text(records), 'r.jsonl'), { file: 'r.jsonl', model });

const user = (content: unknown, extra: object = {}) => ({ type: 'user', message: { role: 'user', content }, ...extra });
const assistant = (id: string, content: object[], extra: object = {}) => ({
  type: 'assistant',
  message: { id, model: 'claude-opus-4-5', role: 'assistant', content, stop_reason: null },
  ...extra,
});
const thinking = { type: 'thinking', thinking: 'plan', signature: 'c2lnbmF0dXJl' };
const toolUse = (id: string) => ({ type: 'tool_use', id, name: 'Read', input: { file_path: `/${id}` } });
const result = (id: string) => ({
  type: 'tool_result',
  tool_use_id: id,
  content: [{ type: 'text', text: `read ${id}` }],
});
const blocks = (message: Message | undefined) =>
  ((message as AssistantMessage).anthropic_content_blocks ?? []).map((block) => block['type']);

describe('Claude Code transcripts', () => {
  it('parallel tool calls written as records with results in between stay one response, results after it', () => {
    const session = claude([
      user('read both'),
      assistant('msg_1', [thinking]),
      assistant('msg_1', [toolUse('a')]),
      user([result('a')]),
      assistant('msg_1', [toolUse('b')]),
      user([result('b')]),
      assistant('msg_2', [{ type: 'text', text: 'done' }]),
    ]);
    expect(session.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
    expect(blocks(session.messages[1])).toEqual(['thinking', 'tool_use', 'tool_use']);
    expect(session.messages[2]).toMatchObject({ tool_call_id: 'a', tool_name: 'Read', content: 'read a' });
  });

  it('a record that repeats the blocks read so far adds only the new ones', () => {
    const session = claude([
      user('hi'),
      assistant('msg_1', [thinking]),
      assistant('msg_1', [thinking, { type: 'text', text: 'hello' }]),
    ]);
    expect(blocks(session.messages[1])).toEqual(['thinking', 'text']);
  });

  it('leaves out sub-agent turns, Claude Code’s own notes and bookkeeping, and counts them', () => {
    const session = claude([
      { type: 'file-history-snapshot', snapshot: {} },
      user('hi', { cwd: '/w', sessionId: 's-1' }),
      user('sub-agent prompt', { isSidechain: true }),
      {
        type: 'assistant',
        message: {
          id: 'x',
          model: '<synthetic>',
          role: 'assistant',
          content: [{ type: 'text', text: 'No response requested.' }],
        },
      },
      assistant('msg_1', [{ type: 'text', text: 'hello' }]),
      { type: 'system', subtype: 'compact_boundary' },
    ]);
    expect(session.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(session.skipped).toEqual({
      'file-history-snapshot': 1,
      sidechain: 1,
      'synthetic assistant note': 1,
      system: 1,
    });
    expect(session).toMatchObject({ workspace: '/w', source: { session_id: 's-1' }, title: 'hi' });
  });

  it('a user message with an image keeps its blocks verbatim; text alone is stored as text', () => {
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } };
    const session = claude([
      user([{ type: 'text', text: 'what is this?' }, image]),
      assistant('msg_1', [{ type: 'text', text: 'a dot' }]),
    ]);
    expect(session.messages[0]).toMatchObject({
      role: 'user',
      content: [{ type: 'text', text: 'what is this?' }, image],
    });
  });
});

describe('Codex rollouts', () => {
  const meta = { type: 'session_meta', payload: { id: 'c-1', cwd: '/w', cli_version: '0.63.0' } };
  const turn = (model: string) => ({ type: 'turn_context', payload: { model } });
  const item = (payload: object) => ({ type: 'response_item', payload });
  const input = (value: string) =>
    item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: value }] });
  const answer = (value: string) =>
    item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: value }] });

  it('Codex’s shell and freeform calls become function calls; developer messages and ghost snapshots are left out', () => {
    const session = codex([
      meta,
      item({
        type: 'message',
        role: 'developer',
        content: [{ type: 'input_text', text: '<permissions instructions>' }],
      }),
      turn('gpt-5.1-codex'),
      input('fix it'),
      item({ type: 'local_shell_call', call_id: 'c1', status: 'completed', action: { type: 'exec', command: ['ls'] } }),
      item({ type: 'function_call_output', call_id: 'c1', output: 'a.txt' }),
      item({ type: 'custom_tool_call', call_id: 'c2', name: 'apply_patch', input: '*** Begin Patch' }),
      item({ type: 'custom_tool_call_output', call_id: 'c2', output: 'Done!' }),
      item({ type: 'ghost_snapshot', ghost_commit: {} }),
      answer('fixed'),
    ]);
    const calls = session.messages.flatMap((message) =>
      message.role === 'assistant' ? (message.tool_calls ?? []) : [],
    );
    expect(calls.map((call) => [call.function.name, call.function.arguments])).toEqual([
      ['local_shell', '{"type":"exec","command":["ls"]}'],
      ['apply_patch', '*** Begin Patch'],
    ]);
    expect(session.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(session.skipped).toEqual({ 'developer message': 1, ghost_snapshot: 1 });
  });

  it('a model change between responses stamps each response with its own model', () => {
    const session = codex([
      meta,
      turn('gpt-5.1-codex'),
      input('a'),
      answer('one'),
      turn('gpt-5.1-codex-max'),
      input('b'),
      answer('two'),
    ]);
    const models = session.messages.flatMap((message) => (message.role === 'assistant' ? [message.origin?.model] : []));
    expect(models).toEqual(['gpt-5.1-codex', 'gpt-5.1-codex-max']);
    expect(session.model).toBe('gpt-5.1-codex-max');
  });

  it('--base-url stamps an API-key session with api.openai.com; --model stands in for a missing turn_context', () => {
    const records = [
      meta,
      input('a'),
      item({ type: 'reasoning', summary: [], encrypted_content: 'gAAA' }),
      answer('one'),
    ];
    const session = importCodexRollout(jsonLines(text(records), 'r.jsonl'), {
      file: 'r.jsonl',
      baseUrl: 'https://api.openai.com/v1',
      model: 'gpt-5',
    });
    const message = session.messages[1] as AssistantMessage;
    expect(message.origin).toEqual({
      api: 'codex_responses',
      provider: 'openai',
      host: 'api.openai.com',
      model: 'gpt-5',
    });
    expect(message.codex_reasoning_items?.[0]).toMatchObject({
      encrypted_content: 'gAAA',
      _issuer_kind: 'other:https://api.openai.com/v1',
    });
  });
});
