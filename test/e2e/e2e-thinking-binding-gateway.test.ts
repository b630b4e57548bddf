import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import type { AnthropicEmulator } from '../../src/emulators/anthropic-messages/anthropic-emulator.js';
import { messagesConversation, messageText } from '../gateway/front-door-helpers.js';
import { useE2e, withStateDb } from '../support/e2e.js';

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

async function gatewayOver(emulator: AnthropicEmulator, model = 'claude-fable-5-1') {
  const config = [
    'gateway:',
    '  models:',
    `    'claude-*': { provider: anthropic, model: ${model}, base_url: "${emulator.baseUrl}" }`,
    '',
  ].join('\n');
  const sandbox = e2e.sandbox({ config });
  const env = { HERMES_GATEWAY_TOKEN: TOKEN, ANTHROPIC_API_KEY: 'sk-ant-test' };
  const route = ['--provider', 'anthropic', '--model', model, '--base-url', emulator.baseUrl];
  const gateway = await e2e.gateway([...route, '--api-key', 'sk-ant-test'], sandbox, env);
  return { url: gateway.url, home: sandbox.home };
}

/** The official SDK as Claude Code configures it for one session. */
function claudeCodeClient(url: string, sessionId: string): Anthropic {
  return new Anthropic({
    baseURL: url,
    apiKey: TOKEN,
    maxRetries: 0,
    defaultHeaders: { 'x-claude-code-session-id': sessionId },
  });
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
    const client = claudeCodeClient(gateway.url, sessionId);
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

describe('hermes gateway /v1/messages on a model Anthropic does not list as checking the prefix (SPEC §26.4)', () => {
  const OPUS4 = 'claude-opus-4-8';

  it('a block refused because the system prompt changed teaches the route once; later conversations leave such blocks out', async () => {
    const emulator = await e2e.anthropic();
    const gateway = await gatewayOver(emulator, OPUS4);
    // Claude Code sends another system prompt on `--continue` than on the turn it continues.
    const conversation = async (sessionId: string) => {
      const client = claudeCodeClient(gateway.url, sessionId);
      const first = messagesConversation(client, OPUS4, 'You are a coding agent. (print mode)');
      await first.turn('pick a number', { stream: false });
      const next = messagesConversation(client, OPUS4, 'You are a coding agent. (continued)');
      next.messages.push(...first.messages);
      const answer = await next.turn('which one?', { stream: true });
      expect(messageText(answer.at(-1)!)).toContain('You said: which one?');
      return lastThinkingDecisions(gateway.url, sessionId);
    };
    const statuses = () => emulator.requests.map((request) => request.status);

    // The first conversation pays the 400: the block is sent, refused, and the retry leaves it out.
    await conversation('system-binding-1');
    expect(statuses()).toEqual([200, 400, 200]);
    const fields = withStateDb(gateway.home, (database) =>
      database.prepare('SELECT route_key, fields FROM verdicts').all(),
    );
    expect(fields).toEqual([{ route_key: `anthropic|127.0.0.1|${OPUS4}`, fields: '["binding:system"]' }]);

    // Every later conversation on the route leaves the stale block out before sending, explained.
    expect(await conversation('system-binding-2')).toEqual([
      'm2 dropped: bound to another conversation (system prompt changed)',
    ]);
    expect(statuses()).toEqual([200, 400, 200, 200, 200]);
  });

  it('an unchanged system prompt keeps the block on such a model', async () => {
    const emulator = await e2e.anthropic();
    const gateway = await gatewayOver(emulator, OPUS4);
    const chat = messagesConversation(
      claudeCodeClient(gateway.url, 'system-binding-same'),
      OPUS4,
      'You are a coding agent.',
    );
    await chat.turn('pick a number', { stream: false });
    const answer = await chat.turn('which one?', { stream: false });
    expect(messageText(answer.at(-1)!)).toContain('Reasoning continuity: intact (1/1)');
    expect(await lastThinkingDecisions(gateway.url, 'system-binding-same')).toEqual(['m2 kept: signed: same issuer']);
    expect(emulator.requests.map((request) => request.status)).toEqual([200, 200]);
  });
});
