/**
 * The wire APIs Hermes TS speaks. `chat_completions` covers every OpenAI-compatible route.
 * Values are the SPEC §1 `api_mode` names so histories and configs stay interchangeable.
 */
export type WireApi = 'chat_completions' | 'anthropic_messages' | 'bedrock_converse' | 'gemini' | 'codex_responses';

/** Every wire API, in a stable order (CLI validation, help text). */
export const WIRE_APIS: readonly WireApi[] = [
  'chat_completions',
  'anthropic_messages',
  'bedrock_converse',
  'gemini',
  'codex_responses',
];

/**
 * Where an assistant message came from (SPEC §23.2). Opaque carriers (signatures, encrypted
 * blobs) are only replayed to a route whose issuer matches this stamp.
 */
export interface OriginStamp {
  /** Wire API the response arrived on. */
  api: WireApi;
  /** Provider id, lower-cased. */
  provider: string;
  /** Hostname of the base URL ("" when the provider default was used without a URL). */
  host: string;
  /** Exact model id as sent. */
  model: string;
}
