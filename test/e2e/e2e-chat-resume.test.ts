import { describe, expect, it } from 'vitest';
import type { AssistantMessage } from '../../src/core/message.js';
import { openSqliteSessionStore } from '../../src/storage/sqlite-session-store.js';
import { stateDbPath } from '../../src/storage/store-paths.js';
import {
  assistantsOf,
  chatJson,
  routeArgs,
  runHermes,
  showSession,
  storedAssistants,
  storedMessages,
  useE2e,
} from '../support/e2e.js';
import { toolCall } from '../support/messages.js';

/**
 * The real `hermes` binary against emulators over loopback HTTP — a
 * tool-calling session, then `--resume`, with every persona's carriers checked on the bytes the
 * emulator received.
 */

const e2e = useE2e();

describe('hermes chat against the emulators, then --resume', () => {
  it('DeepSeek: the first request after resume carries every stored reasoning_content, " " pads included, with no 400', async () => {
    const { emulator, sandbox, route } = await e2e.chatRoute(
      { persona: 'deepseek' },
      'deepseek',
      'deepseek-v4-flash',
      'sk-test',
    );
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route]);
    expect(first.tool_calls.map((call) => call.name)).toEqual(['read_file']);
    expect(first.answer).toContain('alpha beta');

    // A bare tool-call turn without reasoning (as another route would have stored it) joins the history.
    const store = openSqliteSessionStore(stateDbPath(sandbox.home));
    await store.appendMessages(first.session_id, [
      { role: 'user', content: 'list the directory' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [toolCall('bare_1', 'list_directory', '{"path":"."}')],
      },
      { role: 'tool', tool_call_id: 'bare_1', content: 'notes.txt' },
      { role: 'assistant', content: 'One file.' },
    ]);
    await store.close();

    const before = emulator.requests.length;
    await chatJson(sandbox, ['--resume', first.session_id, '-q', 'and now?', ...route]);
    const request = emulator.requests[before];
    expect(request?.status).toBe(200);
    const stored = await storedAssistants(sandbox.home, first.session_id);
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
    const { emulator, sandbox, route } = await e2e.chatRoute(
      { persona: 'openrouter' },
      'openrouter',
      'anthropic/claude-sonnet-4.5',
      'sk-or',
    );
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route]);
    const stored = await storedAssistants(sandbox.home, first.session_id);
    const details = stored.map((message) => message.reasoning_details);
    expect(details.every((entries) => entries?.some((entry) => entry['type'] === 'reasoning.encrypted'))).toBe(true);
    expect(details.every((entries) => entries?.some((entry) => typeof entry['signature'] === 'string'))).toBe(true);

    const before = emulator.requests.length;
    const resumed = await chatJson(sandbox, ['--resume', first.session_id, '-q', 'thanks', ...route]);
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
    const emulator = await e2e.chat({ persona: 'copilot' });
    const sandbox = e2e.sandbox();
    const env = { HERMES_CONNECT_TO: `https://api.githubcopilot.com=${new URL(emulator.baseUrl).origin}` };
    const route = routeArgs('copilot', 'claude-sonnet-4.5', 'https://api.githubcopilot.com/v1', 'gho_x');
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route], env);
    const toolTurn = (await storedMessages(sandbox.home, first.session_id)).find(
      (message): message is AssistantMessage => message.role === 'assistant' && Boolean(message.tool_calls?.length),
    );
    const record = toolTurn?.reasoning_details?.find((entry) => entry['type'] === 'hermes.native_assistant');
    expect(typeof record?.['reasoning_opaque']).toBe('string');

    const before = emulator.requests.length;
    await chatJson(sandbox, ['--resume', first.session_id, '-q', 'again', ...route], env);
    const sent = assistantsOf(emulator.requests[before]?.body);
    expect(sent[0]?.['reasoning_opaque']).toBe(record?.['reasoning_opaque']);
    // The private record itself never reaches the wire.
    expect(emulator.requests[before]?.raw).not.toContain('hermes.native_assistant');
    expect(emulator.requests.every((received) => received.status === 200)).toBe(true);
  });

  it('Mistral: nothing reasoning-related is sent, and no 400', async () => {
    const { emulator, sandbox, route } = await e2e.chatRoute(
      { persona: 'strict-mistral' },
      'mistral',
      'magistral-medium-latest',
      'm',
    );
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route]);
    await chatJson(sandbox, ['--resume', first.session_id, '-q', 'ok', ...route]);
    for (const request of emulator.requests) {
      expect(request.status).toBe(200);
      expect(request.raw).not.toMatch(/reasoning|extra_content|thought_signature/);
    }
  });

  it('sessions show --json round-trips the captured messages, and the API key is stored nowhere', async () => {
    const { sandbox, route } = await e2e.chatRoute(
      { persona: 'openrouter' },
      'openrouter',
      'openai/gpt-5',
      'sk-secret-123',
    );
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route]);
    const shown = await showSession(sandbox, first.session_id);
    expect(shown.messages).toEqual(await storedMessages(sandbox.home, first.session_id));
    expect(shown.model_config).toEqual({ workspace: sandbox.workspace });
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
    const { emulator, sandbox, route } = await e2e.chatRoute({ persona }, provider, model);
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route]);
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
