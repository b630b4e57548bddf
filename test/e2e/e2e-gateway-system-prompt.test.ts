import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { postChatCompletion, routeArgs, type Sandbox, showSession, useE2e } from '../support/e2e.js';

/**
 * The gateway's default system prompt (docs/gateway.md), through the built binary against the
 * DeepSeek chat emulator: a session created without a client system message stores `hermes
 * chat`'s default prompt (config.yaml `system_prompt` / `instructions` and the workspace's
 * AGENTS.md applied) as its first message and sends it; a client's system message replaces it.
 */

const e2e = useE2e();

/** One non-streaming turn; returns the session id the gateway answered with. */
async function turn(url: string, messages: { role: string; content: string }[], sessionId?: string) {
  const headers: Record<string, string> = sessionId ? { 'X-Hermes-Session-Id': sessionId } : {};
  const response = await postChatCompletion(url, { model: 'hermes', messages }, headers);
  expect(response.status).toBe(200);
  await response.json();
  return response.headers.get('X-Hermes-Session-Id') ?? '';
}

/** The system messages of a recorded request body. */
function systemOf(body: unknown): string[] {
  return (body as { messages: Message[] }).messages.filter((m) => m.role === 'system').map((m) => String(m.content));
}

async function storedFirst(sandbox: Sandbox, sessionId: string): Promise<Message | undefined> {
  return (await showSession(sandbox, sessionId)).messages[0];
}

describe('gateway default system prompt', () => {
  it("stores and sends hermes chat's default prompt with config.yaml instructions; later turns send the same bytes", async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const sandbox = e2e.sandbox({ config: 'instructions: Always answer in haiku.\n' });
    writeFileSync(join(sandbox.workspace, 'AGENTS.md'), 'Run npm test before committing.\n');
    const gateway = await e2e.gateway(routeArgs('deepseek', 'deepseek-v4-flash', emulator.baseUrl), sandbox);

    const sessionId = await turn(gateway.url, [{ role: 'user', content: 'hello' }]);
    const first = await storedFirst(sandbox, sessionId);
    expect(first?.role).toBe('system');
    const prompt = String(first?.content);
    expect(prompt).toMatch(/^You are Hermes, a coding agent/);
    expect(prompt).toContain(`Working directory: ${sandbox.workspace}`);
    expect(prompt).toContain('Run npm test before committing.');
    expect(prompt.trimEnd().endsWith('Always answer in haiku.')).toBe(true);
    expect(systemOf(emulator.requests[0]?.body)).toEqual([prompt]);

    // The next turn of the session sends the same stored bytes, and stores no second prompt.
    await turn(gateway.url, [{ role: 'user', content: 'again' }], sessionId);
    expect(systemOf(emulator.requests[1]?.body)).toEqual([prompt]);
    const roles = (await showSession(sandbox, sessionId)).messages.map((message) => message.role);
    expect(roles.filter((role) => role === 'system')).toHaveLength(1);
  });

  it('config.yaml system_prompt replaces the default role; a client system message replaces the whole default', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const sandbox = e2e.sandbox({ config: 'system_prompt: You are a terse release bot.\n' });
    const gateway = await e2e.gateway(routeArgs('deepseek', 'deepseek-v4-flash', emulator.baseUrl), sandbox);

    const configured = await turn(gateway.url, [{ role: 'user', content: 'hello' }]);
    const prompt = String((await storedFirst(sandbox, configured))?.content);
    expect(prompt).toMatch(/^You are a terse release bot\.\n\nTools: /);
    expect(prompt).not.toContain('You are Hermes');

    const clientSession = await turn(gateway.url, [
      { role: 'system', content: 'You are the client prompt.' },
      { role: 'user', content: 'hi' },
    ]);
    expect(await storedFirst(sandbox, clientSession)).toMatchObject({
      role: 'system',
      content: 'You are the client prompt.',
    });
    expect(systemOf(emulator.requests.at(-1)?.body)).toEqual(['You are the client prompt.']);
  });
});
