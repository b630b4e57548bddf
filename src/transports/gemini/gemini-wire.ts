import type { JsonObject, JsonValue } from '../../core/json.js';

/**
 * Gemini `generateContent` / `streamGenerateContent` wire types (WIRE.md §4), shared by the
 * AI Studio (`generativelanguage.googleapis.com`) and Vertex AI (`*-aiplatform.googleapis.com`)
 * endpoints: both speak the same JSON. Only the fields Hermes reads or writes are typed; every
 * other field of a part is kept verbatim through `JsonObject`.
 */

// ---------------------------------------------------------------------------------------------
// Constants
// ---------------------------------------------------------------------------------------------

/** Default AI Studio base URL (the `/models/{model}:generateContent` path is appended). */
export const GEMINI_AI_STUDIO_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';

/**
 * The documented dummy signature (ai.google.dev/gemini-api/docs/thought-signatures) that makes
 * Gemini 3 skip validation of a function call whose real signature is unknown, e.g. history
 * that came from another model or issuer (WIRE.md §4.4).
 */
export const GEMINI_SKIP_SIGNATURE_SENTINEL = 'skip_thought_signature_validator';

/** Second documented dummy value with the same effect (WIRE.md §4.4); accepted, never sent by Hermes. */
export const GEMINI_SKIP_SIGNATURE_SENTINEL_ALTERNATE = 'context_engineering_is_the_way_to_go';

// ---------------------------------------------------------------------------------------------
// Request
// ---------------------------------------------------------------------------------------------

/** A `functionCall` part body. `id` is sent for Gemini ≥ 3 (SPEC §11). */
export interface GeminiFunctionCall {
  name?: string;
  args?: JsonObject;
  id?: string;
  /** Vertex `streamFunctionCallArguments`: more fragments follow (WIRE.md §4.3). */
  willContinue?: boolean;
  /** Vertex `streamFunctionCallArguments` fragments. */
  partialArgs?: GeminiPartialArgument[];
}

/** One Vertex streamed argument fragment, addressed by a JSONPath like `$.recipe.steps[0]`. */
export interface GeminiPartialArgument {
  jsonPath: string;
  stringValue?: string;
  numberValue?: number;
  boolValue?: boolean;
  nullValue?: JsonValue;
  willContinue?: boolean;
}

/** A `functionResponse` part body (a tool result, sent in a `user` content). */
export interface GeminiFunctionResponse {
  name: string;
  response: JsonObject;
  id?: string;
}

/** One part of a content. `thoughtSignature` is a sibling of `text` / `functionCall` (WIRE.md §4.2). */
export interface GeminiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: GeminiFunctionCall;
  functionResponse?: GeminiFunctionResponse;
  [otherField: string]: JsonValue | undefined | GeminiFunctionCall | GeminiFunctionResponse;
}

/** A conversation content: `user` (also tool results) or `model`. */
export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

/** `generationConfig.thinkingConfig` (WIRE.md §4.1): budget for 2.5, level for Gemini 3. */
export interface GeminiThinkingConfig {
  includeThoughts: boolean;
  thinkingBudget?: number;
  thinkingLevel?: 'minimal' | 'low' | 'medium' | 'high';
}

/** The request body Hermes sends. */
export interface GeminiRequestBody {
  contents: GeminiContent[];
  systemInstruction?: { parts: { text: string }[] };
  tools?: { functionDeclarations: { name: string; description: string; parametersJsonSchema: JsonObject }[] }[];
  generationConfig?: { thinkingConfig?: GeminiThinkingConfig; maxOutputTokens?: number };
}

// ---------------------------------------------------------------------------------------------
// Response
// ---------------------------------------------------------------------------------------------

/** `usageMetadata` of a response or stream chunk. */
export interface GeminiUsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  cachedContentTokenCount?: number;
  totalTokenCount?: number;
}

/** One candidate; Hermes reads candidate 0 only. */
export interface GeminiCandidate {
  content?: { role?: string; parts?: GeminiPart[] };
  finishReason?: string;
  index?: number;
}

/** A non-streaming response, or one SSE chunk of `streamGenerateContent?alt=sse`. */
export interface GeminiResponse {
  candidates?: GeminiCandidate[];
  usageMetadata?: GeminiUsageMetadata;
  promptFeedback?: { blockReason?: string };
  modelVersion?: string;
  responseId?: string;
  /** A Google error envelope delivered inside a stream. */
  error?: GeminiErrorDetail;
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/** The Google error envelope body: `{"error": {code, message, status}}` (WIRE.md §4.5). */
export interface GeminiErrorDetail {
  code?: number;
  message?: string;
  status?: string;
  details?: JsonValue[];
}
