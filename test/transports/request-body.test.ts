import { describe, expect, test } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import type { Message } from '../../src/core/message.js';
import type { Route } from '../../src/core/route.js';
import { fingerprintSignedBlocks } from '../../src/replay/anthropic-signature-memory.js';
import { buildChatReplay } from '../../src/replay/replay-chat-messages.js';
import { relaySignatureFingerprints } from '../../src/replay/replay-relay-signature.js';
import { NOTHING_LEARNED, type RouteLearned } from '../../src/replay/replay-route-profile.js';
import {
  markStableWireValue,
  SERIALIZED_GROUP_SIZE,
  serializeJsonBody,
  serializeRequestBody,
  serializeRequestBodyBytes,
} from '../../src/transports/shared/request-body.js';
import type { PreparedRequest, TransportRequest } from '../../src/transports/shared/transport.js';
import { prepareRequest } from '../../src/transports/transport-prepare.js';
import { routeProfileFor } from '../../src/transports/transport-route-profile.js';
import { seededRandom } from '../support/random.js';
import { HistoryGenerator } from './request-body-history.js';

/**
 * The spliced request body (shared/request-body.ts, with the per-message wire cache of
 * chat-completions-encode.ts) equals a fresh full `JSON.stringify` build byte for byte, turn
 * after turn: appended messages, a learned-state change and back, on every JSON wire API.
 */

const TOOLS = [{ name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: {} } }];

interface RouteCase {
  name: string;
  route: Route;
  /** Learned states the route steps through after turn N+1, from that turn's body (as the runtime's recoveries learn). */
  learn(body: JsonObject): RouteLearned[];
}

const chatLearn = (body: JsonObject): RouteLearned[] => {
  const fingerprints = relaySignatureFingerprints(body).slice(0, 3);
  return [
    { ...NOTHING_LEARNED, rejectedThinkingFingerprints: fingerprints },
    { ...NOTHING_LEARNED, rejectedCarriers: ['reasoning_details'], rejectedThinkingFingerprints: fingerprints },
    { ...NOTHING_LEARNED, rejectedCarriers: ['reasoning_content'] },
  ];
};
const chat = (provider: string, model: string, baseUrl?: string): RouteCase => ({
  name: `chat_completions ${provider} ${model}`,
  route: { api: 'chat_completions', provider, model, ...(baseUrl === undefined ? {} : { baseUrl }) },
  learn: chatLearn,
});

const ROUTES: readonly RouteCase[] = [
  chat('openrouter', 'anthropic/claude-sonnet-4', 'https://openrouter.ai/api/v1'),
  chat('openrouter', 'google/gemini-3-pro-preview'),
  chat('deepseek', 'deepseek-reasoner'),
  chat('openai', 'gpt-5'),
  chat('copilot', 'gemini-3-pro-preview'),
  chat('gemini', 'gemini-2.5-pro'),
  {
    name: 'codex_responses openai gpt-5.1-codex',
    route: { api: 'codex_responses', provider: 'openai', model: 'gpt-5.1-codex', baseUrl: 'https://api.openai.com/v1' },
    learn: () => [{ ...NOTHING_LEARNED, replayEncryptedReasoning: false }],
  },
  {
    name: 'anthropic_messages anthropic claude-sonnet-4-5',
    route: { api: 'anthropic_messages', provider: 'anthropic', model: 'claude-sonnet-4-5' },
    learn: (body) => [{ ...NOTHING_LEARNED, rejectedThinkingFingerprints: fingerprintSignedBlocks(body).slice(0, 3) }],
  },
  {
    name: 'gemini gemini gemini-2.5-pro',
    route: { api: 'gemini', provider: 'gemini', model: 'gemini-2.5-pro' },
    learn: () => [{ ...NOTHING_LEARNED, rejectedCarriers: ['reasoning'] }],
  },
];

const SEEDS = [1, 2, 3, 4, 5];

function requestFor(route: Route, history: readonly Message[], learned: RouteLearned): TransportRequest {
  return { route, learned, history, tools: TOOLS, reasoning: { enabled: true, effort: 'medium' } };
}

/**
 * Builds `history` on the warm path (the same stored objects as earlier turns) and checks it
 * against a cold build of a deep copy (no object seen before, so nothing is reused).
 */
function buildAndCompare(route: Route, history: readonly Message[], learned: RouteLearned): PreparedRequest {
  const prepared = prepareRequest(requestFor(route, history, learned));
  const text = serializeRequestBody(prepared);
  const fresh = prepareRequest(requestFor(route, structuredClone(history) as Message[], learned));
  expect(text).toBe(JSON.stringify(fresh.body));
  expect(JSON.stringify(prepared.body)).toBe(text);
  // The bytes a transport sends: the same text, with cached texts copied as their kept bytes.
  expect(Buffer.from(serializeRequestBodyBytes(prepared)).toString('utf8')).toBe(text);
  expect(prepared.decisions).toEqual(fresh.decisions);
  expect(prepared.carriersSent).toEqual(fresh.carriersSent);
  if (route.api === 'chat_completions') {
    // Against the replay module's own one-pass build, not the encoder's cached loop.
    const replay = buildChatReplay(structuredClone(history) as Message[], routeProfileFor(route), learned);
    expect(JSON.stringify(prepared.body['messages'])).toBe(JSON.stringify(replay.messages));
    expect(prepared.decisions).toEqual(replay.decisions);
    expect(prepared.carriersSent).toEqual(replay.carriersSent);
    const tail = Math.floor(history.length / 2);
    expect(prepared.decisionsFrom?.(tail)).toEqual(replay.decisionsFrom(tail));
  }
  return prepared;
}

describe.each(ROUTES)('spliced request body equals a full build: $name', ({ route, learn }) => {
  test.each(SEEDS)('seed %i: turns N, N+1, then each learned state and back, appending turns', (seed) => {
    const generator = new HistoryGenerator(seededRandom(seed));
    let history = generator.history(140);
    buildAndCompare(route, history, NOTHING_LEARNED);
    history = [...history, ...generator.nextTurn()];
    const bodyN1 = buildAndCompare(route, history, NOTHING_LEARNED).body;
    for (const learned of learn(bodyN1)) {
      history = [...history, ...generator.nextTurn()];
      buildAndCompare(route, history, learned);
      buildAndCompare(route, history, NOTHING_LEARNED);
      buildAndCompare(route, history, learned);
    }
  });
});

describe('chat-completions reuses wire messages only under the same profile and learned state', () => {
  const route: Route = { api: 'chat_completions', provider: 'openrouter', model: 'anthropic/claude-sonnet-4' };

  test('a warm turn reuses every earlier wire message; a learned change rebuilds those it changes', () => {
    const generator = new HistoryGenerator(seededRandom(7));
    // Long enough that some turns come from this route's own issuer and model, whose details travel.
    const history = generator.history(140);
    const firstRequest = prepareRequest(requestFor(route, history, NOTHING_LEARNED));
    const first = firstRequest.body['messages'] as JsonObject[];
    const next = [...history, ...generator.nextTurn()];
    const second = prepareRequest(requestFor(route, next, NOTHING_LEARNED)).body['messages'] as JsonObject[];
    // Steps of the first request's current turn that went as text (SPEC §26.2) are tool calls again
    // once a later turn follows; those messages and their results are built anew.
    const asText = new Set(
      firstRequest.decisions
        .filter((decision) => decision.reason.startsWith('sent as text'))
        .map((d) => d.messageIndex),
    );
    const rebuilt = new Set<number>();
    for (const index of asText) {
      rebuilt.add(index);
      for (let result = index + 1; history[result]?.role === 'tool'; result++) rebuilt.add(result);
    }
    first.forEach((wire, index) => {
      if (!rebuilt.has(index)) expect(second[index]).toBe(wire);
    });

    const learned: RouteLearned = { ...NOTHING_LEARNED, rejectedCarriers: ['reasoning_details'] };
    const third = prepareRequest(requestFor(route, next, learned)).body['messages'] as JsonObject[];
    const withDetails = second.filter((wire) => wire['reasoning_details'] !== undefined);
    expect(withDetails.length).toBeGreaterThan(0);
    expect(third.filter((wire) => wire['reasoning_details'] !== undefined)).toEqual([]);
    expect(serializeJsonBody({ messages: third })).toBe(JSON.stringify({ messages: third }));
  });
});

describe.each(ROUTES.filter((item) => item.route.api === 'chat_completions'))(
  'a history lowered again from its last request equals a full build: $name',
  ({ route }) => {
    test.each(SEEDS)('seed %i: edited in the middle, cut back, forked from the same first message', (seed) => {
      const next = seededRandom(seed + 100);
      const generator = new HistoryGenerator(next);
      let history = generator.history(160);
      buildAndCompare(route, history, NOTHING_LEARNED);
      for (let step = 0; step < 12; step++) {
        const at = 1 + Math.floor(next() * (history.length - 1));
        const kind = step % 4;
        if (kind === 0) {
          // One stored message replaced by another object (an edit, a compaction rewriting it).
          history = history.map((message, index) => (index === at ? structuredClone(message) : message));
        } else if (kind === 1) {
          // Cut back (an undone exchange), then a new turn.
          history = [...history.slice(0, at), ...generator.nextTurn()];
        } else if (kind === 2) {
          // A fork: the same first messages, then its own turns; the original goes on after it.
          const fork = [...history.slice(0, at), ...generator.nextTurn()];
          buildAndCompare(route, fork, NOTHING_LEARNED);
          history = [...history, ...generator.nextTurn()];
        } else {
          history = [...history, ...generator.nextTurn()];
        }
        buildAndCompare(route, history, NOTHING_LEARNED);
      }
    });
  },
);

describe('serializeJsonBody', () => {
  test('matches JSON.stringify on undefined members, holes of meaning and escapes', () => {
    const stable: JsonObject = { role: 'user', content: 'a "quoted" \u2028 line\n🙂 \ud800' };
    markStableWireValue(stable);
    const body: JsonObject = {
      model: 'm',
      skipped: undefined,
      messages: [stable, { role: 'assistant', content: null, extra: undefined }, stable],
      empty: [],
      nested: [[1, 2], 'x', null, true, 0.5],
      'key "quoted"': { a: [stable] },
    };
    (body['messages'] as unknown[]).push(undefined);
    expect(serializeJsonBody(body)).toBe(JSON.stringify(body));
    // The stable element's text is reused on the next body that holds it.
    expect(serializeJsonBody({ messages: [stable] })).toBe(JSON.stringify({ messages: [stable] }));
  });

  test('groups of stable elements are reused only where the same objects sit at the same positions', () => {
    const next = seededRandom(3);
    const element = (index: number, stable = true): JsonObject => {
      const value: JsonObject = { role: 'user', content: `message ${index} ${next()} "é" 🙂` };
      if (stable) markStableWireValue(value);
      return value;
    };
    // Group 0 all stable, group 1 holds an undefined element, group 2 one value never marked stable.
    const items: (JsonObject | undefined)[] = Array.from({ length: SERIALIZED_GROUP_SIZE * 3 + 5 }, (_, index) =>
      element(index, index !== SERIALIZED_GROUP_SIZE * 2 + 3),
    );
    items[SERIALIZED_GROUP_SIZE + 1] = undefined;
    const bodies: JsonObject[] = [
      { model: 'm', messages: items as JsonObject[] },
      { model: 'm', messages: [...items, element(1000)] as JsonObject[] },
      { model: 'm', messages: items.slice(1) as JsonObject[] },
      { model: 'm', messages: [element(2000), ...items] as JsonObject[] },
      {
        model: 'm',
        messages: items.map((item, index) =>
          index === 5 || index === 150 ? element(index + 3000) : item,
        ) as JsonObject[],
      },
      { model: 'm', messages: items.slice(0, SERIALIZED_GROUP_SIZE * 2) as JsonObject[] },
    ];
    for (const body of [...bodies, ...bodies]) {
      expect(serializeJsonBody(body)).toBe(JSON.stringify(body));
      expect(Buffer.from(serializeRequestBodyBytes({ body })).equals(Buffer.from(JSON.stringify(body)))).toBe(true);
    }
    // A value never marked stable may change between bodies: its group is written afresh.
    (items[SERIALIZED_GROUP_SIZE * 2 + 3] as JsonObject)['content'] = 'changed';
    for (const body of bodies) {
      expect(serializeJsonBody(body)).toBe(JSON.stringify(body));
      expect(Buffer.from(serializeRequestBodyBytes({ body })).equals(Buffer.from(JSON.stringify(body)))).toBe(true);
    }
  });

  test('a short array reuses the text of each stable element and writes the others afresh', () => {
    const stable: JsonObject = { role: 'user', content: 'kept "é" 🙂' };
    markStableWireValue(stable);
    const fresh: JsonObject = { role: 'assistant', content: 'new' };
    const body = (): JsonObject => ({ model: 'm', messages: [stable, fresh, null, 3, 'x'] as JsonObject[] });
    expect(serializeJsonBody(body())).toBe(JSON.stringify(body()));
    expect(Buffer.from(serializeRequestBodyBytes({ body: body() })).toString()).toBe(JSON.stringify(body()));
    // The stable element's text is kept from the first body; the unmarked one is read again.
    fresh['content'] = 'changed';
    expect(serializeJsonBody(body())).toBe(JSON.stringify(body()));
    // Writing to a stable value breaks the rule, and shows the text that was kept.
    stable['content'] = 'rewritten';
    expect(serializeJsonBody(body())).toContain('kept');
    expect(serializeJsonBody({ model: 'm', messages: [fresh] })).toBe(
      JSON.stringify({ model: 'm', messages: [fresh] }),
    );
  });

  test('an empty body', () => {
    expect(serializeJsonBody({})).toBe('{}');
    expect(serializeJsonBody({ only: undefined })).toBe('{}');
  });
});

describe('Responses reuses system, user and tool input items across requests', () => {
  test('the same stored message gives the same item object; assistant items are rebuilt', () => {
    const route: Route = { api: 'codex_responses', provider: 'openai', model: 'gpt-5.1-codex' };
    const generator = new HistoryGenerator(seededRandom(11));
    const history = generator.history(30);
    const first = prepareRequest(requestFor(route, history, NOTHING_LEARNED)).body['input'] as JsonObject[];
    const next = [...history, ...generator.nextTurn()];
    const second = prepareRequest(requestFor(route, next, NOTHING_LEARNED)).body['input'] as JsonObject[];
    const plain = (item: JsonObject) => item['role'] === 'user' || item['type'] === 'function_call_output';
    const reused = first.filter(plain);
    expect(reused.length).toBeGreaterThan(0);
    for (const item of reused) expect(second).toContain(item);
    expect(second.filter((item) => item['type'] === 'function_call').some((item) => first.includes(item))).toBe(false);
  });
});

describe('tool definitions lower once per encoder', () => {
  test.each([
    { api: 'chat_completions', provider: 'deepseek', model: 'deepseek-v4-flash' },
    { api: 'codex_responses', provider: 'openai', model: 'gpt-5.1-codex', baseUrl: 'https://api.openai.com/v1' },
    { api: 'anthropic_messages', provider: 'anthropic', model: 'claude-sonnet-4-5' },
  ] as Route[])('$api: the same tool gives the same wire object, and its text is reused', (route) => {
    const history: Message[] = [{ role: 'user', content: 'hi', timestamp: 1 }];
    const first = prepareRequest(requestFor(route, history, NOTHING_LEARNED));
    const second = prepareRequest(requestFor(route, history, NOTHING_LEARNED));
    const tools = (prepared: PreparedRequest) => prepared.body['tools'] as JsonObject[];
    expect(tools(first)).toHaveLength(TOOLS.length);
    tools(first).forEach((wire, index) => expect(tools(second)[index]).toBe(wire));
    // A client's own definitions (parsed per request) are new objects: lowered afresh.
    const own = structuredClone(TOOLS);
    const third = prepareRequest({ ...requestFor(route, history, NOTHING_LEARNED), tools: own });
    expect(tools(third)[0]).not.toBe(tools(first)[0]);
    expect(JSON.stringify(tools(third))).toBe(JSON.stringify(tools(first)));
    for (const prepared of [first, second, third]) {
      expect(serializeRequestBody(prepared)).toBe(JSON.stringify(prepared.body));
      expect(Buffer.from(serializeRequestBodyBytes(prepared)).toString('utf8')).toBe(JSON.stringify(prepared.body));
    }
  });
});
