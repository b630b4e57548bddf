import { afterEach, describe, expect, it } from 'vitest';
import { RateLimitError } from '../../../src/core/errors.js';
import type { Message } from '../../../src/core/message.js';
import { startChatEmulator, type RunningChatEmulator } from '../../../src/emulators/chat-completions/chat-emulator.js';
import type { ChatPersonaName } from '../../../src/emulators/chat-completions/chat-emulator.js';
import { createChatCompletionsTransport } from '../../../src/transports/chat-completions/chat-completions-transport.js';
import type { TransportRequest } from '../../../src/transports/shared/transport.js';
import { collectEvents } from '../transport-test-helpers.js';

/**
 * Integration: the real encoder (`prepare`) + this transport + the chat-completions emulator over
 * loopback HTTP. Two turns with a tool call in between: the captured
 * message goes back through the encoder, and the persona reports its reasoning came back intact
 * with zero 4xx. Fault injection from the emulator ends in a retry or a typed error.
 */

const READ_FILE = {
  name: 'read_file',
  description: 'Read a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

let emulator: RunningChatEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

const ROUTES: { persona: ChatPersonaName; provider: string; model: string; stream: boolean }[] = [
  { persona: 'deepseek', provider: 'deepseek', model: 'deepseek-v4-pro', stream: true },
  { persona: 'openrouter', provider: 'openrouter', model: 'anthropic/claude-sonnet-4.5', stream: true },
  { persona: 'strict-cerebras', provider: 'cerebras', model: 'gpt-oss-120b', stream: true },
  { persona: 'local', provider: 'custom', model: 'qwen3', stream: false },
  { persona: 'gemini-openai', provider: 'gemini', model: 'gemini-3-pro-preview', stream: true },
];

/** A one-line user turn with reasoning on and no tools, for the fault cases. */
function sayHi(provider: string, model: string, baseUrl: string): TransportRequest {
  return {
    route: { api: 'chat_completions', provider, model, baseUrl },
    history: [{ role: 'user', content: 'Say hi' }],
    tools: [],
    reasoning: { enabled: true },
  };
}

describe('chat-completions transport against the emulator personas', () => {
  it.each(ROUTES)('$persona: tool-call turn, tool result, final answer with continuity intact', async (route) => {
    emulator = await startChatEmulator({ persona: route.persona });
    const transport = createChatCompletionsTransport({ sleep: async () => undefined });
    const history: Message[] = [{ role: 'user', content: 'Please read the file notes.txt' }];
    const request = (): TransportRequest => ({
      route: { api: 'chat_completions', provider: route.provider, model: route.model, baseUrl: emulator?.baseUrl },
      history: [...history],
      tools: [READ_FILE],
      reasoning: { enabled: true },
      stream: route.stream,
      apiKey: 'sk-emulator',
    });
    const first = await transport.send(request()).result();
    expect(first.tool_calls?.[0]?.function.name).toBe('read_file');
    history.push(first, {
      role: 'tool',
      tool_call_id: first.tool_calls?.[0]?.id ?? '',
      content: 'hello from notes.txt',
    });
    const second = await transport.send(request()).result();
    expect(emulator.requests.map((received) => received.status)).toEqual([200, 200]);
    expect(String(second.content)).toContain('Reasoning continuity: intact');
    expect(second.origin).toEqual({
      api: 'chat_completions',
      provider: route.provider,
      host: '127.0.0.1',
      model: route.model,
    });
  });

  it('emulator 429 with retry-after, then success: retried once after the asked delay', async () => {
    emulator = await startChatEmulator({
      persona: 'deepseek',
      faults: [{ kind: 'status', status: 429, retryAfterSeconds: 1 }],
    });
    const sleeps: number[] = [];
    const transport = createChatCompletionsTransport({ sleep: async (milliseconds) => void sleeps.push(milliseconds) });
    const stream = transport.send(sayHi('deepseek', 'deepseek-v4-pro', emulator.baseUrl));
    const events = await collectEvents(stream);
    expect(sleeps).toEqual([1000]);
    expect(events.filter((event) => event.type === 'retry')).toHaveLength(1);
    expect(events[events.length - 1]?.type).toBe('finish');
  });

  it.each(['drop-mid-stream', 'malformed-chunk', 'error-chunk'] as const)(
    'emulator fault %s ends in a terminal error, never a finish',
    async (kind) => {
      emulator = await startChatEmulator({ persona: 'openrouter', faults: [{ kind }] });
      const transport = createChatCompletionsTransport({ sleep: async () => undefined });
      const stream = transport.send(sayHi('openrouter', 'anthropic/claude-sonnet-4.5', emulator.baseUrl));
      const events = await collectEvents(stream);
      expect(events.some((event) => event.type === 'finish')).toBe(false);
      expect(events[events.length - 1]?.type).toBe('error');
      await expect(stream.result()).rejects.toThrow();
    },
  );

  it('429 three times: RateLimitError after exactly 3 requests', async () => {
    const fault = { kind: 'status', status: 429, retryAfterSeconds: 0 } as const;
    emulator = await startChatEmulator({ persona: 'openrouter', faults: [fault, fault, fault] });
    const transport = createChatCompletionsTransport({ sleep: async () => undefined });
    const stream = transport.send(sayHi('openrouter', 'anthropic/claude-sonnet-4.5', emulator.baseUrl));
    await expect(stream.result()).rejects.toBeInstanceOf(RateLimitError);
    expect(emulator.requests).toHaveLength(3);
  });
});
