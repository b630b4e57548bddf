import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message, ToolMessage } from '../../src/core/message.js';
import { INTERRUPTED_TOOL_RESULT } from '../../src/runtime/runtime-history.js';
import { repairStoredHistory, repairToolPairing } from '../../src/runtime/runtime-history-repair.js';

/**
 * `repairToolPairing` gives a valid history back as an equal copy (the one-pass check) and
 * rebuilds a damaged one: each call followed at once, in call order, by its first free result.
 * `repairStoredHistory`, which checks only what was appended to a stored history since its last
 * call, gives what `repairToolPairing` gives on the whole history, over random growing histories.
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

/** A deterministic generator (mulberry32), so a failing history can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** A few messages to append: mostly well-formed exchanges, sometimes a damaged one. */
function someMessages(next: () => number, turn: number): Message[] {
  const pick = next();
  if (pick < 0.45) return [user(`q${turn}`), answer(`a${turn}`)];
  const ids = Array.from({ length: 1 + Math.floor(next() * 3) }, (_, index) => `call_${index}`);
  const call = calls(...ids);
  const results = ids.map((id) => result(id, `r${turn}`));
  if (pick < 0.85) return [user(`q${turn}`), call, ...results, answer(`a${turn}`)];
  if (pick < 0.9) return [user(`q${turn}`), call, ...results.reverse()];
  if (pick < 0.95) return [result(`orphan${turn}`)];
  return [user(`q${turn}`), call];
}

describe('repairStoredHistory', () => {
  it('gives what repairToolPairing gives on the whole history while a stored history grows by appends', () => {
    for (let seed = 1; seed <= 200; seed += 1) {
      const next = random(seed);
      const stored: Message[] = [{ role: 'system', content: 'sys' }];
      for (let turn = 0; turn < 12; turn += 1) {
        stored.push(...someMessages(next, turn));
        const appended = next() < 0.2 ? [placeholder('call_0')] : [];
        const expected = repairToolPairing([...stored, ...appended]);
        const actual = repairStoredHistory(stored, appended);
        expect(actual, `seed ${seed}, turn ${turn}`).toEqual(expected);
        // Messages kept from the input are the same objects (placeholders the repair adds are new).
        const input = new Set([...stored, ...appended]);
        actual.forEach((message, index) => {
          if (input.has(expected[index] as Message)) expect(message).toBe(expected[index]);
        });
      }
    }
  });

  it('checks a stored history whole again once its messages changed other than by appends', () => {
    const call = calls('x');
    const stored: Message[] = [user('a'), call, result('x'), answer('ok')];
    expect(repairStoredHistory(stored, [])).toEqual(stored);
    // The message at the recorded boundary is replaced: the earlier check no longer holds.
    stored.splice(2, 2, answer('no result'), answer('later'));
    expect(repairStoredHistory(stored, [])).toEqual([
      user('a'),
      call,
      placeholder('x'),
      answer('no result'),
      answer('later'),
    ]);
    // Shorter than the recorded boundary: checked whole too.
    stored.length = 2;
    expect(repairStoredHistory(stored, [])).toEqual([user('a'), call, placeholder('x')]);
  });

  it('returns a new array the turn may append to, never the stored one', () => {
    const stored: Message[] = [user('a'), answer('b')];
    const history = repairStoredHistory(stored, []);
    expect(history).not.toBe(stored);
    history.push(user('c'));
    expect(stored).toHaveLength(2);
  });
});
