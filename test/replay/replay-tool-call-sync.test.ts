import { describe, expect, it } from 'vitest';
import type { AssistantMessage, ToolCall } from '../../src/core/message.js';
import {
  removeToolCalls,
  syncToolCallSidecars,
  withoutDuplicateToolCalls,
} from '../../src/replay/replay-tool-call-sync.js';
import { decision } from '../support/messages.js';

/** Tool calls and native sidecars stay in step (SPEC §9.3, §10, §11): one pure place, every sidecar. */

const call = (id: string, path = 'a.txt'): ToolCall => ({
  id,
  type: 'function',
  function: { name: 'read_file', arguments: JSON.stringify({ path }) },
});

/** A captured turn whose model emitted the same call twice (call_B repeats call_A), plus a distinct call_C. */
function captured(): AssistantMessage {
  return {
    role: 'assistant',
    content: 'Reading.',
    tool_calls: [call('call_A'), call('call_B'), call('call_C', 'b.txt')],
    anthropic_content_blocks: [
      { type: 'thinking', thinking: 't', signature: 'S' },
      { type: 'tool_use', id: 'call_A', name: 'read_file', input: { path: 'a.txt' } },
      { type: 'text', text: 'Reading.' },
      { type: 'tool_use', id: 'call_B', name: 'read_file', input: { path: 'a.txt' } },
      { type: 'tool_use', id: 'call_C', name: 'read_file', input: { path: 'b.txt' } },
    ],
    bedrock_content_blocks: [
      { text: 'Reading.' },
      { toolUse: { toolUseId: 'call_A', name: 'read_file', input: { path: 'a.txt' } } },
      { toolUse: { toolUseId: 'call_B', name: 'read_file', input: { path: 'a.txt' } } },
      { toolUse: { toolUseId: 'call_C', name: 'read_file', input: { path: 'b.txt' } } },
    ],
    gemini_content_parts: [
      { text: 't', thought: true },
      { functionCall: { name: 'read_file', args: { path: 'a.txt' } }, thoughtSignature: 'G' },
      { functionCall: { name: 'read_file', args: { path: 'a.txt' } } },
      { functionCall: { name: 'read_file', args: { path: 'b.txt' } } },
      { text: 'Reading.' },
    ],
  };
}

describe('replay-tool-call-sync', () => {
  it('withoutDuplicateToolCalls: the repeated call leaves tool_calls and all three sidecars; the rest keeps its order', () => {
    const message = captured();
    const before = JSON.stringify(message);
    const result = withoutDuplicateToolCalls(message);
    expect(result.tool_calls?.map((each) => each.id)).toEqual(['call_A', 'call_C']);
    expect(result.anthropic_content_blocks?.map((block) => block['id'] ?? block['type'])).toEqual([
      'thinking',
      'call_A',
      'text',
      'call_C',
    ]);
    expect(result.bedrock_content_blocks).toEqual([
      { text: 'Reading.' },
      { toolUse: { toolUseId: 'call_A', name: 'read_file', input: { path: 'a.txt' } } },
      { toolUse: { toolUseId: 'call_C', name: 'read_file', input: { path: 'b.txt' } } },
    ]);
    expect(result.gemini_content_parts).toEqual([
      { text: 't', thought: true },
      { functionCall: { name: 'read_file', args: { path: 'a.txt' } }, thoughtSignature: 'G' },
      { functionCall: { name: 'read_file', args: { path: 'b.txt' } } },
      { text: 'Reading.' },
    ]);
    expect(JSON.stringify(message)).toBe(before);
  });

  it('removeToolCalls (an over-limit call): the dropped call’s blocks go, by id and, for id-less Gemini parts, by name and arguments', () => {
    const result = removeToolCalls(captured(), (each) => each.id === 'call_C');
    expect(result.anthropic_content_blocks?.some((block) => block['id'] === 'call_C')).toBe(false);
    expect(JSON.stringify(result.bedrock_content_blocks)).not.toContain('call_C');
    expect(JSON.stringify(result.gemini_content_parts)).not.toContain('b.txt');
    expect(result.gemini_content_parts).toHaveLength(4);
  });

  it('nothing to do: the same object back, no decisions; a message without tool_calls keeps its sidecars', () => {
    const message = withoutDuplicateToolCalls(captured());
    expect(syncToolCallSidecars(message, 4)).toEqual({ message, decisions: [] });
    expect(syncToolCallSidecars(message, 4).message).toBe(message);
    const { tool_calls: _calls, ...withoutCalls } = captured();
    expect(syncToolCallSidecars(withoutCalls, 4).message).toBe(withoutCalls);
  });

  it('a stored message whose calls were dropped before its sidecars: one decision per block left out', () => {
    const message = { ...captured(), tool_calls: [call('call_A'), call('call_C', 'b.txt')] };
    expect(syncToolCallSidecars(message, 7).decisions).toEqual([
      decision(7, 'anthropic_content_blocks[3] (tool_use)', 'dropped', 'tool call no longer in the message'),
      decision(7, 'bedrock_content_blocks[2] (toolUse)', 'dropped', 'tool call no longer in the message'),
      decision(7, 'gemini_content_parts[2] (functionCall)', 'dropped', 'tool call named twice'),
    ]);
  });
});
