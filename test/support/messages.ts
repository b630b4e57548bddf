import type { JsonObject } from '../../src/core/json.js';
import type { AssistantMessage, ToolCall } from '../../src/core/message.js';
import type { OriginStamp } from '../../src/core/origin.js';
import type { Route } from '../../src/core/route.js';
import type { CarrierDecision, DecisionAction } from '../../src/replay/replay-types.js';

/**
 * Small builders for the message, block and route literals replay and transport tests repeat (SPEC §2
 * stored messages, SPEC §9.3 Anthropic blocks, SPEC §23.3 decisions). Each returns a plain
 * literal, so an expectation built with them is still an exact deep-equality check.
 */

/** An Anthropic `text` block. */
function textBlock(text: string): JsonObject {
  return { type: 'text', text };
}

/** An Anthropic `thinking` block, signed when `signature` is given. */
function thinkingBlock(thinking: string, signature?: string): JsonObject {
  return signature === undefined ? { type: 'thinking', thinking } : { type: 'thinking', thinking, signature };
}

/** An Anthropic `redacted_thinking` block. */
function redactedThinkingBlock(data: string): JsonObject {
  return { type: 'redacted_thinking', data };
}

/** The text block thinking becomes when it cannot travel as thinking: its bare text (SPEC §24.3, §25.3). */
function demotedThinkingBlock(thinking: string): JsonObject {
  return textBlock(thinking);
}

/** An Anthropic `tool_use` block. */
function toolUseBlock(id: string, name: string, input: JsonObject = {}): JsonObject {
  return { type: 'tool_use', id, name, input };
}

/** Anthropic content blocks: `block.text('a')`, `block.thinking('p', 'SIG')`, `block.toolUse('t1', 'f')`, ... */
export const block = {
  text: textBlock,
  thinking: thinkingBlock,
  redacted: redactedThinkingBlock,
  demoted: demotedThinkingBlock,
  toolUse: toolUseBlock,
};

/** An assistant message as the Anthropic wire carries it: role plus content blocks. */
export function wireAssistant(...content: JsonObject[]): JsonObject {
  return { role: 'assistant', content };
}

/** A stored function tool call (`arguments` is raw JSON text). */
export function toolCall(id: string, name: string, args = '{}'): ToolCall {
  return { id, type: 'function', function: { name, arguments: args } };
}

/** A stored assistant answer `text` with its Anthropic sidecar: signed thinking, then the text. */
export function signedAnswer(
  text: string,
  thinking: string,
  signature: string,
  origin?: OriginStamp,
): AssistantMessage {
  return {
    role: 'assistant',
    content: text,
    anthropic_content_blocks: [thinkingBlock(thinking, signature), textBlock(text)],
    ...(origin === undefined ? {} : { origin }),
  };
}

/** A route; `baseUrl` only when given. */
export function routeTo(api: Route['api'], provider: string, model: string, baseUrl?: string): Route {
  return baseUrl === undefined ? { api, provider, model } : { api, provider, model, baseUrl };
}

/** Where a stored message came from (SPEC §23.2 origin stamp). */
export function originStamp(api: OriginStamp['api'], provider: string, host: string, model: string): OriginStamp {
  return { api, provider, host, model };
}

/** One replay decision (SPEC §23.3). */
export function decision(
  messageIndex: number,
  field: string,
  action: DecisionAction,
  reason: string,
  bytes?: number,
): CarrierDecision {
  return bytes === undefined ? { messageIndex, field, action, reason } : { messageIndex, field, action, reason, bytes };
}
