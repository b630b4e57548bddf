import { ApiError, apiErrorFromStatus, HermesError, StreamError } from '../../core/errors.js';
import { isJsonObject, type JsonValue } from '../../core/json.js';
import { redactSecret, requestIdFromHeaders, trimBody } from '../shared/transport-http.js';
import type { HeaderLookup } from '../shared/transport-http-client.js';
import { parseRetryAfterMs } from '../shared/transport-retry.js';

/**
 * Maps chat-completions failures to typed errors (STYLE rule 5 (docs/architecture.md)): HTTP error responses,
 * error bodies in a 200 response, and mid-stream error chunks. OpenRouter wraps the upstream
 * provider's answer as `{"error":{"message":"Provider returned error","code":400,
 * "metadata":{"raw":"<upstream body>","provider_name":"…"}}}` (WIRE.md §1.7); the upstream text
 * is what a person (and the unknown-field classifier, SPEC §13) needs, so it is unwrapped.
 */

/** The text a provider error carries, plus the body worth keeping. */
export interface ProviderErrorText {
  /** One readable line: the provider's own message. */
  message: string;
  /** The body to keep on the error: OpenRouter's `metadata.raw` when present, else the whole body. */
  body: string;
  /** OpenRouter `metadata.provider_name` (the upstream that answered), when given. */
  upstream?: string;
}

function stringify(value: JsonValue | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The provider's own message inside a parsed error body, in the shapes WIRE.md §1 and §6 list. */
function messageInside(json: JsonValue): string | undefined {
  if (typeof json === 'string') return json.trim() === '' ? undefined : json;
  if (!isJsonObject(json)) return undefined;
  const error = json['error'];
  if (typeof error === 'string' && error.trim() !== '') return error;
  if (isJsonObject(error)) {
    const inner = stringify(error['message']);
    if (inner !== undefined && inner.trim() !== '') return inner;
  }
  // Cerebras `{"message":"messages.2.assistant.reasoning_content: …","code":"wrong_api_format"}`,
  // Mistral `{"object":"error","message":{"detail":[…extra_forbidden…]}}`, huma `{"detail":…}`.
  return stringify(json['message']) ?? stringify(json['detail']) ?? stringify(json['title']);
}

function parseJson(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

/**
 * Reads an error body (raw text or parsed JSON): unwraps OpenRouter's `metadata.raw` and finds
 * the provider's message. Falls back to the trimmed text itself.
 */
export function providerErrorText(body: string | JsonValue): ProviderErrorText {
  const json = typeof body === 'string' ? parseJson(body) : body;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const error = isJsonObject(json) ? json['error'] : undefined;
  const metadata = isJsonObject(error) ? error['metadata'] : undefined;
  if (isJsonObject(metadata)) {
    const raw = stringify(metadata['raw']);
    if (raw !== undefined && raw.trim() !== '') {
      const upstream = typeof metadata['provider_name'] === 'string' ? metadata['provider_name'] : undefined;
      const message = messageInside(parseJson(raw) ?? raw) ?? raw;
      return upstream === undefined ? { message, body: raw } : { message, body: raw, upstream };
    }
  }
  const message = json === undefined ? text : (messageInside(json) ?? text);
  return { message, body: text };
}

/** What to do next, per status class. */
function nextStep(status: number): string {
  if (status === 401 || status === 403) return ' Check the API key for this provider.';
  if (status === 404) return ' Check the model id and the base URL.';
  if (status === 429) return ' The provider is rate limiting; wait and retry, or lower the request rate.';
  if (status >= 500) return ' The provider failed; retry later.';
  return '';
}

/** Inputs of {@link apiErrorFromResponse}. */
export interface HttpErrorInput {
  status: number;
  headers: HeaderLookup;
  bodyText: string;
  /** Provider id for the message (`openrouter 400: …`). */
  provider: string;
  /** The API key of the request, redacted from anything kept. */
  apiKey?: string | undefined;
  /** Attempts made, mentioned when retries gave up. */
  attempts?: number;
}

/**
 * The typed error for a non-2xx response: the right {@link ApiError} subclass with status,
 * trimmed body (OpenRouter `metadata.raw` unwrapped), request id, `retry-after`, and a message
 * like `openrouter 400: messages.1.content.0: Invalid \`signature\` in \`thinking\` block`.
 */
export function apiErrorFromResponse(input: HttpErrorInput): ApiError {
  const safeText = redactSecret(input.bodyText, input.apiKey);
  const extracted = providerErrorText(safeText);
  const upstream = extracted.upstream === undefined ? '' : ` (upstream ${extracted.upstream})`;
  const shown = trimBody(extracted.message.replace(/\s+/g, ' '), 500) || '(empty body)';
  const gaveUp = input.attempts !== undefined && input.attempts > 1 ? ` Gave up after ${input.attempts} attempts.` : '';
  const stop = /[.!?]$/.test(shown) ? '' : '.';
  const message = `${input.provider} ${input.status}${upstream}: ${shown}${stop}${nextStep(input.status)}${gaveUp}`;
  return apiErrorFromStatus(message, {
    status: input.status,
    body: trimBody(extracted.body),
    requestId: requestIdFromHeaders(input.headers),
    retryAfterMs: parseRetryAfterMs(input.headers),
    provider: input.provider,
  });
}

/**
 * The terminal error for an `error` member in a chunk or a 200 body (OpenRouter mid-stream:
 * `{"error":{"code":400,"message":"Token limit reached"}}`). Retryable when the code says
 * rate limit or server failure.
 */
export function streamErrorFromChunkError(error: JsonValue, provider: string): StreamError {
  const extracted = providerErrorText({ error });
  const code = isJsonObject(error) ? error['code'] : undefined;
  const codeText = code === undefined || code === null ? '' : ` (code ${String(code)})`;
  const numeric = typeof code === 'number' ? code : Number(code);
  const retryable = numeric === 429 || (numeric >= 500 && numeric < 600);
  return new StreamError(`${provider} stream error${codeText}: ${trimBody(extracted.message, 500)}`, {
    body: trimBody(extracted.body),
    retryable,
  });
}

/**
 * The provider text of an error, for the unknown-field classifier (SPEC §13.1): the kept body
 * when there is one, else the message.
 */
export function errorBodyText(error: unknown): string {
  if (error instanceof ApiError) return error.body !== '' ? error.body : error.message;
  if (error instanceof StreamError) return error.body ?? error.message;
  if (error instanceof HermesError || error instanceof Error) return error.message;
  return String(error);
}
