import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { responsesConversation, responseText } from '../gateway/front-door-helpers.js';
import { parseJson, runHermes, useE2e } from '../support/e2e.js';
import { GATEWAY_TOKEN, startFrontDoorFleet, upstreamStatuses } from './e2e-front-door-helpers.js';

/**
 * Codex's door beyond the matrix (e2e-front-door-matrix.test.ts), end to end (SPEC §25.6): the
 * official `openai` SDK's Responses API (`store: false`, as Codex sends it) against a real
 * `hermes gateway`, across a model switch with the reasoning items kept the way Codex keeps them.
 */

const e2e = useE2e();

function client(url: string, headers: Record<string, string> = {}): OpenAI {
  return new OpenAI({ baseURL: `${url}/v1`, apiKey: GATEWAY_TOKEN, maxRetries: 0, defaultHeaders: headers });
}

describe('hermes gateway /v1/responses with the openai SDK', () => {
  it('Codex across a model switch keeps its reasoning items (with null contents); every later turn answers, the session mirrors them', async () => {
    const fleet = await startFrontDoorFleet(e2e);
    const codex = responsesConversation(client(fleet.gateway.url, { 'session-id': 'codex-switch' }), 'x');
    for (const model of ['openrouter', 'deepseek', 'claude-sonnet-4-5', 'kimi', 'gemini', 'openrouter']) {
      const responses = await codex.turn('read the file notes.txt', { stream: model !== 'kimi', model });
      expect({ model, text: responseText(responses.at(-1)!) }).toEqual({
        model,
        text: expect.stringContaining('The tool returned'),
      });
      // What Codex keeps: every item, reasoning with "content": null, no ids (opencode drops them).
      for (const item of codex.input as unknown as Record<string, unknown>[]) {
        if (item['type'] === 'reasoning') item['content'] = null;
        delete item['id'];
      }
    }
    expect(upstreamStatuses(fleet).filter((status) => status !== 200)).toEqual([]);
    const shown = parseJson<{ messages: { role: string }[] }>(
      await runHermes(['sessions', 'show', 'codex-switch', '--json'], fleet.sandbox, fleet.env),
    );
    expect(shown.messages.filter((message) => message.role === 'tool')).toHaveLength(6);
  });
});
