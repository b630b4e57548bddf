import type { JsonObject } from '../../core/json.js';

/**
 * Wire types of the OpenAI Responses API (`POST /v1/responses`), as spoken by OpenAI, Azure
 * OpenAI, xAI, OpenRouter `/responses`, DeepSeek `/responses` and GitHub Copilot `/responses`
 * (WIRE.md §5). Only the fields Hermes TS reads or writes are typed; everything else is kept
 * verbatim as {@link JsonObject}.
 */

// ---------------------------------------------------------------------------------------------
// Request
// ---------------------------------------------------------------------------------------------

/** A summary part of a reasoning item (WIRE.md §5.2). */
export interface ResponsesSummaryPart extends JsonObject {
  type: 'summary_text';
  text: string;
}

/**
 * A reasoning item as replayed in `input` (WIRE.md §5.4): input-schema keys only, never the
 * output-only `status` / `response_id` (SPEC §24.4). With `store: false` it carries no `id`
 * ("Items are not persisted when `store` is set to false", WIRE.md §5.5, 404), except a
 * same-issuer `rs_` id on Azure OpenAI / Foundry, which resolves it (SPEC §24.5).
 */
export interface ResponsesReasoningInputItem extends JsonObject {
  type: 'reasoning';
  id?: string;
  encrypted_content: string;
  summary: JsonObject[];
  content?: JsonObject[];
}

/** A native compaction checkpoint (SPEC §12): opaque, replayed verbatim. */
export interface ResponsesCompactionInputItem extends JsonObject {
  type: 'compaction';
  encrypted_content: string;
}

/** An `output_text` content part of an assistant message item. */
export interface ResponsesOutputTextPart extends JsonObject {
  type: 'output_text';
  text: string;
}

/** An assistant message item replayed in `input` (`id` and `phase` from `codex_message_items`). */
export interface ResponsesAssistantMessageInputItem extends JsonObject {
  type: 'message';
  role: 'assistant';
  content: ResponsesOutputTextPart[];
  id?: string;
  phase?: string;
}

/** A user / system message in `input` (the "easy input message" form). */
export interface ResponsesEasyInputMessage extends JsonObject {
  role: 'user' | 'system' | 'developer';
  content: string | JsonObject[];
}

/** A function call replayed in `input`. */
export interface ResponsesFunctionCallInputItem extends JsonObject {
  type: 'function_call';
  call_id: string;
  name: string;
  arguments: string;
}

/** A tool result in `input`. */
export interface ResponsesFunctionCallOutputItem extends JsonObject {
  type: 'function_call_output';
  call_id: string;
  output: string;
}

/** Any item Hermes TS puts in `input`. */
export type ResponsesInputItem =
  | ResponsesEasyInputMessage
  | ResponsesAssistantMessageInputItem
  | ResponsesReasoningInputItem
  | ResponsesCompactionInputItem
  | ResponsesFunctionCallInputItem
  | ResponsesFunctionCallOutputItem;

/** A function tool in Responses shape (flat, unlike chat-completions' `{function:{…}}`). */
export interface ResponsesFunctionTool extends JsonObject {
  type: 'function';
  name: string;
  description: string;
  parameters: JsonObject;
}

/** `reasoning` request parameter; `summary: "auto"` asks for readable summaries (WIRE.md §5.1). */
export interface ResponsesReasoningParameter extends JsonObject {
  effort?: string;
  summary: 'auto' | 'concise' | 'detailed';
}

/** The request body Hermes TS sends (stateless: `store: false`). */
export interface ResponsesRequestBody extends JsonObject {
  model: string;
  /** The system prompt (the session's leading system messages). */
  instructions?: string;
  input: ResponsesInputItem[];
  tools?: ResponsesFunctionTool[];
  reasoning?: ResponsesReasoningParameter;
  include?: string[];
  store: false;
  stream: boolean;
  max_output_tokens?: number;
  /** Native server-side compaction (SPEC §24.7), only on eligible routes. */
  context_management?: ResponsesContextManagement[];
}

/** One `context_management` entry: compact once the input passes `compact_threshold` tokens (SPEC §24.7). */
export interface ResponsesContextManagement extends JsonObject {
  type: 'compaction';
  compact_threshold: number;
}

/** The `compact_threshold` sent when no local compaction trigger is set (SPEC §24.7). */
export const DEFAULT_COMPACT_THRESHOLD = 200_000;

// ---------------------------------------------------------------------------------------------
// Response
// ---------------------------------------------------------------------------------------------

/** An output item (reasoning, message, function_call, compaction, or anything newer). */
export interface ResponsesOutputItem extends JsonObject {
  type: string;
  id?: string;
}

/** `usage` of a response. */
export interface ResponsesUsage extends JsonObject {
  input_tokens?: number;
  output_tokens?: number;
  total_tokens?: number;
  input_tokens_details?: { cached_tokens?: number } & JsonObject;
  output_tokens_details?: { reasoning_tokens?: number } & JsonObject;
}

/** A response object (non-streaming body, and inside `response.created` / `.completed`). */
export interface ResponsesResponse extends JsonObject {
  id?: string;
  status?: string;
  model?: string;
  output?: ResponsesOutputItem[];
  usage?: ResponsesUsage | null;
  incomplete_details?: { reason?: string } & JsonObject;
  error?: JsonObject | null;
}

/** One streamed event (the SSE `data:` JSON). `type` names it (WIRE.md §5.3). */
export interface ResponsesStreamEvent extends JsonObject {
  type: string;
  output_index?: number;
  summary_index?: number;
  item?: ResponsesOutputItem;
  delta?: string;
  response?: ResponsesResponse;
}

/** The error envelope: `{"error":{"message","type","param","code"}}` (WIRE.md §5.5). */
export interface ResponsesErrorEnvelope extends JsonObject {
  error: {
    message: string;
    type: string;
    param: string | null;
    code: string | null;
  };
}

/** The `include` value that makes reasoning items carry `encrypted_content` (WIRE.md §5.1). */
export const ENCRYPTED_REASONING_INCLUDE = 'reasoning.encrypted_content';
