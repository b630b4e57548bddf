import { describe, expect, test } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { parseHistory } from '../../src/core/message-parse.js';

const valid = [
  { role: 'system', content: 's' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'hi' },
      { type: 'image_url', image_url: { url: 'x' } },
    ],
  },
  {
    role: 'assistant',
    content: null,
    reasoning_content: '',
    reasoning: null,
    reasoning_details: [{ type: 'reasoning.text', text: 't' }],
    tool_calls: [
      { id: 'c', type: 'function', function: { name: 'ls', arguments: '{}' }, extra_content: { google: {} } },
    ],
    origin: { api: 'chat_completions', provider: 'openrouter', host: 'openrouter.ai', model: 'm' },
    custom_extra_key: { kept: true },
  },
  { role: 'tool', tool_call_id: 'c', content: 'out', tool_name: 'ls' },
];

describe('SPEC §2 canonical history parsing', () => {
  test('a JSON array parses and unknown keys are kept', () => {
    expect(parseHistory(JSON.stringify(valid))).toEqual(valid);
  });

  test('JSON lines parse the same, blank lines skipped', () => {
    expect(parseHistory(valid.map((message) => JSON.stringify(message)).join('\n\n') + '\n')).toEqual(valid);
  });

  test('an empty file is an empty history', () => {
    expect(parseHistory('  \n')).toEqual([]);
  });

  test.each([
    ['[{"role":"user"', /history is not valid JSON/],
    ['{"role":"user","content":"a"}\n{oops}', /history line 2 is not valid JSON/],
    ['{"a":1}', /message 0: "role" must be one of/],
    ['[1]', /message 0: must be a JSON object/],
    ['{"k":1}\n', /message 0: "role"/],
  ])('%s → usage error %s', (text, message) => {
    expect(() => parseHistory(text)).toThrow(UsageError);
    expect(() => parseHistory(text)).toThrow(message);
  });

  test.each([
    [{ role: 'system', content: 1 }, 'message 3: "content" must be a string'],
    [{ role: 'user', content: [{ type: 'text', text: 3 }] }, 'message 3: "content[0].text" must be a string'],
    [{ role: 'tool', content: 'x' }, 'message 3: "tool_call_id" must be a string'],
    [{ role: 'assistant', content: 5 }, 'message 3: "content" must be a string or null'],
    [{ role: 'assistant', content: null, tool_calls: {} }, 'message 3: "tool_calls" must be a list'],
    [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'x', arguments: {} } }],
      },
      'message 3: "tool_calls[0].function.arguments" must be a string',
    ],
    [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c', type: 'tool', function: { name: 'x', arguments: '' } }],
      },
      'message 3: "tool_calls[0].type" must be "function"',
    ],
    [
      { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'x', arguments: '' } }] },
      'message 3: "tool_calls[0].id" must be a string',
    ],
    [
      { role: 'assistant', content: 'x', reasoning_details: ['text'] },
      'message 3: "reasoning_details" must be a list of objects',
    ],
    [
      { role: 'assistant', content: 'x', reasoning_content: 1 },
      'message 3: "reasoning_content" must be a string or null',
    ],
    [
      { role: 'assistant', content: 'x', codex_reasoning_items: {} },
      'message 3: "codex_reasoning_items" must be a list of objects',
    ],
    [
      { role: 'assistant', content: 'x', origin: { api: 'soap', provider: 'a', host: '', model: 'm' } },
      'message 3: "origin.api" must be one of',
    ],
    [
      { role: 'assistant', content: 'x', origin: { api: 'gemini', provider: 'a', model: 'm' } },
      'message 3: "origin.host" must be a string',
    ],
  ])('%j → %s', (bad, message) => {
    const history = [valid[0], valid[1], valid[3], bad];
    expect(() => parseHistory(JSON.stringify(history))).toThrow(message);
  });
});
