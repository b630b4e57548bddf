import { readFixtureJson as readFixture } from '../support/fixtures.js';
import type { JsonObject } from '../../src/core/json.js';
import type { AssistantMessage, Message } from '../../src/core/message.js';
import { toolCall } from '../support/messages.js';

/**
 * Messages for the storage tests: one of every role and every carrier kind of SPEC §2. The
 * Anthropic blocks (signed `thinking`, `redacted_thinking`) come from recorded provider traffic
 * in `test/fixtures/`, so the stored bytes are real signatures, not made-up strings.
 */

function readFixtureJson(relativePath: string): JsonObject {
  return readFixture<JsonObject>(relativePath);
}

/** `thinking` (with signature) + `text` blocks of a real Anthropic response. */
function recordedThinkingBlocks(): JsonObject[] {
  return readFixtureJson('anthropic/vercel-clear-thinking.1.json')['content'] as JsonObject[];
}

/** The `redacted_thinking` block of a real Anthropic response. */
function recordedRedactedThinkingBlock(): JsonObject {
  const cassette = readFixtureJson('anthropic/pydantic-thinking-part-redacted.cassette.json');
  const interactions = cassette['interactions'] as JsonObject[];
  const response = interactions[0]?.['response'] as JsonObject;
  const content = (response['body'] as JsonObject)['content'] as JsonObject[];
  const redacted = content.find((block) => block['type'] === 'redacted_thinking');
  if (redacted === undefined) throw new Error('fixture lost its redacted_thinking block');
  return redacted;
}

/**
 * An assistant message carrying every carrier kind at once: RC, R, RD with the private
 * `hermes.native_assistant` record, signed and redacted Anthropic blocks, Bedrock blocks, Codex
 * encrypted reasoning and message items, tool calls with `extra_content` and
 * `thought_signature`, `api_content`, `finish_reason`, the origin stamp, a private `_` flag and
 * a key no SPEC section names.
 */
export function everyCarrierMessage(): AssistantMessage {
  const [thinking, text] = recordedThinkingBlocks();
  return {
    role: 'assistant',
    content: '925 ÷ 5 = 185',
    tool_calls: [
      {
        id: 'call_0',
        call_id: 'call_0',
        response_item_id: 'fc_0a1b',
        type: 'function',
        function: { name: 'calculator', arguments: '{"expression":"925 / 5"}', thought_signature: 'c2lnbmF0dXJlLTA=' },
        extra_content: { google: { thought_signature: 'Q2lRQjRzaWduZWQ=' } },
      },
      toolCall('call_1', 'read_file'),
    ],
    reasoning: 'Divide 925 by 5.',
    reasoning_content: 'Divide 925 by 5.\n',
    reasoning_details: [
      {
        type: 'reasoning.text',
        text: 'Divide 925 by 5.',
        signature: 'sig-abc',
        format: 'anthropic-claude-v1',
        index: 0,
      },
      { type: 'reasoning.encrypted', data: 'gAAAAABo-encrypted==', format: 'openai-responses-v1', index: 1 },
      {
        type: 'hermes.native_assistant',
        provider: 'copilot',
        fields: { reasoning_opaque: 'b3BhcXVlLWJ5dGVz', reasoning_text: 'Divide.' },
      },
    ],
    anthropic_content_blocks: [
      ...(thinking === undefined ? [] : [thinking]),
      recordedRedactedThinkingBlock(),
      ...(text === undefined ? [] : [text]),
      { type: 'tool_use', id: 'toolu_01', name: 'calculator', input: { expression: '925 / 5' } },
    ],
    bedrock_content_blocks: [
      { reasoningContent: { reasoningText: { text: 'Divide 925 by 5.', signature: 'EqQBCkgIARABGAIi' } } },
      { reasoningContent: { redactedContent: 'cmVkYWN0ZWQ=' } },
      { toolUse: { toolUseId: 'tooluse_01', name: 'calculator', input: { expression: '925 / 5' } } },
    ],
    codex_reasoning_items: [
      {
        type: 'reasoning',
        id: 'rs_0a1b2c',
        summary: [{ type: 'summary_text', text: 'Dividing.' }],
        encrypted_content: 'gAAAAABoZ2VuY3J5cHRlZC1ieXRlcw==',
      },
      { type: 'compaction', id: 'cmp_01', encrypted_content: 'gAAAAABjb21wYWN0' },
    ],
    codex_message_items: [{ type: 'message', id: 'msg_0a1b', phase: 'final_answer' }],
    finish_reason: 'tool_calls',
    api_content: '925 ÷ 5 = 185 (wire copy)',
    origin: { api: 'anthropic_messages', provider: 'anthropic', host: 'api.anthropic.com', model: 'claude-sonnet-4-5' },
    timestamp: 1_764_444_153.25,
    platform_message_id: 'tg-4411',
    effect_disposition: 'applied',
    _thinking_signature_invalidated: true,
    _branched_from: { session: '20261129-192233-k3f9qa', seq: 4 },
    ...({ vendor_future_key: { nested: [1, 'two', null, { three: 3 }] } } as object),
  };
}

/** A short conversation with one of each role, including user content parts. */
export function conversation(): Message[] {
  return [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'What is 925 / 5?', timestamp: 1_764_444_150 },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'and this picture?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      ],
    },
    everyCarrierMessage(),
    { role: 'tool', tool_call_id: 'call_0', tool_name: 'calculator', content: '185' },
    { role: 'tool', tool_call_id: 'call_1', content: '' },
    // DeepSeek must-echo pad (SPEC §2.1 rule 2) on a pure tool-call turn.
    {
      role: 'assistant',
      content: null,
      reasoning_content: ' ',
      tool_calls: [toolCall('call_2', 'list_directory', '{"path":"."}')],
    },
    { role: 'tool', tool_call_id: 'call_2', content: 'README.md' },
    // A raw empty reasoning_content is kept verbatim (SPEC §2.1 rule 1, §19).
    { role: 'assistant', content: 'Done.', reasoning_content: '', reasoning: null, finish_reason: 'stop' },
  ];
}

/** A numbered assistant message whose reasoning is `size` characters (bench and kill tests). */
export function numberedAssistantMessage(index: number, size: number): AssistantMessage {
  const unit = `step ${index}: reasoning about the task; `;
  const reasoning = unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  return {
    role: 'assistant',
    content: `answer ${index}`,
    reasoning,
    reasoning_content: reasoning,
    reasoning_details: [{ type: 'reasoning.text', text: reasoning.slice(0, 64), signature: `sig-${index}` }],
    finish_reason: 'stop',
  };
}
