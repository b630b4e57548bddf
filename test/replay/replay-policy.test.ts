import { describe, expect, test } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import {
  applyReasoningContentPolicy,
  reapplyReasoningEcho,
  reasoningReplayRoute,
  replayableText,
} from '../../src/replay/replay-policy.js';
import type { Carrier } from '../../src/replay/replay-types.js';

const RC: Carrier = 'reasoning_content';
const R: Carrier = 'reasoning';
const RD: Carrier = 'reasoning_details';
const call = { id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } };

describe('SPEC §6.1 effective replay decision', () => {
  test.each([
    // [provider, model, baseUrl, echoOptIn, rejected, pad, carriers]
    ['deepseek', 'deepseek-v4', undefined, false, [], true, [RC]],
    ['openrouter', 'openai/gpt-5', undefined, false, [], false, [RC, R, RD]],
    ['openrouter', 'deepseek/deepseek-r1', undefined, false, [], true, [RC, R, RD]],
    ['openrouter', 'openai/gpt-5', undefined, true, [], true, [RC, R, RD]],
    ['mistral', 'deepseek-r1', undefined, false, [], false, []],
    ['deepseek', 'deepseek-v4', undefined, false, [RC], false, []],
    ['openrouter', 'x', undefined, false, [R, RD], false, [RC]],
    ['cerebras', 'zai-glm-4.7', undefined, true, [], false, [R]],
  ] as const)(
    '%s %s %s opt-in=%s rejected=%j → pad %s, %j',
    (provider, model, baseUrl, echoOptIn, rejected, pad, carriers) => {
      const decision = reasoningReplayRoute(
        { api: 'chat_completions', provider, model, baseUrl },
        { echoOptIn, rejected: [...rejected] },
      );
      expect(decision.pad).toBe(pad);
      expect(decision.carriers).toEqual(carriers);
    },
  );

  test('non-chat wire APIs return carriers null and keep the tier pad', () => {
    const decision = reasoningReplayRoute({ api: 'anthropic_messages', provider: 'deepseek', model: 'deepseek-v4' });
    expect(decision).toMatchObject({ pad: true, carriers: null });
  });
});

describe('SPEC §6.2 replayable text', () => {
  test.each([
    [{ role: 'assistant', reasoning_content: 'a', reasoning: 'b' }, 'a'],
    [{ role: 'assistant', reasoning_content: ' ', reasoning: 'b' }, 'b'],
    [{ role: 'assistant', reasoning_content: '', reasoning: '  ' }, null],
    [{ role: 'assistant', reasoning_content: null, reasoning: null }, null],
    [{ role: 'assistant' }, null],
  ])('%j → %s', (message, text) => {
    expect(replayableText(message)).toBe(text);
  });
});

function applied(source: JsonObject, pad: boolean, carriers: readonly Carrier[] | null): JsonObject {
  const wire = { ...source };
  applyReasoningContentPolicy(source, wire, pad, carriers);
  return wire;
}

describe('SPEC §6.3 per-message policy', () => {
  test('non-assistant messages are untouched', () => {
    const user = { role: 'user', content: 'x', reasoning_content: 'y' };
    expect(applied(user, true, [])).toEqual(user);
  });

  test.each([
    // normal branch: [source, pad, carriers, expected wire]
    [
      { role: 'assistant', content: 'a', reasoning_content: 't' },
      false,
      [RC],
      { role: 'assistant', content: 'a', reasoning_content: 't' },
    ],
    [
      { role: 'assistant', content: 'a', reasoning: 't' },
      false,
      [RC],
      { role: 'assistant', content: 'a', reasoning_content: 't' },
    ],
    [
      { role: 'assistant', content: null, tool_calls: [call] },
      true,
      [RC],
      { role: 'assistant', content: null, tool_calls: [call], reasoning_content: ' ' },
    ],
    [{ role: 'assistant', content: 'a', reasoning_content: ' ' }, false, [RC], { role: 'assistant', content: 'a' }],
    [{ role: 'assistant', content: 'a', reasoning_content: null }, false, [RC], { role: 'assistant', content: 'a' }],
    [
      { role: 'assistant', content: 'a', reasoning_content: 't', reasoning: 't' },
      false,
      [R],
      { role: 'assistant', content: 'a', reasoning: 't' },
    ],
    [
      { role: 'assistant', content: 'a', reasoning_content: 'rc', reasoning: 'r' },
      false,
      [RC, R],
      { role: 'assistant', content: 'a', reasoning_content: 'rc', reasoning: 'rc' },
    ],
    [{ role: 'assistant', content: 'a', reasoning: ' ' }, false, [R], { role: 'assistant', content: 'a' }],
    [
      { role: 'assistant', content: 'a', reasoning_content: 't', reasoning: 't' },
      false,
      [],
      { role: 'assistant', content: 'a' },
    ],
    // carriers null, no pad: RC and R removed, RD untouched
    [
      { role: 'assistant', content: 'a', reasoning: 't', reasoning_details: [{ type: 'x' }] },
      false,
      null,
      { role: 'assistant', content: 'a', reasoning_details: [{ type: 'x' }] },
    ],
  ] as const)('%j pad=%s carriers=%j', (source, pad, carriers, expected) => {
    expect(applied(source as JsonObject, pad, carriers as Carrier[] | null)).toEqual(expected);
  });

  test('reasoning_details dropped when not read, except *.native_assistant records', () => {
    const record = { type: 'hermes.native_assistant', reasoning_opaque: 'o' };
    const other = { type: 'acme.native_assistant', x: 1 };
    const standard = { type: 'reasoning.text', text: 't' };
    expect(
      applied({ role: 'assistant', content: 'a', reasoning_details: [standard, record, other] }, false, [RC])[
        'reasoning_details'
      ],
    ).toEqual([record, other]);
    expect(
      'reasoning_details' in applied({ role: 'assistant', content: 'a', reasoning_details: [standard] }, false, [RC]),
    ).toBe(false);
    const details = [standard];
    expect(
      applied({ role: 'assistant', content: 'a', reasoning_details: details }, false, [RC, RD])['reasoning_details'],
    ).toBe(details);
  });

  test.each([
    // legacy branch (carriers null, pad): [source, expected RC]
    [{ role: 'assistant', content: 'a', reasoning_content: 'keep' }, 'keep'],
    [{ role: 'assistant', content: 'a', reasoning_content: '' }, ' '],
    [{ role: 'assistant', content: 'a', reasoning: 'promote me' }, 'promote me'],
    [{ role: 'assistant', content: null, reasoning: 'not promoted', tool_calls: [call] }, ' '],
    [{ role: 'assistant', content: 'a' }, ' '],
  ])('legacy branch %j → RC %j', (source, expected) => {
    expect(applied(source as JsonObject, true, null)['reasoning_content']).toBe(expected);
  });

  test('idempotent: applying twice changes nothing more', () => {
    const cases: [JsonObject, boolean, Carrier[] | null][] = [
      [{ role: 'assistant', content: null, tool_calls: [call] }, true, [RC]],
      [
        {
          role: 'assistant',
          content: 'a',
          reasoning_content: 'rc',
          reasoning: 'r',
          reasoning_details: [{ type: 'reasoning.text' }],
        },
        false,
        [RC, R],
      ],
      [{ role: 'assistant', content: 'a', reasoning: 'r' }, true, null],
      [{ role: 'assistant', content: 'a', reasoning_content: 'x' }, false, [R]],
    ];
    for (const [source, pad, carriers] of cases) {
      const once = applied(source, pad, carriers);
      expect(applied(once, pad, carriers)).toEqual(once);
    }
  });

  test('the source is never mutated', () => {
    const source = {
      role: 'assistant',
      content: 'a',
      reasoning_content: 'x',
      reasoning: 'x',
      reasoning_details: [{ type: 't' }],
    };
    const snapshot = structuredClone(source);
    applied(source, true, []);
    expect(source).toEqual(snapshot);
  });
});

describe('SPEC §6.4 reapply_reasoning_echo', () => {
  test('counts changed assistant messages; a second call returns 0', () => {
    const messages: JsonObject[] = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'assistant', content: 'a', reasoning_content: 'kept' },
      { role: 'assistant', content: 'b', reasoning: 'r', reasoning_details: [{ type: 'reasoning.text', text: 'r' }] },
    ];
    expect(reapplyReasoningEcho(messages, true, [RC])).toBe(2);
    expect(messages[1]).toEqual({ role: 'assistant', content: null, tool_calls: [call], reasoning_content: ' ' });
    expect(messages[3]).toEqual({ role: 'assistant', content: 'b', reasoning_content: 'r' });
    expect(reapplyReasoningEcho(messages, true, [RC])).toBe(0);
  });

  test('legacy branch skips messages that already carry a truthy RC', () => {
    const messages: JsonObject[] = [
      { role: 'assistant', content: 'a', reasoning_content: 'x', reasoning: 'y' },
      { role: 'assistant', content: 'b', reasoning_content: '' },
    ];
    expect(reapplyReasoningEcho(messages, true)).toBe(1);
    expect(messages).toEqual([
      { role: 'assistant', content: 'a', reasoning_content: 'x', reasoning: 'y' },
      { role: 'assistant', content: 'b', reasoning_content: ' ' },
    ]);
    expect(reapplyReasoningEcho(messages, true)).toBe(0);
  });
});
