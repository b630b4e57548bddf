import { afterEach, describe, expect, it } from 'vitest';
import type { AssistantMessage, Message } from '../../src/core/message.js';
import { startChatEmulator } from '../../src/emulators/chat-completions/chat-emulator.js';
import type { RunningChatEmulator } from '../../src/emulators/chat-completions/chat-emulator-types.js';
import { openSqliteSessionStore } from '../../src/storage/sqlite-session-store.js';
import { stateDbPath } from '../../src/storage/store-paths.js';
import { assistantsOf, makeSandbox, parseJson, runHermes } from '../support/e2e.js';

/**
 * Issue 4, Done when: the real `hermes` binary against emulators over loopback HTTP — a
 * tool-calling session, then `--resume`, with every persona's carriers checked on the bytes the
 * emulator received.
 */

let emulator: RunningChatEmulator | null = null;
afterEach(async () => {
  await emulator?.close();
  emulator = null;
});

interface ChatJson {
  session_id: string;
  answer: string;
  tool_calls: { name: string; result: string }[];
}

async function storedMessages(home: string, sessionId: string): Promise<Message[]> {
  const store = openSqliteSessionStore(stateDbPath(home));
  try {
    return await store.listMessages(sessionId);
  } finally {
    await store.close();
  }
}

describe('hermes chat against the emulators, then --resume (issue 4)', () => {
  it('DeepSeek: the first request after resume carries every stored reasoning_content, " " pads included, with no 400', async () => {
    emulator = await startChatEmulator({ persona: 'deepseek' });
    const sandbox = makeSandbox();
    const route = [
      '--provider',
      'deepseek',
      '--model',
      'deepseek-v4-flash',
      '--base-url',
      emulator.baseUrl,
      '--api-key',
      'sk-test',
    ];
    const first = parseJson<ChatJson>(
      await runHermes(['chat', '-q', 'read the file notes.txt', '--json', ...route], sandbox),
    );
    expect(first.tool_calls.map((call) => call.name)).toEqual(['read_file']);
    expect(first.answer).toContain('alpha beta');

    // A bare tool-call turn without reasoning (as another route would have stored it) joins the history.
    const store = openSqliteSessionStore(stateDbPath(sandbox.home));
    await store.appendMessages(first.session_id, [
      { role: 'user', content: 'list the directory' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'bare_1', type: 'function', function: { name: 'list_directory', arguments: '{"path":"."}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'bare_1', content: 'notes.txt' },
      { role: 'assistant', content: 'One file.' },
    ]);
    await store.close();

    const before = emulator.requests.length;
    const resumed = await runHermes(
      ['chat', '--resume', first.session_id, '-q', 'and now?', '--json', ...route],
      sandbox,
    );
    expect(resumed.code).toBe(0);
    const request = emulator.requests[before];
    expect(request?.status).toBe(200);
    const stored = (await storedMessages(sandbox.home, first.session_id)).filter(
      (message): message is AssistantMessage => message.role === 'assistant',
    );
    const sent = assistantsOf(request?.body);
    expect(sent.length).toBe(4);
    // Stored reasoning_content goes back verbatim; the bare tool turn and the bare answer are padded with " ".
    expect(sent.map((message) => message['reasoning_content'])).toEqual([
      stored[0]?.reasoning_content,
      stored[1]?.reasoning_content,
      ' ',
      ' ',
    ]);
    expect(emulator.requests.every((received) => received.status === 200)).toBe(true);
  });

  it('OpenRouter: reasoning_details go back byte-identical after resume and the model reports its reasoning intact', async () => {
    emulator = await startChatEmulator({ persona: 'openrouter' });
    const sandbox = makeSandbox();
    const route = [
      '--provider',
      'openrouter',
      '--model',
      'anthropic/claude-sonnet-4.5',
      '--base-url',
      emulator.baseUrl,
      '--api-key',
      'sk-or',
    ];
    const first = parseJson<ChatJson>(
      await runHermes(['chat', '-q', 'read the file notes.txt', '--json', ...route], sandbox),
    );
    const stored = (await storedMessages(sandbox.home, first.session_id)).filter(
      (message): message is AssistantMessage => message.role === 'assistant',
    );
    const details = stored.map((message) => message.reasoning_details);
    expect(details.every((entries) => entries?.some((entry) => entry['type'] === 'reasoning.encrypted'))).toBe(true);
    expect(details.every((entries) => entries?.some((entry) => typeof entry['signature'] === 'string'))).toBe(true);

    const before = emulator.requests.length;
    const resumed = parseJson<ChatJson>(
      await runHermes(['chat', '--resume', first.session_id, '-q', 'thanks', '--json', ...route], sandbox),
    );
    const request = emulator.requests[before];
    const sent = assistantsOf(request?.body);
    // Byte-identical: the serialised details inside the raw request equal the stored ones.
    for (const [index, entries] of details.entries()) {
      expect(request?.raw).toContain(JSON.stringify(entries));
      expect(sent[index]?.['reasoning_details']).toEqual(entries);
    }
    expect(resumed.answer).toContain('Reasoning continuity: intact (2/2).');
    expect(emulator.requests.every((received) => received.status === 200)).toBe(true);
  });

  it('Copilot: the latest reasoning_opaque goes back after resume, lifted only on the githubcopilot.com route', async () => {
    emulator = await startChatEmulator({ persona: 'copilot' });
    const sandbox = makeSandbox();
    const env = { HERMES_CONNECT_TO: `https://api.githubcopilot.com=${new URL(emulator.baseUrl).origin}` };
    const route = [
      '--provider',
      'copilot',
      '--model',
      'claude-sonnet-4.5',
      '--base-url',
      'https://api.githubcopilot.com/v1',
      '--api-key',
      'gho_x',
    ];
    const first = parseJson<ChatJson>(
      await runHermes(['chat', '-q', 'read the file notes.txt', '--json', ...route], sandbox, env),
    );
    const toolTurn = (await storedMessages(sandbox.home, first.session_id)).find(
      (message): message is AssistantMessage => message.role === 'assistant' && Boolean(message.tool_calls?.length),
    );
    const record = toolTurn?.reasoning_details?.find((entry) => entry['type'] === 'hermes.native_assistant');
    expect(typeof record?.['reasoning_opaque']).toBe('string');

    const before = emulator.requests.length;
    const resumed = await runHermes(
      ['chat', '--resume', first.session_id, '-q', 'again', '--json', ...route],
      sandbox,
      env,
    );
    expect(resumed.code).toBe(0);
    const sent = assistantsOf(emulator.requests[before]?.body);
    expect(sent[0]?.['reasoning_opaque']).toBe(record?.['reasoning_opaque']);
    // The private record itself never reaches the wire.
    expect(emulator.requests[before]?.raw).not.toContain('hermes.native_assistant');
    expect(emulator.requests.every((received) => received.status === 200)).toBe(true);
  });

  it('Mistral: nothing reasoning-related is sent, and no 400', async () => {
    emulator = await startChatEmulator({ persona: 'strict-mistral' });
    const sandbox = makeSandbox();
    const route = [
      '--provider',
      'mistral',
      '--model',
      'magistral-medium-latest',
      '--base-url',
      emulator.baseUrl,
      '--api-key',
      'm',
    ];
    const first = parseJson<ChatJson>(
      await runHermes(['chat', '-q', 'read the file notes.txt', '--json', ...route], sandbox),
    );
    const resumed = await runHermes(['chat', '--resume', first.session_id, '-q', 'ok', '--json', ...route], sandbox);
    expect(resumed.code).toBe(0);
    for (const request of emulator.requests) {
      expect(request.status).toBe(200);
      expect(request.raw).not.toMatch(/reasoning|extra_content|thought_signature/);
    }
  });

  it('sessions show --json round-trips the captured messages, and the API key is stored nowhere', async () => {
    emulator = await startChatEmulator({ persona: 'openrouter' });
    const sandbox = makeSandbox();
    const route = [
      '--provider',
      'openrouter',
      '--model',
      'openai/gpt-5',
      '--base-url',
      emulator.baseUrl,
      '--api-key',
      'sk-secret-123',
    ];
    const first = parseJson<ChatJson>(
      await runHermes(['chat', '-q', 'read the file notes.txt', '--json', ...route], sandbox),
    );
    const shown = parseJson<{ messages: Message[]; model_config: object }>(
      await runHermes(['sessions', 'show', first.session_id, '--json'], sandbox),
    );
    expect(shown.messages).toEqual(await storedMessages(sandbox.home, first.session_id));
    expect(shown.model_config).toEqual({});
    const exported = await runHermes(['sessions', 'export', first.session_id], sandbox);
    const lines = exported.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.slice(1)).toEqual(shown.messages);
    const logs = await runHermes(['logs', '-n', '1000'], sandbox);
    for (const text of [JSON.stringify(shown), exported.stdout, logs.stdout])
      expect(text).not.toContain('sk-secret-123');
  });

  it.each([
    ['deepseek', 'deepseek', 'deepseek-v4-flash'],
    ['openrouter', 'openrouter', 'anthropic/claude-sonnet-4.5'],
  ] as const)('%s: replay preview --session shows the body the next turn sends', async (persona, provider, model) => {
    emulator = await startChatEmulator({ persona });
    const sandbox = makeSandbox();
    const route = ['--provider', provider, '--model', model, '--base-url', emulator.baseUrl, '--api-key', 'k'];
    const first = parseJson<ChatJson>(
      await runHermes(['chat', '-q', 'read the file notes.txt', '--json', ...route], sandbox),
    );
    const preview = await runHermes(['replay', 'preview', '--session', first.session_id, '--json'], sandbox);
    expect(preview.code).toBe(0);
    const body = JSON.parse(preview.stdout) as { messages: unknown[]; tools: unknown[]; model: string };
    const before = emulator.requests.length;
    await runHermes(['chat', '--resume', first.session_id, '-q', 'next', '--json', ...route], sandbox);
    const sent = emulator.requests[before]?.body as { messages: unknown[]; tools: unknown[]; model: string };
    // The next turn sends exactly the previewed messages plus its new user message, with the same tools.
    expect(sent.messages.slice(0, -1)).toEqual(body.messages);
    expect(sent.messages.at(-1)).toMatchObject({ role: 'user', content: 'next' });
    expect(sent.tools).toEqual(body.tools);
    expect(sent.model).toBe(body.model);
    const explain = await runHermes(['replay', 'preview', '--session', first.session_id, '--explain'], sandbox);
    expect(explain.stdout).toMatch(/reasoning_content/);
  });
});
