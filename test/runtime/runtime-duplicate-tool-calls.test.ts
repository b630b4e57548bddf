import { expect, it } from 'vitest';
import type { AssistantMessage } from '../../src/core/message.js';
import { runAgentTurn } from '../../src/runtime/agent-turn.js';
import { createMemorySessionStore } from '../../src/storage/memory-session-store.js';
import type { Route } from '../../src/core/route.js';
import { makeWorkspace, transportAnswering, turnOptions } from './runtime-test-helpers.js';

/**
 * A model that emits the same tool call twice (same name and arguments) gets it run once: the
 * stored assistant message names it once, with its Anthropic sidecar in step, and exactly one
 * tool result follows (replay-tool-call-sync.ts).
 */
it('a repeated tool call runs once and is stored once, its sidecar block too', async () => {
  const read = { name: 'read_file', arguments: '{"path":"notes.txt"}' };
  const twice: AssistantMessage = {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'toolu_1', type: 'function', function: read },
      { id: 'toolu_2', type: 'function', function: read },
    ],
    anthropic_content_blocks: [
      { type: 'thinking', thinking: 'read it', signature: 'sig' },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'notes.txt' } },
      { type: 'tool_use', id: 'toolu_2', name: 'read_file', input: { path: 'notes.txt' } },
    ],
  };
  const replies: AssistantMessage[] = [twice, { role: 'assistant', content: 'alpha beta' }];
  const { transport, requests } = transportAnswering(replies, undefined, {
    api: 'anthropic_messages',
    routeKey: 'anthropic|x|m',
  });

  const store = createMemorySessionStore();
  const session = await store.createSession({});
  const route: Route = {
    api: 'anthropic_messages',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    baseUrl: 'http://x',
  };
  await runAgentTurn(
    'read notes.txt',
    turnOptions(
      { store, sessionId: session.id, route, workspace: makeWorkspace(), transport },
      { approve: async () => true },
    ),
  );
  const stored = await store.listMessages(session.id);
  const assistant = stored.find((message) => message.role === 'assistant') as AssistantMessage;
  expect(assistant.tool_calls?.map((call) => call.id)).toEqual(['toolu_1']);
  expect(assistant.anthropic_content_blocks?.map((block) => block['type'])).toEqual(['thinking', 'tool_use']);
  expect(stored.filter((message) => message.role === 'tool')).toHaveLength(1);
  expect(requests[1]?.history.filter((message) => message.role === 'tool')).toHaveLength(1);
});
