import { describe, expect, it } from 'vitest';
import { StreamError } from '../../../src/core/errors.js';
import type { AssistantMessage } from '../../../src/core/message.js';
import type { StreamEvent } from '../../../src/core/stream-event.js';
import { createChatCompletionsDecoder } from '../../../src/transports/chat-completions/chat-completions-decode.js';
import { decodeSse, terminalOf } from './chat-completions-fixtures.js';

/**
 * Capture rules with no recorded fixture, on small constructed streams: SPEC §2.1 (RC rules,
 * think tags), §7.3 (Copilot / Gemini stream carriers), WIRE.md §1.1 (mirrored fields),
 * §1.7 (detail accumulation), §1.9 (per-tool-call extra_content), and the terminal-error rules
 * of a stream (malformed chunk, finish_reason "error", truncated stream).
 */

function chunk(delta: Record<string, unknown>, finishReason: string | null = null): string {
  return JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finishReason }] });
}

function sse(...data: string[]): string {
  return data.map((line) => `data: ${line}\n\n`).join('');
}

function finished(events: StreamEvent[]) {
  const terminal = terminalOf(events);
  if (terminal.type !== 'finish') throw terminal.error;
  return terminal;
}

const SEEDS = [undefined, 3, 5, 11];

/** A finished answer whose reasoning text is stored both as `reasoning` and as RC (SPEC §2.1 rule 3). */
function answered(content: string, reasoning: string): AssistantMessage {
  return { role: 'assistant', content, reasoning, reasoning_content: reasoning, finish_reason: 'stop' };
}

describe('chat-completions capture rules (SPEC §2.1)', () => {
  it.each(SEEDS)(
    'never concatenates mirrored reasoning and reasoning_content (WIRE.md §1.1, chutes.ai) — seed %s',
    (seed) => {
      const text = sse(
        chunk({ role: 'assistant', reasoning: 'Think', reasoning_content: 'Think' }),
        chunk({ reasoning: 'ing…', reasoning_content: 'ing…' }),
        chunk({ content: 'Done' }, 'stop'),
        '[DONE]',
      );
      const terminal = finished(decodeSse(text, { mustEcho: false }, seed));
      expect(terminal.message).toEqual(answered('Done', 'Thinking…'));
    },
  );

  it('keeps a raw reasoning_content of "" verbatim (rule 1) even on a must-echo tool-call turn', () => {
    const text = sse(
      chunk({ role: 'assistant', content: null, reasoning_content: '' }),
      chunk({
        tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{}' } }],
      }),
      chunk({}, 'tool_calls'),
    );
    const terminal = finished(decodeSse(text, { mustEcho: true }));
    expect(terminal.message).toEqual({
      role: 'assistant',
      content: null,
      reasoning_content: '',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{}' } }],
      finish_reason: 'tool_calls',
    });
  });

  it.each([
    { mustEcho: true, reasoning: undefined, expected: ' ' },
    { mustEcho: true, reasoning: 'look at the file', expected: 'look at the file' },
    { mustEcho: false, reasoning: undefined, expected: undefined },
    { mustEcho: false, reasoning: 'look at the file', expected: 'look at the file' },
  ])('tool-call turn without raw RC: mustEcho=$mustEcho reasoning=$reasoning → RC $expected (rules 2–3)', (row) => {
    const text = sse(
      ...(row.reasoning === undefined ? [] : [chunk({ reasoning: row.reasoning })]),
      chunk(
        { tool_calls: [{ index: 0, id: 'call_1', function: { name: 'ls', arguments: '{"path":"."}' } }] },
        'tool_calls',
      ),
    );
    const message = finished(decodeSse(text, { mustEcho: row.mustEcho })).message;
    expect(message.reasoning_content).toEqual(row.expected);
    expect('reasoning_content' in message).toBe(row.expected !== undefined);
  });

  it.each(SEEDS)('strips <think> blocks split across chunks and uses them as reasoning — seed %s', (seed) => {
    const text = sse(
      chunk({ content: '<thi' }),
      chunk({ content: 'nk>plan A</th' }),
      chunk({ content: 'ink>\n\nHello <b>' }),
      chunk({ content: 'world' }, 'stop'),
    );
    const events = decodeSse(text, { mustEcho: false }, seed);
    expect(finished(events).message).toEqual(answered('Hello <b>world', 'plan A'));
    expect(
      events
        .filter((event) => event.type === 'text-delta')
        .map((event) => (event as { text: string }).text)
        .join(''),
    ).toBe('Hello <b>world');
  });

  it('think-tag text is not the reasoning when a reasoning field exists', () => {
    const text = sse(
      chunk({ reasoning: 'field reasoning' }),
      chunk({ content: '<think>inline</think>Answer' }, 'stop'),
    );
    const message = finished(decodeSse(text, { mustEcho: false })).message;
    expect(message).toEqual(answered('Answer', 'field reasoning'));
  });
});

describe('chat-completions stream carriers (SPEC §7.3, WIRE.md §1.7–§1.9)', () => {
  it.each(SEEDS)(
    'Copilot: reasoning_text concatenated, last reasoning_opaque wins, per-call thought_signature kept — seed %s',
    (seed) => {
      const text = sse(
        chunk({ role: 'assistant', reasoning_text: 'I should ', reasoning_opaque: 'OPAQUE-1' }),
        chunk({ reasoning_text: 'list files.' }),
        chunk({
          content: null,
          reasoning_opaque: 'OPAQUE-2',
          tool_calls: [
            {
              index: 0,
              id: 'call_MHxR',
              function: { name: 'list_directory', arguments: '{"path":"deleteme"}', thought_signature: 'SIG-CALL' },
            },
          ],
        }),
        chunk({}, 'tool_calls'),
      );
      const events = decodeSse(text, { mustEcho: false }, seed);
      expect(finished(events).message).toEqual({
        role: 'assistant',
        content: null,
        reasoning: 'I should list files.',
        reasoning_content: 'I should list files.',
        reasoning_details: [
          { type: 'hermes.native_assistant', reasoning_opaque: 'OPAQUE-2', reasoning_text: 'I should list files.' },
        ],
        tool_calls: [
          {
            id: 'call_MHxR',
            type: 'function',
            function: { name: 'list_directory', arguments: '{"path":"deleteme"}', thought_signature: 'SIG-CALL' },
          },
        ],
        finish_reason: 'tool_calls',
      });
      expect(events.filter((event) => event.type.startsWith('tool-call'))).toEqual([
        { type: 'tool-call-start', index: 0, id: 'call_MHxR', name: 'list_directory' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '{"path":"deleteme"}' },
      ]);
    },
  );

  it('Gemini: per-tool-call extra_content kept verbatim; parallel calls assembled by index', () => {
    const extra = { google: { thought_signature: 'CiQB-signature==' } };
    const text = sse(
      chunk({
        tool_calls: [
          { index: 0, id: 'a', type: 'function', function: { name: 'f', arguments: '{"x":' }, extra_content: extra },
        ],
      }),
      chunk({ tool_calls: [{ index: 1, id: 'b', type: 'function', function: { name: 'g', arguments: '{}' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }, 'tool_calls'),
    );
    expect(finished(decodeSse(text, { mustEcho: false })).message.tool_calls).toEqual([
      { id: 'a', type: 'function', function: { name: 'f', arguments: '{"x":1}' }, extra_content: extra },
      { id: 'b', type: 'function', function: { name: 'g', arguments: '{}' } },
    ]);
  });

  it('reasoning_details: text concatenated per index, a new type at a used index starts a new entry, delta.reasoning never appended', () => {
    const text = sse(
      chunk({
        reasoning: 'Sum',
        reasoning_details: [{ type: 'reasoning.summary', summary: 'Sum', format: 'openai-responses-v1', index: 0 }],
      }),
      chunk({ reasoning: 'mary', reasoning_details: [{ type: 'reasoning.summary', summary: 'mary', index: 0 }] }),
      chunk({
        reasoning_details: [
          { type: 'reasoning.encrypted', data: 'gAAAA-blob', id: 'rs_1', format: 'openai-responses-v1', index: 0 },
        ],
      }),
      chunk({ content: 'Hi' }, 'stop'),
    );
    expect(finished(decodeSse(text, { mustEcho: false })).message.reasoning_details).toEqual([
      { type: 'reasoning.summary', summary: 'Summary', format: 'openai-responses-v1', index: 0 },
      { type: 'reasoning.encrypted', data: 'gAAAA-blob', id: 'rs_1', format: 'openai-responses-v1', index: 0 },
    ]);
  });

  it('SPEC §25.4: fragments accumulate per (index, type): two types interleaved at one index never merge or split', () => {
    const text = sse(
      chunk({
        reasoning_details: [{ type: 'reasoning.summary', summary: 'Plan', format: 'openai-responses-v1', index: 0 }],
      }),
      chunk({
        reasoning_details: [{ type: 'reasoning.text', text: 'Think', format: 'anthropic-claude-v1', index: 0 }],
      }),
      chunk({ reasoning_details: [{ type: 'reasoning.summary', summary: 'ning', index: 0 }] }),
      chunk({ reasoning_details: [{ type: 'reasoning.text', text: 'ing', index: 0 }] }),
      // A fragment without a type continues the entry its index last touched.
      chunk({ reasoning_details: [{ text: '…', signature: 'SIG', index: 0 }] }),
      chunk({ content: 'Hi' }, 'stop'),
    );
    for (const seed of SEEDS) {
      expect(finished(decodeSse(text, { mustEcho: false }, seed)).message.reasoning_details).toEqual([
        { type: 'reasoning.summary', summary: 'Planning', format: 'openai-responses-v1', index: 0 },
        { type: 'reasoning.text', text: 'Thinking…', signature: 'SIG', format: 'anthropic-claude-v1', index: 0 },
      ]);
    }
  });

  it('Gemini message-level signature in a stream: last non-blank wins into the record', () => {
    const text = sse(
      chunk({ extra_content: { google: { thought_signature: 'first' } } }),
      chunk({ extra_content: { google: { thought_signature: '  ' } }, content: 'ok' }),
      chunk({ thought_signature: 'second' }, 'stop'),
    );
    expect(finished(decodeSse(text, { mustEcho: false })).message.reasoning_details).toEqual([
      { type: 'hermes.native_assistant', extra_content: { google: { thought_signature: 'second' } } },
    ]);
  });
});

describe('chat-completions terminal errors (never a half message)', () => {
  it.each([
    {
      name: 'malformed JSON chunk',
      text: sse(chunk({ content: 'Hel' }), '{"choices":[{"delta":{"content":"lo"'),
      message: /malformed stream chunk/,
    },
    {
      name: 'finish_reason "error"',
      text: sse(chunk({ content: 'Hel' }), chunk({}, 'error')),
      message: /finish_reason "error"/,
    },
    {
      name: 'no finish_reason and no [DONE]',
      text: sse(chunk({ content: 'Hel' })),
      message: /ended before the response finished/,
    },
  ])('$name → one terminal StreamError, no finish', ({ text, message }) => {
    const events = decodeSse(text, { mustEcho: false, provider: 'test' });
    const terminal = terminalOf(events);
    expect(terminal.type).toBe('error');
    if (terminal.type !== 'error') return;
    expect(terminal.error).toBeInstanceOf(StreamError);
    expect(terminal.error.message).toMatch(message);
  });

  it('[DONE] without a finish_reason still finishes (Snowflake), and nothing is accepted after the terminal event', () => {
    const decoder = createChatCompletionsDecoder({ mustEcho: false });
    decoder.push(chunk({ content: 'ok' }));
    decoder.push('[DONE]');
    const tail = decoder.end();
    expect(tail[tail.length - 1]).toMatchObject({ type: 'finish', finishReason: { unified: 'stop', raw: null } });
    expect(decoder.done).toBe(true);
    expect(decoder.push(chunk({ content: 'late' }))).toEqual([]);
    expect(decoder.end()).toEqual([]);
  });
});
