import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import type { AssistantMessage, Message, ToolCall } from '../../src/core/message.js';
import type { Route } from '../../src/core/route.js';
import type { CarrierDecision } from '../../src/replay/replay-types.js';
import { withoutDuplicateToolCalls } from '../../src/replay/replay-tool-call-sync.js';
import { prepareAnthropicMessages } from '../../src/transports/anthropic-messages/anthropic-messages-encode.js';
import { prepareBedrockConverse } from '../../src/transports/bedrock-converse/bedrock-converse-encode.js';
import { prepareGemini } from '../../src/transports/gemini/gemini-encode.js';
import type { TransportRequest } from '../../src/transports/shared/transport.js';

/**
 * Tool calls and native sidecars stay in step (SPEC §9.3, §10, §11; WIRE.md §3): a call the
 * message no longer has (the model emitted it twice and the duplicate was removed) is named by no
 * sidecar block on the wire, the call goes out once, and every other sidecar block keeps its place.
 */

const call = (id: string): ToolCall => ({
  id,
  type: 'function',
  function: { name: 'read_file', arguments: '{"path":"notes.txt"}' },
});

function request(route: Route, history: Message[]): TransportRequest {
  return { route, history, tools: [], reasoning: { enabled: true } };
}

/** The replay decision (SPEC §23.3) that the stored turn, history index 1, lost `field` for `reason`. */
function droppedOnTurn(field: string, reason: string): CarrierDecision {
  return { messageIndex: 1, field, action: 'dropped', reason };
}

function turn(assistant: AssistantMessage): Message[] {
  return [
    { role: 'user', content: 'read notes.txt' },
    assistant,
    { role: 'tool', tool_call_id: 'call_A', content: 'hello' },
  ];
}

const frozen = (history: Message[]) => JSON.stringify(history);

describe('Anthropic Messages: the sidecar loses a removed duplicate call', () => {
  const route: Route = { api: 'anthropic_messages', provider: 'anthropic', model: 'claude-opus-4-8' };
  const origin = { api: 'anthropic_messages' as const, provider: 'anthropic', host: '', model: 'claude-opus-4-8' };
  const THINKING = { type: 'thinking', thinking: 'Read it.', signature: 'SIG-A' };
  const sidecar = [
    THINKING,
    { type: 'text', text: 'Reading.' },
    { type: 'tool_use', id: 'call_A', name: 'read_file', input: { path: 'notes.txt' } },
    { type: 'tool_use', id: 'call_B', name: 'read_file', input: { path: 'notes.txt' } },
  ];
  const expected = [
    THINKING,
    { type: 'text', text: 'Reading.' },
    { type: 'tool_use', id: 'call_A', name: 'read_file', input: { path: 'notes.txt' } },
  ];

  it('tool_calls kept one of two identical calls: the request names call_A once, thinking stays signed, order kept', () => {
    const history = turn({
      role: 'assistant',
      content: 'Reading.',
      tool_calls: [call('call_A')],
      anthropic_content_blocks: sidecar,
      origin,
    });
    const before = frozen(history);
    const prepared = prepareAnthropicMessages(request(route, history));
    const messages = prepared.body['messages'] as JsonObject[];
    expect(messages[1]).toEqual({ role: 'assistant', content: expected });
    expect(prepared.decisions).toContainEqual(
      droppedOnTurn('anthropic_content_blocks[3] (tool_use)', 'tool call no longer in the message'),
    );
    // Not an orphan: the signature was not invalidated by removing a block.
    expect(prepared.decisions.some((decision) => decision.reason === 'orphan tool_use')).toBe(false);
    expect(frozen(history)).toBe(before);
  });

  it('one call stored twice under one id, named twice by the sidecar: one tool_use', () => {
    const history = turn({
      role: 'assistant',
      content: 'Reading.',
      tool_calls: [call('call_A'), call('call_A')],
      anthropic_content_blocks: [...sidecar.slice(0, 3), sidecar[2] as JsonObject],
      origin,
    });
    const messages = prepareAnthropicMessages(request(route, history)).body['messages'] as JsonObject[];
    expect(messages[1]).toEqual({ role: 'assistant', content: expected });
  });
});

describe('Bedrock Converse: the sidecar loses a removed duplicate call', () => {
  const model = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
  const route: Route = { api: 'bedrock_converse', provider: 'bedrock', model };
  const origin = { api: 'bedrock_converse' as const, provider: 'bedrock', host: '', model };
  const REASONING = { reasoningContent: { reasoningText: { text: 'Read it.', signature: 'SIG-B' } } };
  const toolUse = (id: string) => ({ toolUse: { toolUseId: id, name: 'read_file', input: { path: 'notes.txt' } } });

  it('a stored call repeated under one id and a sidecar naming both: one toolUse, blocks in order', () => {
    const history = turn({
      role: 'assistant',
      content: 'Reading.',
      tool_calls: [call('call_A'), call('call_A')],
      bedrock_content_blocks: [REASONING, { text: 'Reading.' }, toolUse('call_A'), toolUse('call_A')],
      origin,
    });
    const prepared = prepareBedrockConverse(request(route, history));
    const messages = prepared.body['messages'] as JsonObject[];
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: [REASONING, { text: 'Reading.' }, toolUse('call_A')],
    });
    expect(prepared.decisions).toContainEqual(droppedOnTurn('tool_calls[1]', 'duplicate call id'));
  });

  it('withoutDuplicateToolCalls on the captured turn: tool_calls and sidecar both lose call_B', () => {
    const captured: AssistantMessage = {
      role: 'assistant',
      content: 'Reading.',
      tool_calls: [call('call_A'), call('call_B')],
      bedrock_content_blocks: [REASONING, { text: 'Reading.' }, toolUse('call_A'), toolUse('call_B')],
      origin,
    };
    const deduplicated = withoutDuplicateToolCalls(captured);
    expect(deduplicated.tool_calls).toEqual([call('call_A')]);
    expect(deduplicated.bedrock_content_blocks).toEqual([REASONING, { text: 'Reading.' }, toolUse('call_A')]);
    expect(captured.tool_calls).toHaveLength(2);
    const messages = prepareBedrockConverse(request(route, turn(deduplicated))).body['messages'] as JsonObject[];
    expect(messages[1]?.['content']).toEqual([REASONING, { text: 'Reading.' }, toolUse('call_A')]);
  });
});

describe('Gemini: the stored parts lose a removed duplicate call and still travel verbatim', () => {
  const route: Route = { api: 'gemini', provider: 'gemini', model: 'gemini-3-pro-preview' };
  const origin = { api: 'gemini' as const, provider: 'gemini', host: '', model: 'gemini-3-pro-preview' };
  const THOUGHT = { text: 'I should read it.', thought: true };
  const first = { functionCall: { name: 'read_file', args: { path: 'notes.txt' } }, thoughtSignature: 'SIG-G' };
  const second = { functionCall: { name: 'read_file', args: { path: 'notes.txt' } } };
  /** The history around an AI Studio turn whose tool_calls kept call_A, with these stored parts. */
  const callATurn = (parts: object[]): Message[] =>
    turn({
      role: 'assistant',
      content: null,
      tool_calls: [call('call_A')],
      origin,
      gemini_issuer: 'ai-studio',
      gemini_content_parts: parts,
    } as AssistantMessage);

  it('tool_calls kept one of two identical calls: one functionCall, the thought part and its signature kept', () => {
    const history = callATurn([THOUGHT, first, second]);
    const before = frozen(history);
    const prepared = prepareGemini(request(route, history));
    const contents = prepared.body['contents'] as JsonObject[];
    expect(contents[1]).toEqual({
      role: 'model',
      parts: [
        THOUGHT,
        { functionCall: { name: 'read_file', args: { path: 'notes.txt' }, id: 'call_A' }, thoughtSignature: 'SIG-G' },
      ],
    });
    expect(prepared.decisions).toContainEqual(
      droppedOnTurn('gemini_content_parts[2] (functionCall)', 'tool call named twice'),
    );
    expect(frozen(history)).toBe(before);
  });

  it('parts that carry the model’s ids: the part naming the removed id goes', () => {
    const history = callATurn([
      { functionCall: { ...first.functionCall, id: 'call_A' }, thoughtSignature: 'SIG-G' },
      { functionCall: { ...second.functionCall, id: 'call_B' } },
    ]);
    const contents = prepareGemini(request(route, history)).body['contents'] as JsonObject[];
    expect(contents[1]?.['parts']).toEqual([
      { functionCall: { name: 'read_file', args: { path: 'notes.txt' }, id: 'call_A' }, thoughtSignature: 'SIG-G' },
    ]);
  });
});
