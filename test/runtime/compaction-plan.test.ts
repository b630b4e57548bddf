import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message } from '../../src/core/message.js';
import type { Route } from '../../src/core/route.js';
import { estimateRequestTokens } from '../../src/replay/replay-token-estimate.js';
import { dropSupersededCheckpoints, messageCosts, planCompaction } from '../../src/runtime/compaction-plan.js';
import { resolveRouteProfile } from '../../src/replay/replay-route-profile.js';

/** A deterministic PRNG so generated histories are reproducible. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function generateHistory(seed: number, turns: number): Message[] {
  const random = prng(seed);
  const text = (length: number) => 'word '.repeat(Math.max(1, Math.floor(length / 5)));
  const history: Message[] = [{ role: 'system', content: 'You are helpful.' }];
  for (let turn = 0; turn < turns; turn += 1) {
    history.push({ role: 'user', content: text(20 + random() * 400) });
    if (random() < 0.5) {
      history.push({
        role: 'assistant',
        content: null,
        reasoning_content: random() < 0.8 ? text(random() * 3000) : ' ',
        reasoning_details: [{ type: 'reasoning.encrypted', data: 'x'.repeat(Math.floor(random() * 5000)) }],
        tool_calls: [{ id: `c${turn}`, type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }],
      });
      history.push({ role: 'tool', tool_call_id: `c${turn}`, content: text(random() * 800) });
    }
    const final: AssistantMessage = { role: 'assistant', content: text(random() * 600) };
    if (random() < 0.5) final.reasoning = text(random() * 2000);
    if (random() < 0.3)
      final.anthropic_content_blocks = [{ type: 'thinking', thinking: 't', signature: 's'.repeat(900) }];
    history.push(final);
  }
  return history;
}

const routes: [string, Route][] = [
  ['full carriers (openrouter)', { api: 'chat_completions', provider: 'openrouter', model: 'a/b' }],
  ['must-echo (deepseek)', { api: 'chat_completions', provider: 'deepseek', model: 'deepseek-v4-flash' }],
  ['strict (mistral)', { api: 'chat_completions', provider: 'mistral', model: 'magistral' }],
  ['local fallback', { api: 'chat_completions', provider: 'acme', model: 'q', baseUrl: 'http://127.0.0.1:8080/v1' }],
  ['anthropic', { api: 'anthropic_messages', provider: 'anthropic', model: 'claude-opus-4-8' }],
  ['responses', { api: 'codex_responses', provider: 'openai', model: 'gpt-5.4' }],
];

describe('compaction estimator parity (SPEC §15)', () => {
  it.each(routes)('preflight estimate == sum of tail-walk estimates for %s', (_name, route) => {
    const charge = resolveRouteProfile(route).chargeStaleThinking;
    for (let seed = 1; seed <= 25; seed += 1) {
      const history = generateHistory(seed, 3 + (seed % 17));
      const costs = messageCosts(history, charge);
      expect(costs.reduce((total, cost) => total + cost, 0)).toBe(
        estimateRequestTokens(history, { chargeStaleThinking: charge }),
      );
      // Any cut point: head + tail + middle sums stay equal to the whole.
      const cut = Math.floor(history.length / 2);
      const head = costs.slice(0, cut).reduce((total, cost) => total + cost, 0);
      const tail = costs.slice(cut).reduce((total, cost) => total + cost, 0);
      expect(head + tail).toBe(estimateRequestTokens(history, { chargeStaleThinking: charge }));
    }
  });

  it('a history whose only weight is opaque bytes does not trigger compaction (SPEC §15 opaque bytes cost 0)', () => {
    const history: Message[] = [{ role: 'user', content: 'hi' }];
    for (let index = 0; index < 40; index += 1) {
      history.push({
        role: 'assistant',
        content: 'ok',
        reasoning_details: [{ type: 'reasoning.encrypted', data: 'E'.repeat(50_000) }],
        anthropic_content_blocks: [{ type: 'redacted_thinking', data: 'R'.repeat(50_000) }],
        codex_reasoning_items: [{ type: 'reasoning', encrypted_content: 'C'.repeat(50_000), summary: [] }],
      });
      history.push({ role: 'user', content: 'next' });
    }
    const plan = planCompaction(history, { contextWindow: 8000, threshold: 0.8, keepTurns: 4 }, true);
    expect(plan.estimate).toBeLessThan(1000);
    expect(plan.shouldCompact).toBe(false);
  });
});

describe('compaction cut', () => {
  const history = generateHistory(7, 30);

  it('keeps the first user message and the last N turns, cutting only at user messages', () => {
    const plan = planCompaction(history, { contextWindow: 2000, threshold: 0.8, keepTurns: 5, tail: 'turns' }, true);
    expect(plan.shouldCompact).toBe(true);
    expect(history[plan.headEnd - 1]?.role).toBe('user');
    expect(history[plan.tailStart]?.role).toBe('user');
    expect(history.slice(plan.tailStart).filter((message) => message.role === 'user').length).toBe(plan.keptTurns);
  });

  it('salvage keeps fewer turns when the tail alone does not fit, never fewer than one', () => {
    const plan = planCompaction(history, { contextWindow: 300, threshold: 0.8, keepTurns: 20, tail: 'turns' }, true);
    expect(plan.salvaged).toBe(true);
    expect(plan.keptTurns).toBeGreaterThanOrEqual(1);
    expect(plan.keptTurns).toBeLessThan(20);
  });

  it('with nothing between head and tail there is nothing to compact, even when forced', () => {
    const short: Message[] = [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
    ];
    expect(
      planCompaction(short, { contextWindow: 10, threshold: 0.8, keepTurns: 20, tail: 'turns' }, true, true)
        .shouldCompact,
    ).toBe(false);
  });

  it('drops only Responses checkpoints superseded by a newer one (SPEC §16)', () => {
    const messages: Message[] = [
      {
        role: 'assistant',
        content: 'a',
        codex_reasoning_items: [
          { type: 'compaction', encrypted_content: 'old' },
          { type: 'reasoning', encrypted_content: 'keep-1', summary: [] },
        ],
      },
      { role: 'assistant', content: 'b', codex_reasoning_items: [{ type: 'compaction', encrypted_content: 'new' }] },
    ];
    expect(dropSupersededCheckpoints(messages)).toEqual([
      {
        role: 'assistant',
        content: 'a',
        codex_reasoning_items: [{ type: 'reasoning', encrypted_content: 'keep-1', summary: [] }],
      },
      messages[1],
    ]);
  });
});
