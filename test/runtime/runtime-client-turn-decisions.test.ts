/**
 * A front-door turn's decisions (runtime-client-turn.ts): the decisions made before the encoder
 * ran (handles opened or dropped) join the encoder's own in what each request logs and records,
 * yet all of a long history's decisions are made only when someone reads them all. Through the
 * runtime against the chat emulator over loopback HTTP.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defineLazyProperty } from '../../src/core/lazy-property.js';
import type { Message } from '../../src/core/message.js';
import { startChatEmulator } from '../../src/emulators/chat-completions/chat-emulator.js';
import type { RunningChatEmulator } from '../../src/emulators/chat-completions/chat-emulator-types.js';
import { silentLogger } from '../../src/logging/logger.js';
import { runClientToolsTurn, type CarrierDecision } from '../../src/runtime/runtime-client-turn.js';
import { createMemorySessionStore } from '../../src/storage/memory-session-store.js';
import { createChatCompletionsTransport } from '../../src/transports/chat-completions/chat-completions-transport.js';
import type { PreparedRequest, Transport } from '../../src/transports/shared/transport.js';

let emulator: RunningChatEmulator;
beforeEach(async () => {
  emulator = await startChatEmulator({ persona: 'deepseek' });
});
afterEach(async () => {
  await emulator.close();
});

/** The chat-completions transport, counting how often a prepared request's whole `decisions` is read. */
function countingTransport(): { transport: Transport; reads: { count: number } } {
  const inner = createChatCompletionsTransport();
  const reads = { count: 0 };
  const transport: Transport = {
    api: inner.api,
    prepare(request) {
      const prepared = inner.prepare(request);
      const copied: Record<string, unknown> = {};
      for (const key of Object.keys(prepared))
        if (key !== 'decisions') copied[key] = prepared[key as keyof PreparedRequest];
      return defineLazyProperty(copied as Omit<PreparedRequest, 'decisions'>, 'decisions', () => {
        reads.count += 1;
        return prepared.decisions;
      });
    },
    send: (request, prepared) => inner.send(request, prepared),
  };
  return { transport, reads };
}

/** A client-held history of `turns` exchanges, each answer with readable reasoning. */
function history(turns: number): Message[] {
  const messages: Message[] = [];
  for (let turn = 1; turn <= turns; turn += 1) {
    messages.push({ role: 'user', content: `question ${turn}` });
    messages.push({ role: 'assistant', content: `answer ${turn}`, reasoning_content: `thinking ${turn}` });
  }
  messages.push({ role: 'user', content: 'and now?' });
  return messages;
}

const opened = (messageIndex: number): CarrierDecision => ({
  messageIndex,
  field: 'content[0].signature',
  action: 'kept',
  reason: 'handle opened',
});

describe('decisions of a client-tools turn', () => {
  it('records the recent input decisions with the encoder’s, and never makes the whole history’s', async () => {
    const { transport, reads } = countingTransport();
    const messages = history(60);
    // Assistant turns sit at odd indexes 1…119: the newest 20 start at 81.
    const inputDecisions = [opened(1), opened(61), opened(101), opened(117)];
    const result = await runClientToolsTurn({
      store: createMemorySessionStore(),
      sessionId: undefined,
      route: { api: 'chat_completions', provider: 'deepseek', model: 'deepseek-v4-flash', baseUrl: emulator.baseUrl },
      apiKey: 'sk-test',
      settings: { reasoning: { enabled: true }, transportFor: () => transport },
      logger: silentLogger(),
      history: messages,
      tools: [],
      inputDecisions,
    });
    expect(result.message.content).toContain('You said: and now?');
    // The record holds the newest turns' decisions only (runtime-request.ts LOGGED_DECISION_TURNS).
    const recorded = result.record.decisions as unknown as CarrierDecision[];
    const indexes = recorded.map((decision) => decision.messageIndex);
    expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
    expect(recorded).toContainEqual(opened(117));
    expect(recorded).toContainEqual(opened(101));
    expect(recorded).not.toContainEqual(opened(61));
    expect(recorded).not.toContainEqual(opened(1));
    expect(recorded.some((decision) => decision.field !== 'content[0].signature')).toBe(true);
    expect(reads.count).toBe(0);
  });
});
