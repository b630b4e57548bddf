import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { WarmHistories } from '../../src/runtime/runtime-warm-history.js';

function messages(count: number): Message[] {
  return Array.from({ length: count }, (_, index) => ({ role: 'user', content: `m${index}`, timestamp: index }));
}

describe('WarmHistories', () => {
  it('hands back the same list only while the session version is unchanged, and only once', () => {
    const warm = new WarmHistories();
    const list = messages(2);
    warm.keep('a', 7, list);
    expect(warm.take({ id: 'a', version: 7 })).toBe(list);
    expect(warm.take({ id: 'a', version: 7 })).toBeUndefined();
    warm.keep('a', 7, list);
    expect(warm.take({ id: 'a', version: 8 })).toBeUndefined(); // a turn, an /undo or an edit elsewhere
    expect(warm.size).toEqual({ sessions: 0, messages: 0 });
  });

  it('drops the least recently kept sessions past its bounds', () => {
    const warm = new WarmHistories({ maxSessions: 2, maxMessages: 10 });
    warm.keep('a', 1, messages(3));
    warm.keep('b', 1, messages(3));
    warm.keep('c', 1, messages(3));
    expect(warm.size).toEqual({ sessions: 2, messages: 6 });
    expect(warm.take({ id: 'a', version: 1 })).toBeUndefined();
    warm.keep('d', 1, messages(6)); // 12 messages: the oldest, b, goes
    expect(warm.size).toEqual({ sessions: 2, messages: 9 });
    expect(warm.take({ id: 'b', version: 1 })).toBeUndefined();
    expect(warm.take({ id: 'c', version: 1 })).toHaveLength(3);
    expect(warm.take({ id: 'd', version: 1 })).toHaveLength(6);
    warm.keep('e', 1, messages(11)); // longer than the whole budget: never kept
    expect(warm.size).toEqual({ sessions: 0, messages: 0 });
  });
});
