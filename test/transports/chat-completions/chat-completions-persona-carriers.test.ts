import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/message.js';
import { startChatEmulator, type RunningChatEmulator } from '../../../src/emulators/chat-completions/chat-emulator.js';
import type { ChatPersonaName } from '../../../src/emulators/chat-completions/chat-emulator.js';
import { createChatCompletionsTransport } from '../../../src/transports/chat-completions/chat-completions-transport.js';
import type { TransportRequest } from '../../../src/transports/shared/transport.js';
import { toolDefinitions } from '../../../src/tools/tool-registry.js';

/**
 * Every persona, through the transport over real loopback HTTP, two turns
 * with a tool call in between; the second request's replayed assistant message carries exactly
 * the carriers SPEC §5 (and §7 for lifted record fields) says for that route — asserted on the
 * bytes the emulator received — with zero 400s. Routes whose rules depend on the real host
 * (DeepSeek's default fallback, Copilot's lift, Gemini's endpoint) are reached under that host via
 * the connect-to mapping, so the decisions are exactly the production ones.
 */

interface PersonaCase {
  persona: ChatPersonaName;
  provider: string;
  model: string;
  /** Real origin the route names; the emulator answers for it. */
  realOrigin?: string;
  /** Reasoning keys the replayed assistant tool-call message must carry, exactly. */
  carriers: string[];
  stream: boolean;
}

const CASES: PersonaCase[] = [
  {
    persona: 'openrouter',
    provider: 'openrouter',
    model: 'anthropic/claude-sonnet-4.5',
    carriers: ['reasoning', 'reasoning_content', 'reasoning_details'],
    stream: true,
  },
  {
    persona: 'deepseek',
    provider: 'deepseek',
    model: 'deepseek-v4-flash',
    realOrigin: 'https://api.deepseek.com',
    carriers: ['reasoning_content'],
    stream: true,
  },
  { persona: 'strict-mistral', provider: 'mistral', model: 'magistral-medium-latest', carriers: [], stream: true },
  { persona: 'strict-groq', provider: 'groq', model: 'openai/gpt-oss-120b', carriers: [], stream: false },
  { persona: 'strict-cerebras', provider: 'cerebras', model: 'gpt-oss-120b', carriers: ['reasoning'], stream: true },
  {
    persona: 'strict-fireworks',
    provider: 'fireworks',
    model: 'accounts/fireworks/models/deepseek-v3p1',
    carriers: ['reasoning_content'],
    stream: true,
  },
  {
    persona: 'copilot',
    provider: 'copilot',
    model: 'claude-sonnet-4.5',
    realOrigin: 'https://api.githubcopilot.com',
    carriers: ['reasoning_content', 'reasoning_opaque', 'reasoning_text'],
    stream: true,
  },
  {
    persona: 'gemini-openai',
    provider: 'gemini',
    model: 'gemini-3-pro-preview',
    realOrigin: 'https://generativelanguage.googleapis.com',
    carriers: [],
    stream: true,
  },
  {
    persona: 'local',
    provider: 'custom',
    model: 'qwen3:8b',
    carriers: ['reasoning', 'reasoning_content'],
    stream: false,
  },
];

const REASONING_KEYS = [
  'reasoning',
  'reasoning_content',
  'reasoning_details',
  'reasoning_opaque',
  'reasoning_text',
  'extra_content',
];
let emulator: RunningChatEmulator | undefined;

afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

describe('every chat persona replays exactly its route carriers (SPEC §5, §7)', () => {
  it.each(CASES)('$persona: $carriers', async (testCase) => {
    emulator = await startChatEmulator({ persona: testCase.persona });
    const origin = new URL(emulator.baseUrl).origin;
    let baseUrl = emulator.baseUrl;
    let connectTo: Map<string, string> | undefined;
    if (testCase.realOrigin) {
      connectTo = new Map([[testCase.realOrigin, origin]]);
      baseUrl = `${testCase.realOrigin}/v1`;
    }
    const transport = createChatCompletionsTransport({ sleep: async () => undefined });
    const history: Message[] = [{ role: 'user', content: 'read the file notes.txt' }];
    const request = (): TransportRequest => ({
      route: { api: 'chat_completions', provider: testCase.provider, model: testCase.model, baseUrl },
      history: [...history],
      tools: toolDefinitions(),
      reasoning: { enabled: true },
      stream: testCase.stream,
      apiKey: 'sk-emulator',
      connectTo,
    });
    const first = await transport.send(request()).result();
    expect(first.tool_calls?.[0]?.function.name).toBe('read_file');
    history.push(first, { role: 'tool', tool_call_id: first.tool_calls?.[0]?.id ?? '', content: 'alpha beta' });
    const second = await transport.send(request()).result();
    expect(emulator.requests.map((received) => received.status)).toEqual([200, 200]);
    const replayed = JSON.parse(emulator.requests[1]?.raw ?? '{}') as { messages: Record<string, unknown>[] };
    const assistant = replayed.messages.find((message) => message['role'] === 'assistant') ?? {};
    expect(
      Object.keys(assistant)
        .filter((key) => REASONING_KEYS.includes(key))
        .sort(),
    ).toEqual(testCase.carriers);
    // Gemini's signature travels on the tool call (SPEC §7.6 gate), never on other routes.
    const toolCall = (assistant['tool_calls'] as Record<string, unknown>[] | undefined)?.[0] ?? {};
    expect('extra_content' in toolCall).toBe(testCase.persona === 'gemini-openai');
    // The private record never reaches any wire.
    expect(emulator.requests[1]?.raw).not.toContain('hermes.native_assistant');
    expect(second.content ?? '').toMatch(/Reasoning continuity: (intact|broken \(0 intact, 0 altered, 1 missing)/);
  });
});
