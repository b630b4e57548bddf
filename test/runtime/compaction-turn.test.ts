import { describe, expect, it } from 'vitest';
import { EventStream } from '../../src/core/event-stream.js';
import type { AssistantMessage } from '../../src/core/message.js';
import { runAgentTurn, type AgentEvent } from '../../src/runtime/agent-turn.js';
import { COMPACTION_SUMMARY_PROMPT } from '../../src/runtime/compaction-run.js';
import { createMemorySessionStore } from '../../src/storage/memory-session-store.js';
import type { Transport, TransportRequest } from '../../src/transports/shared/transport.js';
import { toolCall } from '../support/messages.js';
import type { Route } from '../../src/core/route.js';
import { makeWorkspace, turnOptions } from './runtime-test-helpers.js';

/**
 * "compaction never loops", inside one agent turn: a compaction pass that cannot help is
 * reported once, costs no summary request, and is not attempted again before the later requests
 * of the same tool loop.
 */

function scriptedTransport(replies: AssistantMessage[]): Transport & { requests: TransportRequest[] } {
  const requests: TransportRequest[] = [];
  return {
    api: 'chat_completions',
    requests,
    prepare: () => ({
      url: 'http://x/v1/chat/completions',
      body: {},
      decisions: [],
      carriersSent: [],
      routeKey: 'acme|x|m1',
    }),
    send(request) {
      requests.push(request);
      const stream = new EventStream();
      const reply = replies.shift();
      queueMicrotask(() => {
        if (!reply) return stream.fail(new Error('script ended'));
        stream.push({ type: 'start' });
        stream.end({ type: 'finish', message: reply, finishReason: { unified: 'stop', raw: 'stop' }, usage: null });
      });
      return stream;
    },
  };
}

describe('automatic compaction inside a turn', () => {
  it('a pass that cannot get under the limit is tried once per turn, says so without a summary request, and the tool loop goes on', async () => {
    const store = createMemorySessionStore();
    const session = await store.createSession({});
    // A tiny middle (three one-word messages) and a huge current turn: head and tail alone are over the limit.
    await store.appendMessages(session.id, [
      { role: 'user', content: 'start' },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'x' },
      { role: 'assistant', content: 'y' },
    ]);
    const workspace = makeWorkspace('hermes-compaction-turn-');
    const transport = scriptedTransport([
      {
        role: 'assistant',
        content: null,
        tool_calls: [toolCall('call_1', 'read_file', '{"path":"notes.txt"}')],
      },
      { role: 'assistant', content: 'It says alpha beta.' },
    ]);
    const events: AgentEvent[] = [];
    const route: Route = { api: 'chat_completions', provider: 'acme', model: 'm1', baseUrl: 'http://x/v1' };
    const result = await runAgentTurn(
      `read the file notes.txt ${'padding '.repeat(2000)}`,
      turnOptions(
        { store, sessionId: session.id, route, workspace, transport },
        {
          approve: async () => true,
          compaction: { contextWindow: 1000, threshold: 0.8, keepTurns: 1 },
          onEvent: (event) => events.push(event),
        },
      ),
    );
    const isSummary = (request: TransportRequest) =>
      String(request.history[0]?.content ?? '').startsWith(COMPACTION_SUMMARY_PROMPT);
    expect(transport.requests.map(isSummary)).toEqual([false, false]);
    expect(result.sessionId).toBe(session.id);
    expect(result.answer).toBe('It says alpha beta.');
    const notices = events.filter((event) => event.type === 'recovery');
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      message: expect.stringMatching(/^compaction cannot bring this session under the limit/),
    });
    expect(await store.childSessions(session.id)).toEqual([]);
  });
});
