import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { messageText, messagesConversation } from '../gateway/front-door-helpers.js';
import { parseJson, runHermes, useE2e } from '../support/e2e.js';
import { GATEWAY_TOKEN, startFrontDoorFleet, upstreamStatuses, type FrontDoorModel } from './e2e-front-door-helpers.js';

/**
 * Claude Code's door beyond the matrix (e2e-front-door-matrix.test.ts), end to end (SPEC §25.6):
 * the official `@anthropic-ai/sdk` against a real `hermes gateway` (the token as `x-api-key`, as
 * Claude Code sends ANTHROPIC_API_KEY). A model switch mid-session with thinking dropped the way
 * Claude Code drops it, and handles that do not open, each drop visible in
 * `hermes replay preview --explain` and the inspector.
 */

const e2e = useE2e();

function client(url: string, headers: Record<string, string> = {}): Anthropic {
  return new Anthropic({ baseURL: url, apiKey: GATEWAY_TOKEN, maxRetries: 0, defaultHeaders: headers });
}

describe('hermes gateway /v1/messages with the Anthropic SDK', () => {
  it('a model switch mid-session (thinking dropped, as Claude Code does) never fails a later turn; sessions show and replay preview see the turns', async () => {
    const fleet = await startFrontDoorFleet(e2e);
    const sessionId = '9f1c2d3e-0000-4000-8000-00000000abcd';
    const chat = messagesConversation(client(fleet.gateway.url, { 'x-claude-code-session-id': sessionId }), 'x');
    const order: FrontDoorModel[] = [
      'claude-sonnet-4-5',
      'deepseek',
      'gemini',
      'kimi',
      'openrouter',
      'claude-sonnet-4-5',
    ];
    for (const model of order) {
      const answers = await chat.turn('read the file notes.txt', { stream: model !== 'gemini', model });
      expect({ model, text: messageText(answers.at(-1)!) }).toEqual({
        model,
        text: expect.stringContaining('The tool returned'),
      });
      // Claude Code after a model change: every thinking block of earlier turns is gone.
      for (const message of chat.messages) {
        if (message.role === 'assistant' && Array.isArray(message.content)) {
          message.content = message.content.filter((block) => block.type !== 'thinking');
        }
      }
    }
    expect(upstreamStatuses(fleet).filter((status) => status !== 200)).toEqual([]);
    const shown = parseJson<{ messages: { role: string }[] }>(
      await runHermes(['sessions', 'show', sessionId, '--json'], fleet.sandbox, fleet.env),
    );
    expect(shown.messages.filter((message) => message.role === 'assistant')).toHaveLength(order.length * 2);
    const preview = await runHermes(
      ['replay', 'preview', '--session', sessionId, '--explain'],
      fleet.sandbox,
      fleet.env,
    );
    expect(preview.code).toBe(0);
    expect(preview.stdout).toContain('gateway handles: the newest front-door request opened');
  });

  it("a tampered, a truncated, another gateway's and a missing handle are dropped, never a 5xx, each drop in replay preview --explain and the inspector", async () => {
    const fleet = await startFrontDoorFleet(e2e);
    const other = await startFrontDoorFleet(e2e); // its own HERMES_HOME: its own key
    const sessionId = 'handles-e2e';
    const foreign = messagesConversation(client(other.gateway.url), 'deepseek');
    const [foreignCall] = await foreign.turn('read the file notes.txt', { stream: false });
    const foreignHandle = (foreignCall?.content[0] as Anthropic.ThinkingBlock).signature;
    const chat = messagesConversation(client(fleet.gateway.url, { 'x-claude-code-session-id': sessionId }), 'deepseek');
    await chat.turn('read the file notes.txt', { stream: false });
    await chat.turn('read the file notes.txt', { stream: false });
    const thinkingBlocks = chat.messages
      .filter((message) => message.role === 'assistant')
      .map((message) => (message.content as Anthropic.ContentBlockParam[])[0] as Anthropic.ThinkingBlockParam);
    const [first, second, third, fourth] = thinkingBlocks;
    // One character changed for another (the handle is random: its own character may be an 'x').
    const flipped = first!.signature[40] === 'x' ? 'y' : 'x';
    first!.signature = `${first!.signature.slice(0, 40)}${flipped}${first!.signature.slice(41)}`;
    second!.signature = second!.signature.slice(0, -30);
    third!.signature = foreignHandle;
    fourth!.signature = ''; // missing, as Claude Code keeps an unsigned block
    const [answer] = await chat.turn('thanks', { stream: true });
    expect(messageText(answer!)).toContain('You said: thanks');
    expect(upstreamStatuses(fleet).filter((status) => status !== 200)).toEqual([]);
    const preview = await runHermes(
      ['replay', 'preview', '--session', sessionId, '--explain'],
      fleet.sandbox,
      fleet.env,
    );
    for (const reason of ['does not authenticate', 'a key this store does not hold', 'empty or null']) {
      expect(preview.stdout).toContain(reason);
    }
    expect(preview.stdout.match(/dropped handle content\[0\]\.signature/g)).toHaveLength(4);
    const inspector = await fetch(`${fleet.gateway.url}/v1/sessions/${sessionId}/requests`, {
      headers: { authorization: `Bearer ${GATEWAY_TOKEN}` },
    });
    const records = (await inspector.json()) as { data: { decisions: { field: string; action: string }[] }[] };
    const dropped = records.data
      .at(-1)
      ?.decisions.filter((decision) => decision.field.startsWith('handle ') && decision.action === 'dropped');
    expect(dropped).toHaveLength(4);
  });
});
