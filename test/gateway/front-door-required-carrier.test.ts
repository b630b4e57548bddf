import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startChatEmulator } from '../../src/emulators/chat-completions/chat-emulator.js';
import type { ChatPersonaName } from '../../src/emulators/chat-completions/chat-emulator-types.js';
import { startGateway } from '../../src/gateway/gateway-serve.js';
import { silentLogger } from '../../src/logging/logger.js';
import { createMemorySessionStore } from '../../src/storage/memory-session-store.js';
import type { SessionStore } from '../../src/storage/session-store.js';
import { openSqliteSessionStore } from '../../src/storage/sqlite-session-store.js';
import { stateDbPath } from '../../src/storage/store-paths.js';
import { runHermes } from '../support/e2e.js';
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

async function aliasGateway(
  persona: ChatPersonaName,
  store: SessionStore = createMemorySessionStore(),
  headers: Record<string, string> = {},
) {
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
  const client = new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: 'client-key',
    maxRetries: 0,
    defaultHeaders: headers,
  });
  return { emulator, client, store, gateway };
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

  it('a failing request shows its decisions and the provider complaint: the inspector API and replay preview --explain', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hermes-diagnostics-'));
    const store = openSqliteSessionStore(stateDbPath(home));
    cleanups.push(async () => store.close());
    const { client, gateway } = await aliasGateway('copilot', store, { 'x-session-id': 'ses-diagnose-1' });
    expect(await toolLoop(client)).toContain('still requires a thought signature');
    const listed = (await (await fetch(`${gateway.url}/v1/sessions/ses-diagnose-1/requests`)).json()) as {
      data: { status: number; error?: string; decisions: { reason: string }[] }[];
    };
    const failed = listed.data.filter((record) => record.status === 400);
    expect(failed).toHaveLength(2);
    for (const record of failed) expect(record.error).toContain('is missing a `thought_signature`');
    expect(failed[1]!.decisions.map((decision) => decision.reason)).toContainEqual(
      expect.stringContaining("stand-in: Google's placeholder signature"),
    );
    const preview = await runHermes(['replay', 'preview', '--session', 'ses-diagnose-1', '--explain'], {
      home,
      workspace: process.cwd(),
    });
    expect(preview.code).toBe(0);
    expect(preview.stdout).toContain('failed requests: 2');
    expect(preview.stdout).toContain('custom|127.0.0.1|house-model HTTP 400');
    expect(preview.stdout).toMatch(/message \d+ tool_calls\[0\]\.extra_content: stand-in/);
  });
});
