import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message, UserMessage } from '../../src/core/message.js';
import { compactedMessages, planCompaction } from '../../src/runtime/compaction-plan.js';

/**
 * SPEC §16 retention, unit level: the child's messages are head + summary + tail, every retained
 * carrier byte for byte, only superseded Responses checkpoints dropped, and the parent's usage
 * anchor removed (it measured a prompt the child never sends).
 */

function turn(index: number, checkpoint: boolean): Message[] {
  const assistant: AssistantMessage = {
    role: 'assistant',
    content: `answer ${index} `.repeat(30),
    reasoning_content: `thinking ${index}`,
    reasoning_details: [{ type: 'reasoning.encrypted', data: `blob-${index}`, id: `rs_${index}` }],
    codex_reasoning_items: [
      { type: 'reasoning', id: `rs_${index}`, encrypted_content: `enc-${index}`, summary: [] },
      ...(checkpoint ? [{ type: 'compaction', encrypted_content: `checkpoint-${index}` }] : []),
    ],
    origin: { api: 'codex_responses', provider: 'openai', host: 'api.openai.com', model: 'gpt-5.4' },
    finish_reason: 'completed',
    _usage: { input_tokens: 1000 * index, output_tokens: 10 },
  };
  return [{ role: 'user', content: `question ${index} `.repeat(30) }, assistant];
}

describe('compactedMessages (SPEC §16)', () => {
  const history: Message[] = [{ role: 'system', content: 'sys' }];
  for (let index = 1; index <= 6; index += 1) history.push(...turn(index, index === 4 || index === 6));
  const plan = planCompaction(
    history,
    { contextWindow: 100_000, threshold: 0.8, keepTurns: 3, tail: 'turns' as const },
    true,
    true,
  );
  const summary: UserMessage = { role: 'user', content: '[Summary]\nshort' };
  const child = compactedMessages(history, plan, summary);

  it('is head + summary + the last turns; retained carriers unchanged except superseded checkpoints', () => {
    expect(plan.headEnd).toBe(2);
    expect(plan.tailStart).toBe(7);
    const strip = (message: Message): Message => {
      if (message.role !== 'assistant') return message;
      const copy: AssistantMessage = { ...message };
      delete copy['_usage'];
      return copy;
    };
    const supersededDropped = (message: Message): Message =>
      message.role === 'assistant' && message.codex_reasoning_items
        ? {
            ...message,
            codex_reasoning_items: message.codex_reasoning_items.filter(
              (item) => item['type'] !== 'compaction' || item['encrypted_content'] === 'checkpoint-6',
            ),
          }
        : message;
    expect(child).toEqual([history[0], history[1], summary, ...history.slice(7).map(strip).map(supersededDropped)]);
    // The turn-4 checkpoint was superseded by turn 6's; turn 6 keeps its own.
    const items = child.flatMap((message) =>
      message.role === 'assistant' ? (message.codex_reasoning_items ?? []) : [],
    );
    expect(items.filter((item) => item['type'] === 'compaction')).toEqual([
      { type: 'compaction', encrypted_content: 'checkpoint-6' },
    ]);
  });

  it('drops the parent usage anchor, so the child is measured by its own content and frees what it should', () => {
    expect(child.some((message) => '_usage' in message)).toBe(false);
    const before = planCompaction(
      history,
      { contextWindow: 100_000, threshold: 0.8, keepTurns: 3, tail: 'turns' as const },
      true,
    );
    const after = planCompaction(
      child,
      { contextWindow: 100_000, threshold: 0.8, keepTurns: 3, tail: 'turns' as const },
      true,
    );
    // The source's anchor says 6,010 tokens; the child is priced from its messages alone.
    expect(before.estimate).toBe(6010);
    expect(after.estimate).toBe(after.roughEstimate);
    expect(after.roughEstimate).toBeLessThan(before.roughEstimate);
  });

  it('never mutates the source history', () => {
    expect(history.filter((message) => '_usage' in message)).toHaveLength(6);
  });
});
