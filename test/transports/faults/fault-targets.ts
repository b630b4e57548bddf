import type { Route } from '../../../src/core/route.js';
import type { StreamEvent } from '../../../src/core/stream-event.js';
import { startAnthropicEmulator } from '../../../src/emulators/anthropic-messages/anthropic-emulator.js';
import { startBedrockEmulator } from '../../../src/emulators/bedrock-converse/bedrock-converse-emulator.js';
import { startChatEmulator } from '../../../src/emulators/chat-completions/chat-emulator.js';
import { startGeminiEmulator } from '../../../src/emulators/gemini/gemini-emulator.js';
import { startResponsesEmulator } from '../../../src/emulators/responses/responses-emulator.js';
import type { Fault } from '../../../src/emulators/shared/emulator-faults.js';
import { createAnthropicMessagesTransport } from '../../../src/transports/anthropic-messages/anthropic-messages-transport.js';
import { createBedrockConverseTransport } from '../../../src/transports/bedrock-converse/bedrock-converse-transport.js';
import { createChatCompletionsTransport } from '../../../src/transports/chat-completions/chat-completions-transport.js';
import { createGeminiTransport } from '../../../src/transports/gemini/gemini-transport.js';
import { createResponsesTransport } from '../../../src/transports/responses/responses-transport.js';
import type { Transport, TransportRequest } from '../../../src/transports/shared/transport.js';

/**
 * The five transports, each against its own loopback emulator, for the fault suite: one place
 * that knows how to start each emulator, queue a fault on it and build a request with a key.
 */

/** A key shaped like a real one, so both the literal and the pattern redaction are exercised. */
export const ECHOED_KEY = 'sk-fault-suite-0123456789abcdefSECRET';

/** A key with no known shape (a custom provider's), so only the literal redaction can catch it. */
export const SHAPELESS_KEY = 'hx9Qm2Zr7Lw4Kp8Tn3Vb6Yc1Jd5Fg0Hs';

/** A started emulator with its transport. */
export interface FaultTarget {
  transport: Transport;
  addFault(fault: Fault): void;
  request(options?: { stream?: boolean; apiKey?: string }): TransportRequest;
  close(): Promise<void>;
}

const noSleep = async () => undefined;
const history = [{ role: 'user' as const, content: 'say hello' }];

/** What every target's request carries: one user turn, no tools, reasoning on, the echoed key. */
const base = { history, tools: [], reasoning: { enabled: true }, apiKey: ECHOED_KEY };

/** A started emulator: where it listens, how to stop it and how to queue a fault on it. */
type FaultEmulator = { baseUrl: string; close(): Promise<void> } & (
  { addFault(fault: Fault): void } | { faults: { add(fault: Fault): void } }
);

/** Per wire API: the transport under test, the route it is asked for and what its requests add. */
export const TRANSPORT_ROUTES: Record<
  FaultTargetApi,
  { transport: () => Transport; route: Omit<Route, 'baseUrl'>; extra?: Partial<TransportRequest> }
> = {
  chat_completions: {
    transport: () => createChatCompletionsTransport({ sleep: noSleep }),
    route: { api: 'chat_completions', provider: 'deepseek', model: 'deepseek-v4-pro' },
  },
  anthropic_messages: {
    transport: () => createAnthropicMessagesTransport({ environment: {}, sleep: noSleep }),
    route: { api: 'anthropic_messages', provider: 'anthropic', model: 'claude-sonnet-4-5' },
    extra: { reasoning: { enabled: true, budgetTokens: 2048 } },
  },
  gemini: {
    transport: () => createGeminiTransport({ environment: {}, sleep: noSleep }),
    route: { api: 'gemini', provider: 'gemini', model: 'gemini-3-pro-preview' },
  },
  codex_responses: {
    transport: () => createResponsesTransport({ sleep: noSleep }),
    route: { api: 'codex_responses', provider: 'openai', model: 'gpt-5.4' },
    extra: { reasoning: { enabled: true, effort: 'low' } },
  },
  bedrock_converse: {
    transport: () => createBedrockConverseTransport({ environment: {} }),
    route: { api: 'bedrock_converse', provider: 'bedrock', model: 'us.anthropic.claude-sonnet-4-5-v1:0' },
    extra: { maxAttempts: 1 },
  },
};

/** The request every target sends, to `baseUrl`, with the echoed key. */
export function transportRequest(api: FaultTargetApi, baseUrl: string, stream = true): TransportRequest {
  const { route, extra } = TRANSPORT_ROUTES[api];
  return { ...base, route: { ...route, baseUrl }, stream, ...extra };
}

async function startEmulator(api: FaultTargetApi): Promise<FaultEmulator> {
  switch (api) {
    case 'chat_completions':
      return startChatEmulator({ persona: 'deepseek' });
    case 'anthropic_messages':
      return startAnthropicEmulator();
    case 'gemini':
      return startGeminiEmulator();
    case 'codex_responses':
      return startResponsesEmulator();
    case 'bedrock_converse':
      return startBedrockEmulator();
  }
}

/** Starts the emulator of `api` and returns its target. */
export async function startFaultTarget(api: FaultTargetApi): Promise<FaultTarget> {
  const emulator = await startEmulator(api);
  return {
    transport: TRANSPORT_ROUTES[api].transport(),
    addFault: (fault) => ('addFault' in emulator ? emulator.addFault(fault) : emulator.faults.add(fault)),
    request: (options = {}) => ({
      ...transportRequest(api, emulator.baseUrl, options.stream ?? true),
      ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    }),
    close: () => emulator.close(),
  };
}

/** The wire APIs of the five transports. */
export const FAULT_TARGET_APIS = [
  'chat_completions',
  'anthropic_messages',
  'gemini',
  'codex_responses',
  'bedrock_converse',
] as const;
export type FaultTargetApi = (typeof FAULT_TARGET_APIS)[number];

/** Everything a caller could print or store about the events: messages, bodies, causes, stacks. */
export function everythingSaid(events: readonly StreamEvent[]): string {
  const parts: string[] = [];
  for (const event of events) {
    parts.push(JSON.stringify(event));
    if (event.type === 'error') {
      let error: unknown = event.error;
      for (let depth = 0; error instanceof Error && depth < 5; depth++) {
        parts.push(error.message, error.stack ?? '', String((error as { body?: unknown }).body ?? ''));
        error = error.cause;
      }
    }
  }
  return parts.join('\n');
}
