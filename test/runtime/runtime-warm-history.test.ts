import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { WarmHistories } from '../../src/runtime/runtime-warm-history.js';
import type { SessionRecord } from '../../src/storage/session-store.js';

function session(id: string, messageCount: number, updatedAt: number): SessionRecord {
  return {
    id,
    title: null,
    parentSessionId: null,
    createdAt: 0,
    updatedAt,
    provider: null,
    model: null,
    baseUrl: null,
    api: null,
    modelConfig: {},
    messageCount,
  };
}

function messages(count: number): Message[] {
  return Array.from({ length: count }, (_, index) => ({ role: 'user', content: `m${index}`, timestamp: index }));
}

describe('WarmHistories', () => {
  it('hands back the same list only while the session row is unchanged, and only once', () => {
    const warm = new WarmHistories();
    const list = messages(2);
    warm.keep(session('a', 2, 100), list);
    expect(warm.take(session('a', 2, 100))).toBe(list);
    expect(warm.take(session('a', 2, 100))).toBeUndefined();
    warm.keep(session('a', 2, 100), list);
    expect(warm.take(session('a', 2, 101))).toBeUndefined(); // an /undo or edit elsewhere
    warm.keep(session('a', 2, 100), list);
    expect(warm.take(session('a', 4, 100))).toBeUndefined(); // a turn another process stored
    expect(warm.size).toEqual({ sessions: 0, messages: 0 });
  });

  it('drops the least recently kept sessions past its bounds', () => {
    const warm = new WarmHistories({ maxSessions: 2, maxMessages: 10 });
    warm.keep(session('a', 3, 1), messages(3));
    warm.keep(session('b', 3, 1), messages(3));
    warm.keep(session('c', 3, 1), messages(3));
    expect(warm.size).toEqual({ sessions: 2, messages: 6 });
    expect(warm.take(session('a', 3, 1))).toBeUndefined();
    warm.keep(session('d', 6, 1), messages(6)); // 12 messages: the oldest, b, goes
    expect(warm.size).toEqual({ sessions: 2, messages: 9 });
    expect(warm.take(session('b', 3, 1))).toBeUndefined();
    expect(warm.take(session('c', 3, 1))).toHaveLength(3);
    expect(warm.take(session('d', 6, 1))).toHaveLength(6);
    warm.keep(session('e', 11, 1), messages(11)); // longer than the whole budget: never kept
    expect(warm.size).toEqual({ sessions: 0, messages: 0 });
  });
});
