import { describe, expect, it } from 'vitest';
import { doorConversation, expectToolLoopIntact } from '../gateway/front-door-helpers.js';
import { useE2e } from '../support/e2e.js';
import {
  CARRIER_CHECKS,
  FRONT_DOOR_MODELS,
  GATEWAY_TOKEN,
  startFrontDoorFleet,
  upstreamAssistants,
  upstreamStatuses,
} from './e2e-front-door-helpers.js';

/**
 * The matrix, end to end (SPEC §25.6): the official `@anthropic-ai/sdk` (Messages, the
 * token as `x-api-key` like Claude Code) and `openai` SDK (Responses, `store: false`, like Codex)
 * against a real `hermes gateway` onto the DeepSeek, Kimi, Gemini, OpenRouter and Anthropic
 * emulators, streaming and not, multi-turn with the client running the tools and holding the
 * history. Each upstream gets back exactly what its route row reads for the tool-call turn, and
 * reports every earlier turn intact; no upstream answers anything but 200.
 */

const e2e = useE2e();

describe('hermes gateway front doors × upstreams × streaming', () => {
  it('both SDKs onto all five emulators, streaming and not: route-row carriers sent back, intact, 0 4xx', async () => {
    const fleet = await startFrontDoorFleet(e2e);
    for (const door of ['messages', 'responses'] as const) {
      for (const model of FRONT_DOOR_MODELS) {
        for (const stream of [false, true]) {
          const requests = fleet.requests[model];
          const before = requests.length;
          const conversation = doorConversation(door, fleet.gateway.url, model, GATEWAY_TOKEN);
          const call = await expectToolLoopIntact(conversation, stream, `${door} ${model} stream ${stream}`);
          expect(requests.length - before).toBe(3);
          CARRIER_CHECKS[model](upstreamAssistants(requests[before + 1])[0] ?? {}, call.reasoning);
        }
      }
    }
    expect(upstreamStatuses(fleet).filter((status) => status !== 200)).toEqual([]);
  });
});
