import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { parseJson, readWorkspaceFile, runHermes, useE2e } from '../support/e2e.js';
import { scaledTimeout } from '../support/timeouts.js';
import { chunkText, runAcpTurn, shownSince, startAcpAgent, updatesSettled } from './e2e-acp-helpers.js';

/**
 * `hermes acp` end to end (SPEC §26.9, docs/acp.md): the official ACP library's client side
 * drives the real binary over stdio, as Zed does. Two prompts (a tool read through the editor, a
 * write the editor approves and performs), then a new agent process loads the session — its
 * history replayed as updates — and a third prompt finds every earlier turn's reasoning intact.
 * A prompt cancelled mid-answer ends `cancelled` and leaves the session as it was plus the
 * question; the next prompt goes on intact.
 */

const e2e = useE2e();

/** The stored messages of a session, as `hermes sessions show --json` prints them. */
async function shownMessages(sandbox: Parameters<typeof runHermes>[1], sessionId: string): Promise<Message[]> {
  return parseJson<{ messages: Message[] }>(await runHermes(['sessions', 'show', sessionId, '--json'], sandbox))
    .messages;
}

describe('hermes acp with an ACP client', () => {
  it('two prompts with an approved write, then a new process loads the session: replayed, and the third prompt is intact', async () => {
    const sandbox = e2e.sandbox();
    // No provider configured: the built-in emulator, as `hermes chat` runs offline.
    const first = await startAcpAgent(e2e, sandbox);
    expect(first.init).toMatchObject({ protocolVersion: 1, agentCapabilities: { loadSession: true } });
    const { sessionId } = await first.agent.request('session/new', { cwd: sandbox.workspace, mcpServers: [] });

    const read = await runAcpTurn(first, sessionId, 'read the file notes.txt');
    expect(read.stopReason).toBe('end_turn');
    expect(read.thoughts).toContain('I should call read_file');
    expect(read.updates).toContainEqual(
      expect.objectContaining({ sessionUpdate: 'tool_call', kind: 'read', status: 'pending' }),
    );
    expect(read.updates).toContainEqual(
      expect.objectContaining({ sessionUpdate: 'tool_call_update', status: 'completed' }),
    );
    expect(read.text).toContain('The tool returned: alpha beta');
    expect(read.text).toContain('Reasoning continuity: intact (1/1).');
    expect(first.reads).toEqual([join(sandbox.workspace, 'notes.txt')]);

    const write = await runAcpTurn(first, sessionId, 'write "hello" to out.txt');
    expect(first.permissions.map((request) => request.toolCall.title)).toEqual(['write out.txt (new file, 1 line)']);
    expect(first.writes).toEqual([{ path: join(sandbox.workspace, 'out.txt'), content: 'hello' }]);
    expect(readWorkspaceFile(sandbox, 'out.txt')).toBe('hello');
    expect(write.text).toContain('Reasoning continuity: intact (3/3).');
    expect(await first.close()).toBe(0);

    const second = await startAcpAgent(e2e, sandbox);
    await second.agent.request('session/load', { sessionId, cwd: sandbox.workspace, mcpServers: [] });
    await updatesSettled();
    const replayed = shownSince(second, sessionId, 0);
    expect(replayed.updates.filter((update) => update.sessionUpdate === 'user_message_chunk').map(chunkText)).toEqual([
      'read the file notes.txt',
      'write "hello" to out.txt',
    ]);
    expect(replayed.updates.filter((update) => update.sessionUpdate === 'tool_call')).toHaveLength(2);
    expect(replayed.thoughts).toContain('I should call write_file');
    expect(replayed.text).toContain('The tool returned: alpha beta');

    const third = await runAcpTurn(second, sessionId, 'thanks');
    expect(third.text).toContain('You said: thanks');
    expect(third.text).toContain('Reasoning continuity: intact (4/4).');
    await second.close();

    // An ordinary Hermes session: sessions show and chat --resume continue it.
    const messages = await shownMessages(sandbox, sessionId);
    expect(messages.filter((message) => message.role === 'assistant')).toHaveLength(5);
    const resumed = await runHermes(['chat', '--resume', sessionId, '-q', 'and now?'], sandbox);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('Reasoning continuity: intact (5/5).');
  });

  it('a prompt cancelled mid-answer ends cancelled, stores no partial answer, and the next prompt is intact', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const sandbox = e2e.sandbox();
    const route = [
      '--provider',
      'deepseek',
      '--model',
      'deepseek-v4-flash',
      '--base-url',
      'https://api.deepseek.com/v1',
    ];
    const env = {
      DEEPSEEK_API_KEY: 'sk-deepseek-test',
      HERMES_CONNECT_TO: `https://api.deepseek.com=${new URL(emulator.baseUrl).origin}`,
    };
    const agent = await startAcpAgent(e2e, sandbox, route, env);
    const { sessionId } = await agent.agent.request('session/new', { cwd: sandbox.workspace, mcpServers: [] });
    expect((await runAcpTurn(agent, sessionId, 'read the file notes.txt')).text).toContain('intact (1/1)');
    const before = await shownMessages(sandbox, sessionId);

    emulator.addFault({ kind: 'endless-deltas', intervalMs: 20 });
    const from = agent.updates.get(sessionId)?.length ?? 0;
    const prompt = agent.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'tell me a long story' }],
    });
    // Mid-answer: some of the answer has reached the editor.
    const deadline = Date.now() + scaledTimeout(20_000);
    while (!shownSince(agent, sessionId, from).text.includes('delta 3') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(shownSince(agent, sessionId, from).text).toContain('delta 3');
    await agent.agent.notify('session/cancel', { sessionId });
    expect((await prompt).stopReason).toBe('cancelled');

    // The question is kept; no partial answer, no dangling call.
    const after = await shownMessages(sandbox, sessionId);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length)).toEqual([
      expect.objectContaining({ role: 'user', content: 'tell me a long story' }),
    ]);

    const next = await runAcpTurn(agent, sessionId, 'thanks');
    expect(next.stopReason).toBe('end_turn');
    expect(next.text).toContain('Reasoning continuity: intact (2/2).');
    expect(emulator.requests.map((request) => request.status)).not.toContain(400);
  });
});
