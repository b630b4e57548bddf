import { describe, expect, it } from 'vitest';
import { rotateHandleKey } from '../../src/gateway/gateway-handle-keys.js';
import { createMemorySessionStore } from '../../src/storage/memory-session-store.js';
import { doorClient, type Behaviour, type Door } from './front-door-door-clients.js';
import { useFrontDoors, type Upstream, type UpstreamName } from './front-door-helpers.js';

/**
 * SPEC §26.1–§26.3 across the three doors, the routes and what real clients do to the reasoning
 * they were given (keep it, strip it as Claude Code does on a model switch, blank it, tamper with
 * it, keep only the last streamed chunk as the `openai` SDK's stream helper does). With a session
 * header every turn is continuity-intact on every route; in every case no turn fails for the
 * client and every upstream 4xx is recovered within its turn.
 */

const doors = useFrontDoors();

const ROUTES: UpstreamName[] = [
  'deepseek',
  'openrouter',
  'gemini',
  'gemini-openai',
  'copilot',
  'anthropic',
  'responses',
];

const BEHAVIOURS: Record<Door, Behaviour[]> = {
  messages: ['keep', 'strip', 'blank', 'tamper'],
  responses: ['keep', 'strip', 'blank', 'tamper'],
  chat: ['keep', 'fragment', 'strip'],
};

const CASES = (Object.keys(BEHAVIOURS) as Door[]).flatMap((door) =>
  BEHAVIOURS[door].flatMap((behaviour) => ROUTES.map((route) => [door, behaviour, route] as const)),
);

/** Every 4xx an upstream answered was followed by the 200 of its one retry. */
function expectRecovered(upstream: Upstream): void {
  const statuses = upstream.requests.map((request) => request.status);
  statuses.forEach((status, index) => {
    if (status >= 400) expect({ status, next: statuses[index + 1] }).toEqual({ status, next: 200 });
  });
}

describe('front-door clients, with a session header: every turn intact', () => {
  it.each(CASES)('%s door, client %s, onto %s', async (door, behaviour, route) => {
    const { gateway, upstreams } = await doors.gateway([route]);
    const client = doorClient(door, gateway.url, { behaviour, session: `ses-${door}-${behaviour}-${route}` });
    expect(await client.turn('read the file notes.txt', route)).toContain('Reasoning continuity: intact (1/1).');
    expect(await client.turn('thanks', route)).toContain('Reasoning continuity: intact (2/2).');
    expect(upstreams[route]!.requests.map((request) => request.status)).toEqual([200, 200, 200]);
  });
});

describe('front-door clients without a session header: no turn fails', () => {
  it.each(CASES)('%s door, client %s, onto %s', async (door, behaviour, route) => {
    const { gateway, upstreams } = await doors.gateway([route]);
    const client = doorClient(door, gateway.url, { behaviour });
    expect(await client.turn('read the file notes.txt', route)).toContain('The tool returned: alpha beta');
    expect(await client.turn('thanks', route)).toContain('You said: thanks');
    expectRecovered(upstreams[route]!);
  });
});

/** Model switches: Claude Code strips every thinking block, Codex keeps every item. */
const SWITCHES: [UpstreamName, UpstreamName][] = [
  ['deepseek', 'gemini-openai'],
  ['gemini-openai', 'copilot'],
  ['openrouter', 'gemini'],
  ['anthropic', 'gemini-openai'],
  ['responses', 'copilot'],
  ['gemini', 'anthropic'],
  ['copilot', 'openrouter'],
];
const SWITCH_CASES = SWITCHES.flatMap(([from, to]) =>
  (
    [
      ['messages', 'strip'],
      ['responses', 'keep'],
      ['chat', 'keep'],
    ] as const
  ).flatMap(([door, behaviour]) => [true, false].map((session) => [door, behaviour, from, to, session] as const)),
);

describe('model switches, between turns and in the middle of a tool loop', () => {
  it.each(SWITCH_CASES)('%s door (%s) from %s to %s, session %s', async (door, behaviour, from, to, session) => {
    const { gateway, upstreams } = await doors.gateway([from, to]);
    const client = doorClient(door, gateway.url, {
      behaviour,
      ...(session ? { session: `ses-switch-${door}-${from}-${to}` } : {}),
    });
    expect(await client.turn('read the file notes.txt', from)).toContain('The tool returned: alpha beta');
    expect(await client.turn('read the file notes.txt', to)).toContain('The tool returned: alpha beta');
    // The tool call comes from one model, its result goes to the other.
    expect(await client.turn('read the file notes.txt', from, to)).toContain('The tool returned: alpha beta');
    expectRecovered(upstreams[from]!);
    expectRecovered(upstreams[to]!);
  });
});

describe('handles that no longer open', () => {
  it.each(['messages', 'responses'] as const)(
    '%s: after rotate-key --retire-old the session restores every turn',
    async (door) => {
      const store = createMemorySessionStore();
      const { gateway, upstreams } = await doors.gateway(['openrouter'], { store });
      const client = doorClient(door, gateway.url, { behaviour: 'keep', session: `ses-retire-${door}` });
      expect(await client.turn('read the file notes.txt', 'openrouter')).toContain('intact (1/1)');
      const rotation = await rotateHandleKey(store, { retireOld: true });
      expect(rotation.retired).toBeGreaterThan(0);
      expect(await client.turn('thanks', 'openrouter')).toContain('Reasoning continuity: intact (2/2).');
      expectRecovered(upstreams['openrouter']!);
    },
  );

  it.each(ROUTES)('messages: a gateway with another key (its own store) answers onto %s', async (route) => {
    const first = await doors.gateway([route]);
    const second = await doors.gateway([route]);
    const client = doorClient('messages', first.gateway.url, { behaviour: 'keep', session: `ses-other-${route}` });
    expect(await client.turn('read the file notes.txt', route)).toContain('The tool returned: alpha beta');
    client.moveTo(second.gateway.url);
    expect(await client.turn('read the file notes.txt', route)).toContain('The tool returned: alpha beta');
    expectRecovered(second.upstreams[route]!);
  });
});
