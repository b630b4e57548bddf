import * as acp from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { createAcpAgent, promptText, type AcpHost } from '../../src/acp/acp-agent.js';
import { historyUpdates } from '../../src/acp/acp-updates.js';
import { startChatEmulator } from '../../src/emulators/chat-completions/chat-emulator.js';
import { silentLogger } from '../../src/logging/logger.js';
import { createMemorySessionStore } from '../../src/storage/memory-session-store.js';

/**
 * The ACP agent in process (src/acp/), its client connected directly: the protocol's refusals
 * and what a stored history replays as. The real binary over stdio: test/e2e/e2e-acp.test.ts.
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connected() {
  const emulator = await startChatEmulator({ persona: 'openrouter' });
  cleanups.push(() => emulator.close());
  const store = createMemorySessionStore();
  const host: AcpHost = {
    store,
    logger: silentLogger(),
    version: 'test',
    yolo: false,
    findSession: (id) => store.getSession(id),
    openSession: async (session, cwd) => ({
      workspace: cwd,
      options: {
        store,
        route: { api: 'chat_completions', provider: 'openrouter', model: 'm', baseUrl: emulator.baseUrl },
        apiKey: 'k',
        reasoning: { enabled: true },
        workspace: cwd,
        logger: silentLogger(),
        newSession: session ? undefined : { provider: 'openrouter', model: 'm', api: 'chat_completions' },
      },
      close: async () => undefined,
    }),
  };
  const agent = createAcpAgent(host);
  cleanups.push(() => agent.close());
  const connection = acp.client({ name: 'test' }).connect(agent.app);
  cleanups.push(async () => connection.close());
  await connection.agent.request('initialize', { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  return { client: connection.agent, store };
}

describe('the ACP agent', () => {
  it('refuses an unknown session, a relative cwd and a prompt for a session it does not serve', async () => {
    const { client } = await connected();
    await expect(
      client.request('session/load', { sessionId: 'no-such-session', cwd: process.cwd(), mcpServers: [] }),
    ).rejects.toMatchObject({ code: -32002 });
    await expect(client.request('session/new', { cwd: 'relative/dir', mcpServers: [] })).rejects.toThrow(
      /cwd must be an absolute path/,
    );
    await expect(
      client.request('session/prompt', { sessionId: 'never-opened', prompt: [{ type: 'text', text: 'hi' }] }),
    ).rejects.toMatchObject({ code: -32002 });
  });

  it('answers a prompt and stores it as a Hermes session under the ACP session id', async () => {
    const { client, store } = await connected();
    const session = await client.buildSession(process.cwd()).start();
    const response = await session.prompt('hello');
    expect(response.stopReason).toBe('end_turn');
    const stored = await store.listMessages(session.sessionId);
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant']);
  });
});

describe('prompt text and replayed history', () => {
  it('reads text, linked and embedded files; names what it cannot read', () => {
    expect(
      promptText([
        { type: 'text', text: 'look at' },
        { type: 'resource_link', uri: 'file:///w/a.ts', name: 'a.ts' },
        { type: 'resource', resource: { uri: 'file:///w/b.ts', text: 'const b = 1;' } },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      ]),
    ).toBe(
      'look at\n\n[file: file:///w/a.ts]\n\n<file uri="file:///w/b.ts">\nconst b = 1;\n</file>\n\n[image omitted: hermes reads text only]',
    );
  });

  it('replays the user, the reasoning, the text, each call and its result', () => {
    const updates = historyUpdates(
      [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'read notes.txt' },
        {
          role: 'assistant',
          content: null,
          reasoning: 'I should read it',
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"notes.txt"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', tool_name: 'read_file', content: 'alpha beta\n' },
        { role: 'assistant', content: 'It says alpha beta.' },
      ],
      '/w',
    );
    expect(updates.map((update) => update.sessionUpdate)).toEqual([
      'user_message_chunk',
      'agent_thought_chunk',
      'tool_call',
      'tool_call_update',
      'agent_message_chunk',
    ]);
    expect(updates[2]).toMatchObject({
      toolCallId: 'c1',
      title: 'read_file notes.txt',
      kind: 'read',
      locations: [{ path: '/w/notes.txt' }],
    });
    expect(updates[3]).toMatchObject({ toolCallId: 'c1', status: 'completed' });
  });
});
