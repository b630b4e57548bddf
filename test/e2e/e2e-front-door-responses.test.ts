import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { responsesConversation, responseText } from '../gateway/front-door-helpers.js';
import { parseJson, runHermes, useE2e } from '../support/e2e.js';
import {
  CARRIER_CHECKS,
  FRONT_DOOR_MODELS,
  GATEWAY_TOKEN,
  startFrontDoorFleet,
  upstreamAssistants,
  upstreamStatuses,
} from './e2e-front-door-helpers.js';

/**
 * Codex's door, end to end (SPEC §25.6): the official `openai` SDK's Responses API (`store:
 * false`, `include: ["reasoning.encrypted_content"]`, as Codex sends it) against a real `hermes
 * gateway` onto the DeepSeek, Kimi, Gemini, OpenRouter and Anthropic emulators, multi-turn with
 * the client running the tools and holding the history.
 */

const e2e = useE2e();

function client(url: string, headers: Record<string, string> = {}): OpenAI {
  return new OpenAI({ baseURL: `${url}/v1`, apiKey: GATEWAY_TOKEN, maxRetries: 0, defaultHeaders: headers });
}

describe('hermes gateway /v1/responses with the openai SDK', () => {
  it('every upstream × streaming and not: a tool loop and a follow-up, intact, 0 4xx', async () => {
    const fleet = await startFrontDoorFleet(e2e);
    for (const model of FRONT_DOOR_MODELS) {
      for (const stream of [false, true]) {
        const requests = fleet.requests[model];
        const before = requests.length;
        const codex = responsesConversation(client(fleet.gateway.url), model, 'You are a coding agent.');
        const [call, answer] = await codex.turn('read the file notes.txt', { stream });
        const reasoning = call?.output[0] as OpenAI.Responses.ResponseReasoningItem;
        expect({
          model,
          stream,
          type: reasoning.type,
          sealed: reasoning.encrypted_content?.startsWith('hermes.1.'),
        }).toEqual({
          model,
          stream,
          type: 'reasoning',
          sealed: true,
        });
        expect(responseText(answer!)).toContain('Reasoning continuity: intact (1/1).');
        const [thanks] = await codex.turn('thanks', { stream });
        expect({ model, stream, text: responseText(thanks!) }).toEqual({
          model,
          stream,
          text: expect.stringContaining('Reasoning continuity: intact (2/2).'),
        });
        expect(requests.length - before).toBe(3);
        const summary = reasoning.summary.map((part) => part.text).join('\n\n');
        CARRIER_CHECKS[model](upstreamAssistants(requests[before + 1])[0] ?? {}, summary);
      }
    }
    expect(upstreamStatuses(fleet).filter((status) => status !== 200)).toEqual([]);
  });

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
