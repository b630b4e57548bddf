import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import type { Message } from '../../../src/core/message.js';
import type { Route } from '../../../src/core/route.js';
import { resolveRouteProfile } from '../../../src/replay/replay-route-profile.js';
import { prepareResponses } from '../../../src/transports/responses/responses-encode.js';
import type { TransportRequest } from '../../../src/transports/shared/transport.js';
import { nativeCompactThreshold, requestCompactThreshold } from '../../../src/runtime/runtime-native-compaction.js';

/**
 * SPEC §24.7 native server-side compaction, pure: eligibility as a route fact, the threshold
 * arithmetic, the request's `context_management`, and newest-checkpoint replay with a decision
 * for every checkpoint left out.
 */

const OPENAI = 'other:https://api.openai.com/v1';
const CODEX = 'https://chatgpt.com/backend-api/codex';

function route(model: string, baseUrl: string | undefined, provider = 'openai'): Route {
  return { api: 'codex_responses', provider, model, ...(baseUrl === undefined ? {} : { baseUrl }) };
}

function request(history: Message[], target: Route, extra: Partial<TransportRequest> = {}): TransportRequest {
  return { route: target, history, tools: [], reasoning: { enabled: false }, ...extra };
}

const ELIGIBLE = route('gpt-5.6', 'https://api.openai.com/v1');

function assistant(text: string, items: JsonObject[]): Message {
  return { role: 'assistant', content: text, codex_reasoning_items: items };
}

function checkpoint(blob: string, issuer = OPENAI): JsonObject {
  return { type: 'compaction', id: `cmp_${blob}`, encrypted_content: blob, _issuer_kind: issuer };
}

function reasoning(id: string, issuer = OPENAI): JsonObject {
  return { type: 'reasoning', id, encrypted_content: `ENC_${id}`, summary: [], _issuer_kind: issuer };
}

/** Two checkpoints; the newest rides on the fourth message. */
function history(issuer = OPENAI): Message[] {
  return [
    { role: 'system', content: 'Be terse.' },
    { role: 'user', content: 'one' },
    assistant('a1', [checkpoint('CMP_1', issuer), reasoning('rs_1', issuer)]),
    { role: 'user', content: 'two' },
    assistant('a2', [checkpoint('CMP_2', issuer), reasoning('rs_2', issuer)]),
    { role: 'user', content: 'three' },
  ];
}

describe('SPEC §24.7 eligibility is a route fact', () => {
  it.each([
    ['gpt-5.6 on api.openai.com', route('gpt-5.6', 'https://api.openai.com/v1'), true],
    [
      'gpt-5.6-mini on the provider default (api.openai.com)',
      route('gpt-5.6-mini', undefined, 'openai-responses'),
      true,
    ],
    ['gpt-5.6 on the ChatGPT Codex backend', route('gpt-5.6', CODEX, 'openai-codex'), true],
    ['gpt-5.4 on api.openai.com', route('gpt-5.4', 'https://api.openai.com/v1'), false],
    ['gpt-5.6 on Azure', route('gpt-5.6', 'https://r.openai.azure.com/openai/v1'), false],
    ['gpt-5.6 on a look-alike host', route('gpt-5.6', 'https://api.openai.com.evil.example/v1'), false],
    ['gpt-5.6 on chatgpt.com outside the Codex backend', route('gpt-5.6', 'https://chatgpt.com/v1'), false],
  ])('%s', (_name, target, eligible) => {
    const profile = resolveRouteProfile(target, [], { defaultBaseUrl: 'https://api.openai.com/v1' });
    expect(profile.responses.nativeCompaction).toBe(eligible);
  });
});

describe('SPEC §24.7 compact_threshold', () => {
  it('is the local trigger (threshold × context window, SPEC §16) minus 8,192', () => {
    expect(nativeCompactThreshold({ contextWindow: 100_000, threshold: 0.8, keepTurns: 20 })).toBe(71_808);
    expect(nativeCompactThreshold({ contextWindow: 20_000, threshold: 0.5, keepTurns: 20 })).toBe(1_808);
    expect(nativeCompactThreshold({ threshold: 0.8, keepTurns: 20 })).toBeUndefined();
    expect(nativeCompactThreshold(undefined)).toBeUndefined();
  });

  it('goes on the wire of an eligible route; 200,000 without a local trigger', () => {
    const withTrigger = prepareResponses(
      request([{ role: 'user', content: 'hi' }], ELIGIBLE, { compactThreshold: 71_808 }),
    );
    expect(withTrigger.body['context_management']).toEqual([{ type: 'compaction', compact_threshold: 71_808 }]);
    const without = prepareResponses(request([{ role: 'user', content: 'hi' }], ELIGIBLE));
    expect(without.body['context_management']).toEqual([{ type: 'compaction', compact_threshold: 200_000 }]);
    expect(Object.keys(without.body).at(-1)).toBe('context_management');
  });

  it('is never sent to an ineligible route, nor once a 4xx turned it off (null)', () => {
    const other = prepareResponses(
      request([{ role: 'user', content: 'hi' }], route('gpt-5.4', 'https://api.openai.com/v1')),
    );
    expect(other.body['context_management']).toBeUndefined();
    const off = prepareResponses(request([{ role: 'user', content: 'hi' }], ELIGIBLE, { compactThreshold: null }));
    expect(off.body['context_management']).toBeUndefined();
  });

  it('the runtime asks null for a route key remembered as refusing it', () => {
    const profile = resolveRouteProfile(ELIGIBLE);
    const settings = { contextWindow: 100_000, threshold: 0.8, keepTurns: 20 };
    expect(requestCompactThreshold(profile, settings, {})).toBe(71_808);
    expect(
      requestCompactThreshold(profile, settings, { responses_native_compaction_off: [profile.routeKey] }),
    ).toBeNull();
    expect(requestCompactThreshold(resolveRouteProfile(route('gpt-5.4', undefined)), settings, {})).toBeUndefined();
  });
});

describe('SPEC §24.7 checkpoint replay', () => {
  it('sends only the newest checkpoint and the items after it on an eligible same-issuer route', () => {
    const prepared = prepareResponses(request(history(), ELIGIBLE));
    expect(prepared.body['instructions']).toBe('Be terse.');
    expect(prepared.body['input']).toEqual([
      { type: 'compaction', encrypted_content: 'CMP_2' },
      { type: 'reasoning', encrypted_content: 'ENC_rs_2', summary: [] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a2' }] },
      { role: 'user', content: 'three' },
    ]);
    expect(
      prepared.decisions.map(({ messageIndex, field, action, reason }) => [messageIndex, field, action, reason]),
    ).toEqual([
      [2, 'codex_reasoning_items[0]', 'dropped', 'compaction checkpoint superseded by a newer one'],
      [2, 'codex_reasoning_items[1]', 'dropped', 'before the newest compaction checkpoint (SPEC §24.7)'],
      [4, 'codex_reasoning_items[0]', 'kept', 'newest compaction checkpoint'],
      [4, 'codex_reasoning_items[1]', 'kept', 'same issuer'],
    ]);
  });

  it('drops checkpoints of another issuer, with a decision, and keeps the whole history', () => {
    const codex = 'codex_backend';
    const prepared = prepareResponses(request(history(codex), ELIGIBLE));
    const input = prepared.body['input'] as { type?: string; role?: string }[];
    expect(input.filter((item) => item.type === 'compaction')).toEqual([]);
    expect(input.filter((item) => item.role === 'user')).toHaveLength(3);
    expect(
      prepared.decisions.find((decision) => decision.messageIndex === 4 && decision.field.endsWith('[0]')),
    ).toMatchObject({
      action: 'dropped',
      reason: `foreign issuer ${codex}`,
    });
  });

  it('drops checkpoints on an ineligible route of the same issuer, and when native compaction is off', () => {
    for (const [target, extra] of [
      [route('gpt-5.4', 'https://api.openai.com/v1'), {}],
      [ELIGIBLE, { compactThreshold: null }],
    ] as const) {
      const prepared = prepareResponses(request(history(), target, extra));
      const input = prepared.body['input'] as { type?: string; role?: string }[];
      expect(input.filter((item) => item.type === 'compaction')).toEqual([]);
      expect(input.filter((item) => item.type === 'reasoning')).toHaveLength(2);
      expect(input.filter((item) => item.role === 'user')).toHaveLength(3);
      expect(
        prepared.decisions.find((decision) => decision.messageIndex === 4 && decision.field.endsWith('[0]')),
      ).toMatchObject({
        action: 'dropped',
        reason: 'native compaction not on for this route (SPEC §24.7)',
      });
    }
  });
});
