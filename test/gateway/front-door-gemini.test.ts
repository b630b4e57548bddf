import { describe, expect, it } from 'vitest';
import { expectToolLoopIntact, statuses, useFrontDoors, type UpstreamName } from './front-door-helpers.js';
import { geminiDoorConversation } from './front-door-gemini-helpers.js';

/**
 * The Gemini front door (SPEC §26.9, docs/gateway.md "Gemini CLI and @google/genai"): the
 * official `@google/genai` SDK holds `contents` the way Gemini CLI does (thought parts dropped),
 * runs the tool, and gets each turn's carriers back through the handle in `thoughtSignature`.
 */

const doors = useFrontDoors();
const UPSTREAMS: UpstreamName[] = ['deepseek', 'openrouter', 'anthropic', 'gemini'];
const CASES = UPSTREAMS.flatMap((upstream) => [false, true].map((stream) => [upstream, stream] as const));

describe('the Gemini door onto every upstream', () => {
  it.each(CASES)(
    'onto %s (stream %s): a client-held tool loop and a follow-up, intact, 0 4xx',
    async (upstream, stream) => {
      const { gateway, upstreams } = await doors.gateway([upstream]);
      await expectToolLoopIntact(geminiDoorConversation(gateway.url, upstream), stream, `gemini ${upstream}`);
      expect(statuses(upstreams[upstream]!)).toEqual([200, 200, 200]);
      for (const request of upstreams[upstream]!.requests) expect(request.raw).not.toContain('hermes.1.');
    },
  );
});
