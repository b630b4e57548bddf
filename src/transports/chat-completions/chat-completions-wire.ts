import type { JsonObject, JsonValue } from '../../core/json.js';

/**
 * Wire types of the OpenAI-compatible `POST /chat/completions` API with every vendor extension
 * Hermes TS reads or replays (WIRE.md §1). Response-side types describe what MAY arrive: every
 * field is optional and nullable because vendors disagree (Snowflake sends `finish_reason: ""`,
 * Gemini sends tool-call `id: ""`, Z.ai omits `finish_reason` until the last chunk). Decoders
 * read them defensively; nothing here is trusted to be present.
 */

// ---------------------------------------------------------------------------------------------
// Request
// ---------------------------------------------------------------------------------------------

/** A tool call on an assistant message as sent back to the provider. */
export interface ChatCompletionsRequestToolCall {
  id: string;
  type: 'function';
  function: {
    name: string;
    arguments: string;
    /** Copilot's per-call Gemini signature (SPEC §7.2); only Copilot routes read it. */
    thought_signature?: string;
  };
  /** Gemini OpenAI-compat `{google: {thought_signature}}` (WIRE.md §1.9). */
  extra_content?: JsonObject;
}

/** An assistant message on the wire, with the reasoning carriers a route may read (SPEC §1, §7.5). */
export interface ChatCompletionsRequestAssistantMessage {
  role: 'assistant';
  content: string | null;
  tool_calls?: ChatCompletionsRequestToolCall[];
  reasoning_content?: string;
  reasoning?: string;
  reasoning_details?: ChatCompletionsReasoningDetail[];
  /** Copilot (WIRE.md §1.8): sent only together with `reasoning_opaque`. */
  reasoning_text?: string;
  reasoning_opaque?: string;
  /** Gemini message-level signature lifted from the private record (SPEC §7.4). */
  extra_content?: JsonObject;
}

/** Any message in a request body. Non-assistant roles are passed as plain JSON. */
export type ChatCompletionsRequestMessage = ChatCompletionsRequestAssistantMessage | JsonObject;

/** A request body. Vendor keep-thinking flags (SPEC §8) ride along as extra keys. */
export interface ChatCompletionsRequestBody {
  model: string;
  messages: ChatCompletionsRequestMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: { type: 'function'; function: { name: string; description?: string; parameters?: JsonObject } }[];
  max_tokens?: number;
  max_completion_tokens?: number;
  reasoning_effort?: string;
  /** OpenRouter (WIRE.md §1.7). */
  reasoning?: JsonObject;
  /** DeepSeek / Z.ai / Kimi (WIRE.md §1.2, §1.3, §1.5). */
  thinking?: JsonObject;
  [vendorKey: string]: unknown;
}

// ---------------------------------------------------------------------------------------------
// Reasoning carriers (shared by responses and chunks)
// ---------------------------------------------------------------------------------------------

/**
 * One OpenRouter-style `reasoning_details` entry (WIRE.md §1.7), also used by Snowflake Cortex.
 * In streams each chunk carries fragments of the entry at the same `index`.
 */
export interface ChatCompletionsReasoningDetail {
  type?: 'reasoning.text' | 'reasoning.summary' | 'reasoning.encrypted' | 'reasoning.server_tool_call' | string;
  text?: string | null;
  summary?: string | null;
  /** Anthropic signature (`reasoning.text`); arrives in a final fragment with empty text. */
  signature?: string | null;
  /** Encrypted blob (`reasoning.encrypted`); arrives whole in one chunk. */
  data?: string | null;
  id?: string | null;
  format?: string | null;
  index?: number;
  [key: string]: JsonValue | undefined;
}

/** Gemini signature container: `{google: {thought_signature, thought?}}` or the flat form. */
export interface ChatCompletionsExtraContent {
  google?: { thought_signature?: string; thought?: boolean; [key: string]: JsonValue | undefined };
  thought_signature?: string;
  [key: string]: JsonValue | undefined;
}

/** Every reasoning-bearing key a message or delta may carry (WIRE.md §1.1 matrix). */
export interface ChatCompletionsReasoningFields {
  /** DeepSeek, Kimi, Z.ai, DashScope, xAI, Azure Foundry, llama.cpp, SGLang, HF router. */
  reasoning_content?: string | null;
  /** OpenRouter, Ollama `/v1`, vLLM ≥ 0.11, Groq, Cerebras, Together. */
  reasoning?: string | null;
  /** GitHub Copilot readable reasoning (WIRE.md §1.8). */
  reasoning_text?: string | null;
  /** GitHub Copilot opaque blob; a fresh one precedes each tool call. */
  reasoning_opaque?: string | null;
  reasoning_details?: ChatCompletionsReasoningDetail[] | null;
  /** Gemini OpenAI-compat message-level signature (fixture `gemini-openai-compat`). */
  extra_content?: ChatCompletionsExtraContent | null;
  /** Gemini OpenAI-compat legacy top-level signature, seen beside `extra_content`. */
  thought_signature?: string | null;
}

// ---------------------------------------------------------------------------------------------
// Non-streaming response
// ---------------------------------------------------------------------------------------------

/** A tool call in a response message. */
export interface ChatCompletionsResponseToolCall {
  id?: string | null;
  type?: string;
  index?: number;
  function?: { name?: string | null; arguments?: string | null; thought_signature?: string | null };
  extra_content?: JsonObject | null;
}

/** `choices[].message`. */
export interface ChatCompletionsResponseMessage extends ChatCompletionsReasoningFields {
  role?: string;
  content?: string | null;
  tool_calls?: ChatCompletionsResponseToolCall[] | null;
  refusal?: string | null;
}

/** Token usage (OpenAI shape plus vendor details). */
export interface ChatCompletionsUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number; [key: string]: JsonValue | undefined } | null;
  completion_tokens_details?: { reasoning_tokens?: number; [key: string]: JsonValue | undefined } | null;
  /** DeepSeek's own cache counters. */
  prompt_cache_hit_tokens?: number;
  prompt_cache_miss_tokens?: number;
  [key: string]: JsonValue | undefined;
}

/**
 * An error object: OpenAI `{message, type, param, code}`, OpenRouter
 * `{message, code, metadata: {raw, provider_name}}` (WIRE.md §1.7).
 */
export interface ChatCompletionsErrorObject {
  message?: string | JsonValue;
  type?: string | null;
  code?: string | number | null;
  param?: string | null;
  metadata?: { raw?: JsonValue; provider_name?: string; [key: string]: JsonValue | undefined } | null;
  [key: string]: JsonValue | undefined;
}

/** A `chat.completion` object. */
export interface ChatCompletionsResponse {
  id?: string;
  object?: string;
  model?: string;
  choices?: {
    index?: number;
    message?: ChatCompletionsResponseMessage;
    finish_reason?: string | null;
    /** OpenRouter: the upstream provider's own stop reason. */
    native_finish_reason?: string | null;
  }[];
  usage?: ChatCompletionsUsage | null;
  error?: ChatCompletionsErrorObject;
}

// ---------------------------------------------------------------------------------------------
// Streaming chunk
// ---------------------------------------------------------------------------------------------

/** A tool-call fragment; `index` groups fragments of one call. */
export interface ChatCompletionsToolCallDelta {
  index?: number;
  id?: string | null;
  type?: string;
  function?: { name?: string | null; arguments?: string | null; thought_signature?: string | null };
  extra_content?: JsonObject | null;
}

/** `choices[].delta`. */
export interface ChatCompletionsDelta extends ChatCompletionsReasoningFields {
  role?: string;
  content?: string | null;
  tool_calls?: ChatCompletionsToolCallDelta[] | null;
  refusal?: string | null;
}

/**
 * A `chat.completion.chunk`. OpenRouter mid-stream failures add a top-level `error` (and may
 * set `finish_reason: "error"`), e.g. `{"error":{"code":400,"message":"Token limit reached"}}`
 * (fixture `openrouter/pydantic-stream-error`).
 */
export interface ChatCompletionsChunk {
  id?: string;
  object?: string;
  model?: string;
  choices?: {
    index?: number;
    delta?: ChatCompletionsDelta | null;
    finish_reason?: string | null;
    native_finish_reason?: string | null;
  }[];
  usage?: ChatCompletionsUsage | null;
  error?: ChatCompletionsErrorObject;
}
