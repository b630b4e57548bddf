import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import type { AnthropicEmulator } from '../../src/emulators/anthropic-messages/anthropic-emulator.js';
import { messagesConversation, messageText } from '../gateway/front-door-helpers.js';
import { useE2e } from '../support/e2e.js';

/**
 * SPEC §26.4 at the gateway's Messages front door, with the official SDK as Claude Code uses it:
 * the signed blocks travel to the client sealed in handles and come back with their binding
 * context, so an unchanged history keeps every block through the tool loop and later turns; a
 * client that edits an earlier message or its system prompt gets the blocks after the edit left
 * out, explained on the request record — and the emulator, in binding `error` mode, never sees a
 * stale block.
 */

const e2e = useE2e();
const TOKEN = 'binding-gateway-token';
const STALE_PREFIX = 'bound to another conversation (prefix changed)';

async function gatewayOver(emulator: AnthropicEmulator) {
  const config = [
    'gateway:',
    '  models:',
    `    'claude-*': { provider: anthropic, model: claude-fable-5-1, base_url: "${emulator.baseUrl}" }`,
    '',
  ].join('\n');
  const sandbox = e2e.sandbox({ config });
  const env = { HERMES_GATEWAY_TOKEN: TOKEN, ANTHROPIC_API_KEY: 'sk-ant-test' };
  const route = ['--provider', 'anthropic', '--model', 'claude-fable-5-1', '--base-url', emulator.baseUrl];
  return e2e.gateway([...route, '--api-key', 'sk-ant-test'], sandbox, env);
}

/** `m<index> <action>: <reason>` of the thinking decisions of the session's newest request. */
async function lastThinkingDecisions(url: string, sessionId: string): Promise<string[]> {
  const response = await fetch(`${url}/v1/sessions/${sessionId}/requests`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const body = (await response.json()) as {
    data: { decisions: { messageIndex: number; field: string; action: string; reason: string }[] }[];
  };
  return (body.data.at(-1)?.decisions ?? [])
    .filter((decision) => decision.field === 'thinking')
    .map((decision) => `m${decision.messageIndex} ${decision.action}: ${decision.reason}`);
}

function noStaleBlockSent(emulator: AnthropicEmulator): void {
  expect(emulator.binding).toEqual({ rejections: 0, drops: [] });
  expect(emulator.requests.filter((request) => request.status !== 200)).toEqual([]);
}

describe('hermes gateway /v1/messages with thinking-block binding (SPEC §26.4)', () => {
  it('handles keep every block valid; an edited earlier message or system prompt leaves the later blocks out, explained', async () => {
    const emulator = await e2e.anthropic({ binding: 'error' });
    const gateway = await gatewayOver(emulator);
    const sessionId = 'binding-front-door';
    const client = new Anthropic({
      baseURL: gateway.url,
      apiKey: TOKEN,
      maxRetries: 0,
      defaultHeaders: { 'x-claude-code-session-id': sessionId },
    });
    const chat = messagesConversation(client, 'claude-fable-5-1', 'You are a coding agent. (CLAUDE.md, first version)');
    const loop = await chat.turn('read the file notes.txt', { stream: false });
    expect(messageText(loop.at(-1)!)).toContain('The tool returned');
    const thanks = await chat.turn('thanks', { stream: true });
    expect(messageText(thanks.at(-1)!)).toContain('Reasoning continuity: intact (2/2)');
    // History index 0 is the client's system prompt.
    expect(await lastThinkingDecisions(gateway.url, sessionId)).toEqual([
      'm2 kept: signed: same issuer',
      'm4 kept: signed: same issuer',
    ]);

    // The client rewrites its second question after the fact: the blocks after it are stale.
    chat.messages[4] = { role: 'user', content: 'thanks a lot' };
    const edited = await chat.turn('and now?', { stream: false });
    expect(messageText(edited.at(-1)!)).toContain('You said: and now?');
    expect(await lastThinkingDecisions(gateway.url, sessionId)).toEqual([
      'm2 kept: signed: same issuer',
      'm4 kept: signed: same issuer',
      `m6 dropped: ${STALE_PREFIX}`,
    ]);

    // The client's system prompt changes (an edited CLAUDE.md): every block is stale.
    const changed = messagesConversation(client, 'claude-fable-5-1', 'You are a coding agent. (CLAUDE.md, edited)');
    changed.messages.push(...chat.messages);
    const after = await changed.turn('still there?', { stream: true });
    expect(messageText(after.at(-1)!)).toContain('You said: still there?');
    const decisions = await lastThinkingDecisions(gateway.url, sessionId);
    expect(decisions).toHaveLength(4);
    for (const decision of decisions) expect(decision).toContain(`dropped: ${STALE_PREFIX}`);
    noStaleBlockSent(emulator);
  });
});
