import { describe, expect, it } from 'vitest';
import type { AssistantMessage } from '../../src/core/message.js';
import { isIncompleteTurn, mergeContinuation } from '../../src/runtime/runtime-continuation.js';

/** SPEC §24.6 rules of the runtime continuation, as pure functions (the e2e drives the CLI). */

const partial: AssistantMessage = {
  role: 'assistant',
  content: '',
  reasoning: 'first thought',
  codex_reasoning_items: [{ type: 'reasoning', id: 'rs_1', encrypted_content: 'E1', summary: [] }],
  finish_reason: 'incomplete',
};
const incomplete = { unified: 'other' as const, raw: 'incomplete' };

describe('isIncompleteTurn (SPEC §24.6)', () => {
  it('a Responses answer with raw incomplete, no text and no call is incomplete', () => {
    expect(isIncompleteTurn('codex_responses', { message: partial, finishReason: incomplete })).toBe(true);
  });
  it('not on another wire API, not with text or a call, not for another raw reason', () => {
    expect(isIncompleteTurn('chat_completions', { message: partial, finishReason: incomplete })).toBe(false);
    expect(
      isIncompleteTurn('codex_responses', { message: { ...partial, content: 'hi' }, finishReason: incomplete }),
    ).toBe(false);
    const call = { id: 'c', type: 'function' as const, function: { name: 'read_file', arguments: '{}' } };
    expect(
      isIncompleteTurn('codex_responses', { message: { ...partial, tool_calls: [call] }, finishReason: incomplete }),
    ).toBe(false);
    expect(
      isIncompleteTurn('codex_responses', {
        message: partial,
        finishReason: { unified: 'length', raw: 'max_output_tokens' },
      }),
    ).toBe(false);
    expect(isIncompleteTurn('codex_responses', { message: partial, finishReason: null })).toBe(false);
  });
});

describe('mergeContinuation (SPEC §24.6)', () => {
  it('earlier reasoning items first, readable reasoning joined, the rest from the answer', () => {
    const answer: AssistantMessage = {
      role: 'assistant',
      content: 'done',
      reasoning: 'second thought',
      codex_reasoning_items: [{ type: 'reasoning', id: 'rs_2', encrypted_content: 'E2', summary: [] }],
      codex_message_items: [{ type: 'message', id: 'msg_2' }],
      finish_reason: 'stop',
    };
    expect(mergeContinuation(partial, answer)).toEqual({
      ...answer,
      reasoning: 'first thought\n\nsecond thought',
      codex_reasoning_items: [...(partial.codex_reasoning_items ?? []), ...(answer.codex_reasoning_items ?? [])],
    });
  });
  it('an rs_tmp_ partial (nothing stored) adds only its readable reasoning', () => {
    const tmp: AssistantMessage = { role: 'assistant', content: '', reasoning: 'tmp thought' };
    const answer: AssistantMessage = { role: 'assistant', content: 'done', finish_reason: 'stop' };
    expect(mergeContinuation(tmp, answer)).toEqual({ ...answer, reasoning: 'tmp thought' });
  });
});
