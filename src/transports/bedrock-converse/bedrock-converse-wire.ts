import type { JsonObject, JsonValue } from '../../core/json.js';

/**
 * Bedrock Converse / ConverseStream wire types, in the REST JSON shape (WIRE.md §3): bytes
 * fields (`redactedContent`) are base64 strings here, exactly as they travel in JSON. The SDK
 * shape (Uint8Array) only exists inside the transport file.
 */

/** `reasoningContent.reasoningText` (WIRE.md §3.2). `signature` only on signed (Claude) models. */
export interface BedrockReasoningText {
  text: string;
  signature?: string;
}

/** A reasoning block: readable signed/unsigned text, or an opaque redacted blob (base64). */
export type BedrockReasoningContent = { reasoningText: BedrockReasoningText } | { redactedContent: string };

/** A tool call block. `input` is a JSON document. */
export interface BedrockToolUse {
  toolUseId: string;
  name: string;
  input: JsonValue;
}

/** A tool result block (user turn). */
export interface BedrockToolResult {
  toolUseId: string;
  content: { text: string }[];
  status: 'success' | 'error';
}

/** One content block of a message, as the wire carries it. */
export type BedrockContentBlock =
  | { text: string }
  | { reasoningContent: BedrockReasoningContent }
  | { toolUse: BedrockToolUse }
  | { toolResult: BedrockToolResult };

/** A Converse message. */
export interface BedrockMessage {
  role: 'user' | 'assistant';
  content: JsonObject[];
}

/** `toolConfig.tools[]` entry (key order as the SDK serialises it: name, inputSchema, description). */
export interface BedrockToolSpec {
  toolSpec: { name: string; inputSchema: { json: JsonObject }; description?: string };
}

/**
 * The Converse request body. Key order is the SDK's serialisation order (messages, system,
 * inferenceConfig, toolConfig, additionalModelRequestFields) so `prepare()` shows the bytes the
 * SDK sends.
 */
export interface BedrockConverseRequestBody {
  messages: BedrockMessage[];
  system?: { text: string }[];
  inferenceConfig?: { maxTokens?: number };
  toolConfig?: { tools: BedrockToolSpec[] };
  additionalModelRequestFields?: JsonObject;
}

/** Token usage as Converse reports it (`usage` / `metadata.usage`). */
export interface BedrockTokenUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
}

/** The non-streaming Converse response (JSON). */
export interface BedrockConverseResponseBody {
  output?: { message?: { role?: string; content?: JsonObject[] } };
  stopReason?: string;
  usage?: BedrockTokenUsage;
  metrics?: { latencyMs?: number };
}

/**
 * ConverseStream event names (`:event-type` header, WIRE.md §3.3). Exceptions arrive with
 * `:message-type: exception` and their own `:exception-type`.
 */
export type BedrockStreamEventType =
  'messageStart' | 'contentBlockStart' | 'contentBlockDelta' | 'contentBlockStop' | 'messageStop' | 'metadata';

/** One decoded stream event: its type and JSON payload (padding field `p` included, ignored). */
export interface BedrockStreamEvent {
  type: string;
  payload: JsonObject;
}

/** Default Converse endpoint for a region. */
export function bedrockRuntimeBaseUrl(region: string): string {
  return `https://bedrock-runtime.${region}.amazonaws.com`;
}
