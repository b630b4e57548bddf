import { describe, expect, it } from 'vitest';
import { useFrontDoors } from './front-door-helpers.js';

/**
 * A front-door client that leaves in the middle of a streamed answer (Claude Code's Esc, Codex's
 * Ctrl-C) interrupts its turn: the provider request is aborted, nothing partial is mirrored into
 * the client's session, and the session serves the client's next request at once.
 */

const doors = useFrontDoors();

// Thinking is off: the endless answer is text only, and a thinking turn holds text that comes
// before any reasoning until its reasoning block can go first (SPEC §26.3).
const DOORS = [
  {
    door: 'messages',
    path: '/v1/messages',
    body: (text: string, stream: boolean) => ({
      model: 'deepseek',
      max_tokens: 256,
      stream,
      thinking: { type: 'disabled' },
      messages: [{ role: 'user', content: text }],
    }),
  },
  {
    door: 'responses',
    path: '/v1/responses',
    body: (text: string, stream: boolean) => ({
      model: 'deepseek',
      stream,
      store: false,
      reasoning: { effort: 'none' },
      input: text,
    }),
  },
];

describe('front doors: a client that leaves mid-stream', () => {
  it.each(DOORS)('$door: the endless answer is aborted, nothing partial is stored', async ({ path, body }) => {
    const sessionId = 'gone-0000-1111';
    const { gateway, store, upstreams } = await doors.gateway(['deepseek']);
    const upstream = upstreams['deepseek']!;
    const post = (payload: unknown, signal?: AbortSignal) =>
      fetch(`${gateway.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hermes-session-id': sessionId },
        body: JSON.stringify(payload),
        ...(signal ? { signal } : {}),
      });

    upstream.addFault?.({ kind: 'endless-deltas', intervalMs: 5 });
    const leaving = new AbortController();
    const streamed = await post(body('never ends', true), leaving.signal);
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('content-type')).toContain('text/event-stream');
    const reader = streamed.body!.getReader();
    const decoder = new TextDecoder();
    let seen = '';
    while (!seen.includes('delta 3 ')) {
      const { value, done } = await reader.read();
      expect(done).toBe(false);
      seen += decoder.decode(value, { stream: true });
    }
    leaving.abort();
    await reader.cancel().catch(() => undefined);

    const next = await post(body('and now?', false), AbortSignal.timeout(15_000));
    expect(next.status).toBe(200);
    await next.json();
    const roles = (await store.listMessages(sessionId)).map((message) => message.role);
    // The interrupted turn left nothing; the answered one is stored whole.
    expect(roles.filter((role) => role === 'assistant')).toHaveLength(1);
    expect(roles.at(-1)).toBe('assistant');
    const texts = (await store.listMessages(sessionId)).map((message) => JSON.stringify(message));
    expect(texts.join('\n')).not.toContain('delta 3 ');
  });
});
