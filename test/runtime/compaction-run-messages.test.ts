import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { compressSession } from '../../src/runtime/compaction-run.js';
import { createMemorySessionStore } from '../../src/storage/memory-session-store.js';

/**
 * (`hermes sessions compress`): a session too short to compact says what is kept and
 * what to change, and sends no request (no transport is reachable here: a request would throw).
 */

describe('compressSession: nothing to compact', () => {
  it.each([
    {
      name: 'one turn',
      history: [
        { role: 'user', content: 'question 1' },
        { role: 'assistant', content: 'answer 1' },
      ] satisfies Message[],
      message: 'nothing to compact: the session holds only its first turn, which is always kept',
    },
    {
      name: 'a second user message right after the first (an earlier turn failed before its answer)',
      history: [
        { role: 'user', content: 'question 1' },
        { role: 'user', content: 'question 2' },
        { role: 'assistant', content: 'answer 2' },
      ] satisfies Message[],
      message: 'nothing to compact: the first message and the last turn are always kept, and nothing lies between them',
    },
  ])('$name', async ({ history, message }) => {
    const store = createMemorySessionStore();
    const session = await store.createSession({});
    await store.appendMessages(session.id, history);
    const progress: string[] = [];
    const outcome = await compressSession(
      {
        store,
        sessionId: session.id,
        route: { api: 'chat_completions', provider: 'openai', model: 'gpt-5', baseUrl: 'http://127.0.0.1:9/v1' },
        apiKey: undefined,
        reasoning: { enabled: false },
        transportFor: () => {
          throw new Error('no request may be sent');
        },
        compaction: { threshold: 0.8, keepTurns: 20, tail: 'turns' },
      },
      (text) => progress.push(text),
    );
    expect(outcome.message).toBe(message);
    expect(outcome.summarisedMessages).toBe(0);
    expect(progress).toEqual([message]);
  });
});
