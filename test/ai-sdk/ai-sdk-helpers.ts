import { startAnthropicEmulator } from '../../src/emulators/anthropic-messages/anthropic-emulator.js';
import { startChatEmulator } from '../../src/emulators/chat-completions/chat-emulator.js';
import { startGeminiEmulator } from '../../src/emulators/gemini/gemini-emulator.js';
import { startResponsesEmulator } from '../../src/emulators/responses/responses-emulator.js';
import type { ReceivedRequest } from '../../src/emulators/shared/emulator-request-log.js';
import type { HermesModelSettings } from '../../src/ai-sdk/ai-sdk-model.js';

/**
 * The AI SDK provider's test routes: each emulator reached under its provider's real base URL
 * through a `fetch` that maps it to loopback (as `HERMES_CONNECT_TO` does for the CLI), so the
 * production rows of the route table apply. Tests of `hermes-ts/ai-sdk` need Node 22 or newer
 * (ai@7): they skip on Node 20 with that reason.
 */

/** True where `ai@7` runs. */
export const AI_SDK_NODE = Number(process.versions.node.split('.')[0]) >= 22;

/** The stated reason of a skip on Node 20. */
export const AI_SDK_SKIP_REASON = `ai@7 needs Node 22 or newer; this is Node ${process.versions.node}`;

/** A `fetch` sending requests for `from` (a URL prefix) to `to` instead. */
export function prefixFetch(from: string, to: string): typeof globalThis.fetch {
  return (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    return globalThis.fetch(url.startsWith(from) ? to + url.slice(from.length) : url, init);
  };
}

/** A started emulator and the settings of a route to it. */
export interface AiSdkRoute {
  name: string;
  requests: ReceivedRequest[];
  settings: HermesModelSettings;
  close(): Promise<void>;
}

/** One route of the matrix: its name and how to start it. */
export interface AiSdkRouteCase {
  name: string;
  start(): Promise<AiSdkRoute>;
}

function routeCase(
  name: string,
  realBaseUrl: string,
  start: () => Promise<{ baseUrl: string; requests: ReceivedRequest[]; close(): Promise<void> }>,
  settings: Omit<HermesModelSettings, 'baseUrl' | 'fetch'>,
): AiSdkRouteCase {
  return {
    name,
    async start() {
      const emulator = await start();
      return {
        name,
        requests: emulator.requests,
        close: () => emulator.close(),
        settings: {
          ...settings,
          apiKey: 'sk-emulator',
          baseUrl: realBaseUrl,
          fetch: prefixFetch(realBaseUrl, emulator.baseUrl),
        },
      };
    },
  };
}

/** DeepSeek, OpenRouter, Anthropic, Gemini and the Responses API, each on its real base URL. */
export const AI_SDK_ROUTES: readonly AiSdkRouteCase[] = [
  routeCase('deepseek', 'https://api.deepseek.com/v1', () => startChatEmulator({ persona: 'deepseek' }), {
    provider: 'deepseek',
    model: 'deepseek-v4-flash',
  }),
  routeCase('openrouter', 'https://openrouter.ai/api/v1', () => startChatEmulator({ persona: 'openrouter' }), {
    provider: 'openrouter',
    model: 'anthropic/claude-sonnet-4.5',
  }),
  routeCase('anthropic', 'https://api.anthropic.com', async () => startAnthropicEmulator(), {
    provider: 'anthropic',
    model: 'claude-opus-4-8',
  }),
  routeCase('gemini', 'https://generativelanguage.googleapis.com/v1beta', () => startGeminiEmulator(), {
    provider: 'google',
    model: 'gemini-3-pro-preview',
  }),
  routeCase('responses', 'https://api.openai.com/v1', () => startResponsesEmulator({ issuer: 'openai' }), {
    provider: 'openai-responses',
    model: 'gpt-5.4',
  }),
];

/** `ai` and `createHermes`, loaded only where ai@7 runs, with the `read_file` tool the emulators' scripted model calls. */
export async function loadAiSdk() {
  const ai = await import('ai');
  const { createHermes } = await import('../../src/ai-sdk-api.js');
  const tools = {
    read_file: ai.tool({
      description: 'Read a file',
      inputSchema: ai.jsonSchema<{ path: string }>({
        type: 'object',
        properties: { path: { type: 'string' } },
        required: ['path'],
      }),
      execute: async ({ path }) => (path === 'notes.txt' ? 'alpha beta\n' : 'no such file'),
    }),
  };
  return { ...ai, createHermes, tools };
}
