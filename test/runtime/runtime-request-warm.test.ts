import { describe, expect, test } from 'vitest';
import type { Message } from '../../src/core/message.js';
import type { Route } from '../../src/core/route.js';
import { NOTHING_LEARNED } from '../../src/replay/replay-route-profile.js';
import { rememberBuilt, SLICE_MESSAGES, warmLongHistory } from '../../src/runtime/runtime-request-warm.js';
import { serializeRequestBodyChunks } from '../../src/transports/shared/request-body.js';
import type { Transport, TransportRequest } from '../../src/transports/shared/transport.js';
import { prepareRequest } from '../../src/transports/transport-prepare.js';
import { seededRandom } from '../support/random.js';
import { HistoryGenerator } from '../transports/request-body-history.js';

/**
 * A long history built for the first time is built in slices first (runtime-request-warm.ts):
 * the request that follows is the same body byte for byte as a build without the slices, every
 * slice ends a turn, and a history a request was already built from is not sliced again.
 */

const ROUTES: readonly Route[] = [
  { api: 'chat_completions', provider: 'openrouter', model: 'anthropic/claude-sonnet-4' },
  { api: 'chat_completions', provider: 'deepseek', model: 'deepseek-reasoner' },
  { api: 'codex_responses', provider: 'openai', model: 'gpt-5.1-codex', baseUrl: 'https://api.openai.com/v1' },
  { api: 'anthropic_messages', provider: 'anthropic', model: 'claude-sonnet-4-5' },
  { api: 'gemini', provider: 'gemini', model: 'gemini-2.5-pro' },
];

/** A transport that prepares as the real ones do and records the history length of each build. */
function preparing(builds: number[], lastRoles: string[]): Transport {
  return {
    prepare(request: TransportRequest) {
      builds.push(request.history.length);
      lastRoles.push(request.history.at(-1)?.role ?? '');
      return prepareRequest(request);
    },
  } as unknown as Transport;
}

const requestFor = (route: Route, history: readonly Message[]): TransportRequest => ({
  route,
  learned: NOTHING_LEARNED,
  history,
  tools: [],
  reasoning: { enabled: true, effort: 'medium' },
});

const bytesOf = (request: TransportRequest) => Buffer.concat(serializeRequestBodyChunks(prepareRequest(request)));

describe.each(ROUTES)('a long history built for the first time: $api $provider', (route) => {
  test.each([11, 12])('seed %i: slices of whole turns, then the same body as one build', async (seed) => {
    const history = new HistoryGenerator(seededRandom(seed)).history(3 * SLICE_MESSAGES + 300);
    const cold = bytesOf(requestFor(route, structuredClone(history) as Message[]));
    const builds: number[] = [];
    const lastRoles: string[] = [];
    const transport = preparing(builds, lastRoles);
    const request = requestFor(route, history);
    await warmLongHistory(transport, request);
    expect(builds.length).toBeGreaterThanOrEqual(2);
    expect(lastRoles.every((role) => role === 'user')).toBe(true);
    for (let index = 1; index < builds.length; index += 1) {
      expect((builds[index] as number) - (builds[index - 1] as number)).toBeGreaterThanOrEqual(SLICE_MESSAGES);
    }
    expect(bytesOf(request).equals(cold)).toBe(true);
    rememberBuilt(history);
    // The next turn grows the same history: nothing is sliced again.
    const next: Message[] = [
      ...history,
      { role: 'assistant', content: 'done' } as Message,
      { role: 'user', content: 'more' },
    ];
    builds.length = 0;
    await warmLongHistory(transport, requestFor(route, next));
    expect(builds).toEqual([]);
  });
});

test('a short history is never sliced', async () => {
  const builds: number[] = [];
  const history = new HistoryGenerator(seededRandom(3)).history(SLICE_MESSAGES - 10);
  await warmLongHistory(preparing(builds, []), requestFor(ROUTES[0] as Route, history));
  expect(builds).toEqual([]);
});
