import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message, ToolMessage } from '../../src/core/message.js';
import { INTERRUPTED_TOOL_RESULT } from '../../src/runtime/runtime-history.js';
import { repairToolPairing } from '../../src/runtime/runtime-history-repair.js';

/**
 * `repairToolPairing` gives a valid history back as an equal copy (the one-pass check) and
 * rebuilds a damaged one: each call followed at once, in call order, by its first free result.
 */

const user = (content: string): Message => ({ role: 'user', content });
const calls = (...ids: string[]): AssistantMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: 'read_file', arguments: '{}' } })),
});
const result = (id: string, content = `result ${id}`): ToolMessage => ({
  role: 'tool',
  tool_call_id: id,
  tool_name: 'read_file',
  content,
});
const answer = (content: string): Message => ({ role: 'assistant', content });
const placeholder = (id: string): ToolMessage => ({
  role: 'tool',
  tool_call_id: id,
  tool_name: 'read_file',
  content: INTERRUPTED_TOOL_RESULT,
});

describe('repairToolPairing', () => {
  it('returns a valid history as a new array with the same messages, call ids repeating across turns', () => {
    const first = calls('call_0', 'call_1');
    const second = calls('call_0');
    const history: Message[] = [
      { role: 'system', content: 'sys' },
      user('a'),
      first,
      result('call_0'),
      result('call_1'),
      answer('done'),
      user('b'),
      second,
      result('call_0', 'again'),
      answer('done again'),
    ];
    const repaired = repairToolPairing(history);
    expect(repaired).not.toBe(history);
    expect(repaired).toHaveLength(history.length);
    repaired.forEach((message, index) => expect(message).toBe(history[index]));
  });

  it('puts results interleaved by two writers back after their calls, in call order', () => {
    const one = calls('x', 'y');
    const two = calls('z');
    const history: Message[] = [user('a'), user('b'), one, two, result('y'), result('z'), result('x'), answer('ok')];
    expect(repairToolPairing(history)).toEqual([
      user('a'),
      user('b'),
      one,
      result('x'),
      result('y'),
      two,
      result('z'),
      answer('ok'),
    ]);
  });

  it('drops a duplicate or orphan result and answers a call that has none', () => {
    const call = calls('x', 'w');
    const history: Message[] = [user('a'), result('orphan'), call, result('x'), result('x', 'duplicate'), answer('ok')];
    expect(repairToolPairing(history)).toEqual([user('a'), call, result('x'), placeholder('w'), answer('ok')]);
  });

  it('answers a trailing call whose result was never stored', () => {
    const call = calls('x');
    expect(repairToolPairing([user('a'), call])).toEqual([user('a'), call, placeholder('x')]);
  });
});
