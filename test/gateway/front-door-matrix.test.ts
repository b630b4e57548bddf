import { describe, expect, it } from 'vitest';
import {
  doorConversation,
  expectToolLoopIntact,
  statuses,
  useFrontDoors,
  type UpstreamName,
} from './front-door-helpers.js';

/**
 * Both front doors × every upstream wire × streaming and not (SPEC §25.6): the official SDK of
 * each door holds the history and runs the tool; the sealed handle brings each turn's carriers
 * back, so every upstream reports every earlier turn intact, with no 4xx, and no handle ever
 * reaches a provider.
 */

const doors = useFrontDoors();
const UPSTREAMS: UpstreamName[] = ['deepseek', 'openrouter', 'local', 'anthropic', 'bedrock', 'gemini', 'responses'];
const CASES = (['messages', 'responses'] as const).flatMap((door) =>
  UPSTREAMS.flatMap((upstream) => [false, true].map((stream) => [door, upstream, stream] as const)),
);

describe('front doors onto every upstream', () => {
  it.each(CASES)(
    '/v1/%s onto %s (stream %s): a client-held tool loop and a follow-up, intact, 0 4xx',
    async (door, upstream, stream) => {
      const { gateway, upstreams } = await doors.gateway([upstream]);
      await expectToolLoopIntact(doorConversation(door, gateway.url, upstream), stream, `${door} ${upstream}`);
      expect(statuses(upstreams[upstream]!)).toEqual([200, 200, 200]);
      for (const request of upstreams[upstream]!.requests) expect(request.raw).not.toContain('hermes.1.');
    },
  );
});
