import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startChatEmulator } from '../../src/emulators/chat-completions/chat-emulator.js';
import type { ChatPersonaName } from '../../src/emulators/chat-completions/chat-emulator-types.js';
import { startGateway } from '../../src/gateway/gateway-serve.js';
import { silentLogger } from '../../src/logging/logger.js';
import { createMemorySessionStore } from '../../src/storage/memory-session-store.js';
import type { SessionStore } from '../../src/storage/session-store.js';
import { READ_FILE_SCHEMA, runClientTool } from './front-door-helpers.js';

/**
 * SPEC §26.2 recovery rows: a route that does not look like Gemini or Copilot (a house alias on
 * a loopback host) but answers "missing a `thought_signature`" learns a stand-in per (provider,
 * host, model): Google's placeholder first, the current step as text when the placeholder is
 * refused. The same route never pays the same 400 again, store-wide.
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const tools: OpenAI.Chat.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: READ_FILE_SCHEMA } },
];

async function aliasGateway(persona: ChatPersonaName, store: SessionStore = createMemorySessionStore()) {
  const emulator = await startChatEmulator({ persona });
  cleanups.push(() => emulator.close());
  const route = {
    route: { api: 'chat_completions' as const, provider: 'custom', model: 'house-model', baseUrl: emulator.baseUrl },
    apiKey: 'sk-house',
  };
  const gateway = await startGateway({
    store,
    route,
    workspace: process.cwd(),
    yolo: false,
    logger: silentLogger(),
    host: '127.0.0.1',
    port: 0,
  });
  cleanups.push(() => gateway.close());
  const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'client-key', maxRetries: 0 });
  return { emulator, client, store };
}

/** One tool loop through the chat door (stateless, streamed): the answer's text, or the error's message. */
async function toolLoop(client: OpenAI): Promise<string> {
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'read the file notes.txt' }];
  try {
    for (let step = 0; step < 3; step += 1) {
      const choice = (await client.chat.completions.create({ model: 'house-model', messages, tools })).choices[0]!;
      messages.push(choice.message as OpenAI.Chat.ChatCompletionMessageParam);
      if (choice.finish_reason !== 'tool_calls') return choice.message.content ?? '';
      for (const call of choice.message.tool_calls ?? []) {
        if (call.type !== 'function') continue;
        messages.push({
          role: 'tool',
          tool_call_id: call.id,
          content: runClientTool('read_file', { path: 'notes.txt' }),
        });
      }
    }
    return 'no answer';
  } catch (error) {
    return (error as Error).message;
  }
}

describe('required-carrier recovery (SPEC §26.2)', () => {
  it('a Gemini-like route learns the placeholder after one 400, then never pays it again', async () => {
    const { emulator, client, store } = await aliasGateway('gemini-openai');
    expect(await toolLoop(client)).toContain('The tool returned: alpha beta');
    expect(emulator.requests.map((request) => request.status)).toEqual([200, 400, 200]);
    expect(JSON.stringify(emulator.requests[2]?.body)).toContain('skip_thought_signature_validator');
    expect(await toolLoop(client)).toContain('The tool returned: alpha beta');
    expect(emulator.requests.map((request) => request.status)).toEqual([200, 400, 200, 200, 200]);
    const verdict = (await store.listVerdicts()).find((entry) => entry.model === 'house-model');
    expect(verdict?.fields).toContain('stand-in:placeholder');
  });

  it('a route that refuses the placeholder learns to send the step as text; the turn that failed says so in one line', async () => {
    const { emulator, client, store } = await aliasGateway('copilot');
    const failed = await toolLoop(client);
    expect(failed).toContain('still requires a thought signature on a tool-call step');
    expect(failed).toContain('custom|127.0.0.1|house-model');
    expect(emulator.requests.map((request) => request.status)).toEqual([200, 400, 400]);
    expect(await toolLoop(client)).toContain('The tool returned: alpha beta');
    expect(emulator.requests.map((request) => request.status)).toEqual([200, 400, 400, 200, 200]);
    const sent = (emulator.requests[4]?.body as { messages: { role: string; content: unknown }[] }).messages;
    expect(sent.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(String(sent[2]?.content)).toMatch(/^\[tool result read_file\]\n/);
    const verdict = (await store.listVerdicts()).find((entry) => entry.model === 'house-model');
    expect(verdict?.fields).toContain('stand-in:text');
  });
});
