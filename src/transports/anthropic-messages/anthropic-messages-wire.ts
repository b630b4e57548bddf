/**
 * Anthropic Messages wire types (WIRE.md §2): the request body, the response message, the stream
 * events, and the error envelope. Only the fields Hermes reads or writes are typed; everything
 * is kept as JSON so unknown fields survive verbatim.
 */
import type { JsonObject } from '../../core/json.js';

/** `anthropic-version` header value for the direct API, Foundry and compatible hosts. */
export const ANTHROPIC_VERSION_HEADER = '2023-06-01';
/** Body `anthropic_version` on Bedrock InvokeModel (WIRE.md §2.5). */
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';
/** Body `anthropic_version` on Vertex AI rawPredict (WIRE.md §2.5). */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/** `thinking` request parameter (WIRE.md §2.1). */
export type AnthropicThinkingParam =
  { type: 'enabled'; budget_tokens: number } | { type: 'adaptive' } | { type: 'disabled' };

/** Effort values of `output_config.effort` for adaptive thinking. */
export type AnthropicEffort = 'low' | 'medium' | 'high' | 'xhigh' | 'max';

/** A tool in Anthropic shape. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonObject;
}

/** Content block types Hermes recognises in responses. */
export type AnthropicBlockType =
  'thinking' | 'redacted_thinking' | 'text' | 'tool_use' | 'server_tool_use' | (string & Record<never, never>);

/** A response `message` object (non-streaming, or the `message_start` payload). */
export interface AnthropicResponseMessage {
  id?: string;
  type?: 'message';
  role?: 'assistant';
  model?: string;
  content?: JsonObject[];
  stop_reason?: string | null;
  stop_sequence?: string | null;
  usage?: AnthropicUsage;
}

/** Usage as Anthropic reports it (`message_start.message.usage`, `message_delta.usage`). */
export interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  output_tokens_details?: { thinking_tokens?: number };
}

/** Stream event `type` values (WIRE.md §2.3). */
export type AnthropicStreamEventType =
  | 'message_start'
  | 'content_block_start'
  | 'content_block_delta'
  | 'content_block_stop'
  | 'message_delta'
  | 'message_stop'
  | 'ping'
  | 'error';

/** Error envelope: `{"type":"error","error":{"type":"invalid_request_error","message":…},"request_id":"req_…"}`. */
export interface AnthropicErrorEnvelope {
  type: 'error';
  error: { type: string; message: string };
  request_id?: string;
}
