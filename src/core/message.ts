import type { JsonObject } from './json.js';
import type { OriginStamp } from './origin.js';

/**
 * Canonical stored messages (SPEC §2). Keys are the snake_case JSON keys used by
 * `sessions show --json`, `sessions export` and `replay preview --history`, so a history moves
 * between tools unchanged. Stored history is the lossless superset of every carrier; each
 * request is a filtered copy of it (SPEC §21.1).
 */

/** The function part of a tool call. `arguments` is the raw JSON text the model produced. */
export interface ToolCallFunction {
  name: string;
  arguments: string;
  /** Copilot-shaped per-call Gemini signature (SPEC §7.2); only Copilot routes read it. */
  thought_signature?: string;
}

/** A tool call on an assistant message (SPEC §2). */
export interface ToolCall {
  id: string;
  /** Responses API call id (stripped on chat-completions wire). */
  call_id?: string;
  /** Responses API item id (stripped on chat-completions wire). */
  response_item_id?: string;
  type: 'function';
  function: ToolCallFunction;
  /** Gemini OpenAI-compat `{google: {thought_signature}}`; kept only when present in the response. */
  extra_content?: JsonObject;
}

/** A user-content part (text or any provider-native part kept verbatim). */
export type ContentPart = { type: 'text'; text: string } | JsonObject;

/** Metadata keys that are never sent on any wire (SPEC §2). */
export interface MessageMetadata {
  timestamp?: number;
  platform_message_id?: string;
  effect_disposition?: string;
}

/** A system prompt message. */
export interface SystemMessage extends MessageMetadata {
  role: 'system';
  content: string;
}

/** A user message. */
export interface UserMessage extends MessageMetadata {
  role: 'user';
  content: string | ContentPart[];
}

/** A tool result message answering one tool call. */
export interface ToolMessage extends MessageMetadata {
  role: 'tool';
  tool_call_id: string;
  content: string;
  tool_name?: string;
}

/** A stored assistant message with every reasoning carrier it arrived with (SPEC §2, §2.1). */
export interface AssistantMessage extends MessageMetadata {
  role: 'assistant';
  /** Visible text; null for a pure tool-call turn. */
  content: string | null;
  tool_calls?: ToolCall[];
  /** Readable reasoning text extracted from the response. */
  reasoning?: string | null;
  /** The provider's raw `reasoning_content`, verbatim (kept even when ""). */
  reasoning_content?: string | null;
  /** Provider `reasoning_details` entries plus the private `hermes.native_assistant` record. */
  reasoning_details?: JsonObject[] | null;
  /** Ordered native Anthropic content blocks: authoritative for Anthropic replay. */
  anthropic_content_blocks?: JsonObject[];
  /** Ordered Bedrock Converse content blocks: authoritative for Converse replay. */
  bedrock_content_blocks?: JsonObject[];
  /**
   * Ordered native Gemini model parts of the turn, verbatim (stream text chunks merged into the
   * part they belong to), so replay reproduces the part boundaries each `thoughtSignature` is
   * bound to (WIRE.md §4.4). Authoritative for Gemini replay; never sent on another wire.
   */
  gemini_content_parts?: JsonObject[];
  /** Issuer of the Gemini parts' signatures: `ai-studio`, `vertex`, or `<kind>@<host>` (SPEC §23.2). */
  gemini_issuer?: string;
  /** Responses API reasoning items (encrypted) and compaction checkpoints. */
  codex_reasoning_items?: JsonObject[];
  /** Responses API output message items (id + phase). */
  codex_message_items?: JsonObject[];
  /** Raw provider finish reason. */
  finish_reason?: string;
  /** Wire-only sidecar that replaces `content` on the wire and for pricing. */
  api_content?: string;
  /** Where this message came from (SPEC §23.2). Never sent on the wire. */
  origin?: OriginStamp;
  /** Private runtime flags start with `_` and are never sent (e.g. `_thinking_signature_invalidated`). */
  [privateKey: `_${string}`]: unknown;
}

/** Any canonical message. */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** Message roles. */
export type Role = Message['role'];
