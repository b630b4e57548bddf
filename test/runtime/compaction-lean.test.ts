import { describe, expect, it } from 'vitest';
import type { Message, UserMessage } from '../../src/core/message.js';
import { estimateRequestTokens } from '../../src/replay/replay-token-estimate.js';
import { compactedMessages, messageCosts, planCompaction } from '../../src/runtime/compaction-plan.js';
import { leanTailBudget, leanTailCut } from '../../src/runtime/compaction-tail.js';
import { longSession } from '../support/long-session.js';

/**
 * The lean tail (SPEC §26.6, §15): sized in tokens from the window, priced exactly like the
 * preflight, never starting at a tool result, keeping at least `min_tail_user_messages` user
 * messages unless that would not fit beside a summary, and never leaving a session that
 * compacts again at once.
 */

const WINDOW = 200_000;
const settings = { contextWindow: WINDOW, threshold: 0.8, keepTurns: 20 };

describe('lean tail budget (SPEC §26.6: 2.5 % of the window, 10K–25K, at most 20 %)', () => {
  it.each([
    [8_000, 1_600],
    [32_000, 6_400],
    [128_000, 10_000],
    [200_000, 10_000],
    [500_000, 12_500],
    [1_000_000, 25_000],
    [2_000_000, 25_000],
  ])('a %i-token window keeps %i tokens', (window, budget) => {
    expect(leanTailBudget(window)).toBe(budget);
  });
});

describe('lean tail cut', () => {
  // ~500K tokens: 110 turns of ~4.5K tokens each.
  const history = longSession({ turns: 110, resultTokens: 4_400 });
  const plan = planCompaction(history, settings, true);

  it('a 500K-token session compacts; the tail keeps three user messages within the clamp, from a user message', () => {
    expect(plan.roughEstimate).toBeGreaterThan(480_000);
    expect(plan.shouldCompact).toBe(true);
    expect(plan.tail).toBe('lean');
    expect(plan.tailBudget).toBe(10_000);
    // Three ~4.5K-token turns: the user-message floor takes the tail past the 10K budget, within 25K.
    expect(plan.keptTurns).toBe(3);
    expect(plan.tailTokens).toBeGreaterThan(10_000);
    expect(plan.tailTokens).toBeLessThanOrEqual(25_000);
    expect(history[plan.tailStart]?.role).toBe('user');
    expect(plan.salvaged).toBe(false);
  });

  it('with small turns the budget binds: the tail stays within 10K tokens and holds more user messages', () => {
    const small = longSession({ turns: 400, resultTokens: 1_200 });
    const smallPlan = planCompaction(small, settings, true);
    expect(smallPlan.tailTokens).toBeLessThanOrEqual(10_000);
    expect(smallPlan.tailTokens).toBeGreaterThan(8_000);
    expect(smallPlan.keptTurns).toBeGreaterThan(3);
    expect(small[smallPlan.tailStart]?.role).not.toBe('tool');
  });

  it('prices the tail exactly like the preflight (SPEC §15): the same costs, opaque bytes at zero', () => {
    const costs = messageCosts(history, true);
    const tail = costs.slice(plan.tailStart).reduce((total, cost) => total + cost, 0);
    expect(plan.tailTokens).toBe(tail);
    expect(costs.reduce((total, cost) => total + cost, 0)).toBe(
      estimateRequestTokens(history, { chargeStaleThinking: true }),
    );
    // Each turn carries 4,005 opaque characters in reasoning_details: none of it is priced.
    const withoutOpaque = history.map((message) =>
      message.role === 'assistant' && message.reasoning_details ? { ...message, reasoning_details: [] } : message,
    );
    expect(planCompaction(withoutOpaque, settings, true).tailStart).toBe(plan.tailStart);
    expect(planCompaction(withoutOpaque, settings, true).tailTokens).toBe(plan.tailTokens);
  });

  it('after compaction the session is far under the limit, so it never compacts again at once (no loop)', () => {
    const summary: UserMessage = { role: 'user', content: `[Summary]\n${'word '.repeat(8_000)}` };
    const compacted = compactedMessages(history, plan, summary);
    const after = planCompaction(compacted, settings, true);
    expect(after.shouldCompact).toBe(false);
    expect(after.estimate).toBeLessThan(20_000 + 10_000);
    // Compacting the compacted session again (forced) keeps the same tail: nothing grows.
    expect(planCompaction(compacted, settings, true, true).tailTokens).toBe(plan.tailTokens);
  });

  it('keeps at least min_tail_user_messages user messages, even past the budget', () => {
    const big = longSession({ turns: 30, resultTokens: 6_000 });
    const floor = planCompaction(big, { ...settings, minTailUserMessages: 3 }, true, true);
    expect(floor.keptTurns).toBe(3);
    expect(big[floor.tailStart]?.role).toBe('user');
    expect(floor.tailTokens).toBeGreaterThan(10_000);
    // Never past 20 % of the window: five ~6K turns (30K) fit under 40K, eight (48K) do not.
    expect(planCompaction(big, { ...settings, minTailUserMessages: 5 }, true, true).keptTurns).toBe(5);
    const capped = planCompaction(big, { ...settings, minTailUserMessages: 8 }, true, true);
    expect(capped.salvaged).toBe(true);
    expect(capped.retainedEstimate).toBeLessThanOrEqual(40_000);
    const none = planCompaction(big, { ...settings, minTailUserMessages: 0 }, true, true);
    expect(none.tailTokens).toBeLessThanOrEqual(10_000);
    expect(none.keptTurns).toBeLessThan(3);
  });

  it('the user-message floor yields when head + tail would not fit beside a summary (salvage)', () => {
    const big = longSession({ turns: 12, resultTokens: 6_000 });
    // Window 32K: budget and cap 6,400 (20 %); three ~6K turns do not fit.
    const plan32 = planCompaction(big, { ...settings, contextWindow: 32_000 }, true, true);
    expect(plan32.salvaged).toBe(true);
    expect(plan32.keptTurns).toBeLessThan(3);
    expect(plan32.retainedEstimate).toBeLessThanOrEqual(6_400 + 6_100);
  });

  it('keeps the newest unit whole even when it alone is over the budget, and never starts at a tool result', () => {
    const history: Message[] = [
      { role: 'user', content: 'start' },
      ...longSession({ turns: 2, resultTokens: 100 }).slice(2),
      { role: 'user', content: 'read it all' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'x', type: 'function', function: { name: 'read_file', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'x', content: 'z'.repeat(200_000) },
    ];
    const costs = messageCosts(history, true);
    const cut = leanTailCut({ history, costs, headEnd: 1, budget: 10_000, minUserMessages: 0, cap: Infinity });
    expect(history[cut.tailStart]?.role).toBe('assistant');
    expect(cut.tailStart).toBe(history.length - 2);
  });

  it('tail: turns keeps keep_turns whole turns as before', () => {
    const turns = planCompaction(history, { ...settings, tail: 'turns', keepTurns: 4 }, true);
    expect(turns.tail).toBe('turns');
    expect(turns.tailBudget).toBeNull();
    expect(turns.keptTurns).toBe(4);
    expect(history[turns.tailStart]?.role).toBe('user');
    expect(turns.tailTokens).toBeGreaterThan(plan.tailTokens);
  });
});
