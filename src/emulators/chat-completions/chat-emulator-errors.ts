import { createHash } from 'node:crypto';
import type { JsonValue } from '../../core/json.js';

/**
 * Exact provider error texts and envelopes (WIRE.md §1.2, §1.7, §1.8, §2.6, §4.5, §6). Each
 * function returns the status and the exact body bytes the provider answers with. Where WIRE.md
 * has no recorded text for a case, the comment says which provider wording was reused.
 */

/** A complete HTTP answer. */
export interface EmulatorAnswer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/** One key a provider refuses, with where it sits in the request. */
export interface KeyRejection {
  /** Index in the request's `messages` array (0-based, system messages included). */
  messageIndex: number;
  /** Path below the message, e.g. `['reasoning_content']` or `['tool_calls', 0, 'extra_content']`. */
  path: (string | number)[];
  /** The rejected key (last path element). */
  key: string;
  value: JsonValue | undefined;
}

function answer(status: number, body: unknown): EmulatorAnswer {
  return { status, body: JSON.stringify(body) };
}

/** Groq/Cerebras dotted path: `messages.1.tool_calls.0.extra_content`. */
function dottedPath(rejection: KeyRejection, withRole = false): string {
  const head = withRole ? [rejection.messageIndex, 'assistant'] : [rejection.messageIndex];
  return ['messages', ...head, ...rejection.path].join('.');
}

/** OpenAI/Fireworks bracketed path: `messages[1].tool_calls[0].extra_content`. */
function bracketPath(rejection: KeyRejection): string {
  let path = `messages[${rejection.messageIndex}]`;
  for (const part of rejection.path) path += typeof part === 'number' ? `[${part}]` : `.${part}`;
  return path;
}

/** OpenAI-style envelope (DeepSeek, Groq, Fireworks-compatible clients, local servers). */
export function openAiStyleError(status: number, message: string, type: string, code: string | null): EmulatorAnswer {
  return answer(status, { error: { message, type, param: null, code } });
}

// ---------------------------------------------------------------------------------------------
// DeepSeek (WIRE.md §1.2)

/** V4 must-echo 400: an assistant tool-call message came back without `reasoning_content`. */
export function deepseekMustEchoError(): EmulatorAnswer {
  return openAiStyleError(
    400,
    'The `reasoning_content` in the thinking mode must be passed back to the API.',
    'invalid_request_error',
    'invalid_request_error',
  );
}

/**
 * Unknown-field 400 for a DeepSeek instance told to reject a key. DeepSeek ignores extras in
 * reality, so no recorded text exists: OpenAI's `Unknown parameter: 'messages[1].x'.` wording is
 * used inside DeepSeek's envelope.
 */
export function deepseekUnknownFieldError(rejection: KeyRejection): EmulatorAnswer {
  return openAiStyleError(
    400,
    `Unknown parameter: '${bracketPath(rejection)}'.`,
    'invalid_request_error',
    'invalid_request_error',
  );
}

/** OpenAI's newer unknown-parameter 400 (local servers behind an OpenAI-compatible schema). */
export function openAiUnknownParameterError(rejection: KeyRejection): EmulatorAnswer {
  const path = bracketPath(rejection);
  return answer(400, {
    error: {
      message: `Unknown parameter: '${path}'.`,
      type: 'invalid_request_error',
      param: path,
      code: 'unknown_parameter',
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Strict schemas (WIRE.md §6)

/** Mistral 422: pydantic `extra_forbidden`, one detail entry per extra key. */
export function mistralExtraForbiddenError(rejections: readonly KeyRejection[]): EmulatorAnswer {
  return answer(422, {
    object: 'error',
    message: {
      detail: rejections.map((rejection) => ({
        type: 'extra_forbidden',
        loc: ['body', 'messages', rejection.messageIndex, 'assistant', ...rejection.path],
        msg: 'Extra inputs are not permitted',
        input: rejection.value ?? null,
      })),
    },
    type: 'invalid_request_error',
    param: null,
    code: null,
  });
}

/**
 * Groq 400 `is unsupported`. Message-level keys come wrapped in the role clause
 * (`'messages.1' : for 'role:assistant' the following must be satisfied[(...)]`); tool-call keys
 * are reported bare (`'messages.1.tool_calls.0' : property 'extra_content' is unsupported`).
 */
export function groqUnsupportedError(rejection: KeyRejection): EmulatorAnswer {
  const owner = dottedPath({ ...rejection, path: rejection.path.slice(0, -1) });
  const clause = `'${owner}' : property '${rejection.key}' is unsupported`;
  const message =
    rejection.path.length === 1
      ? `'${owner}' : for 'role:assistant' the following must be satisfied[(${clause})]`
      : clause;
  return answer(400, { error: { message, type: 'invalid_request_error' } });
}

/** Cerebras 400 `wrong_api_format` (`reasoning` itself is accepted, WIRE.md §1.6). */
export function cerebrasUnsupportedError(rejection: KeyRejection): EmulatorAnswer {
  const path = dottedPath(rejection, true);
  return answer(400, {
    message: `${path}: property '${path}' is unsupported`,
    type: 'invalid_request_error',
    param: 'validation_error',
    code: 'wrong_api_format',
  });
}

/** Fireworks 400 `Extra inputs are not permitted, field: 'messages[8].reasoning', value: '…'`. */
export function fireworksExtraInputsError(rejection: KeyRejection): EmulatorAnswer {
  const value = typeof rejection.value === 'string' ? rejection.value : JSON.stringify(rejection.value ?? null);
  return answer(400, {
    error: {
      object: 'error',
      type: 'invalid_request_error',
      message: `Extra inputs are not permitted, field: '${bracketPath(rejection)}', value: '${value}'`,
    },
  });
}

// ---------------------------------------------------------------------------------------------
// OpenRouter wrapping Anthropic (WIRE.md §1.7, §2.6)

/** A stable `req_…` id derived from the request bytes (recordings stay deterministic). */
export function anthropicRequestId(raw: string): string {
  return `req_${createHash('sha256').update(raw).digest('hex').slice(0, 24)}`;
}

function anthropicBody(message: string, requestId: string): string {
  return JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message }, request_id: requestId });
}

/** OpenRouter's upstream-error envelope: the upstream body as a string in `error.metadata.raw`. */
export function openRouterUpstreamError(status: number, raw: string, providerName: string): EmulatorAnswer {
  return answer(status, {
    error: { message: 'Provider returned error', code: status, metadata: { raw, provider_name: providerName } },
  });
}

/** §2.6b: a thinking block's signature does not match its text. */
export function openRouterInvalidSignatureError(turn: number, requestId: string): EmulatorAnswer {
  const message = `messages.${turn}.content.0: Invalid \`signature\` in \`thinking\` block`;
  return openRouterUpstreamError(400, anthropicBody(message, requestId), 'Anthropic');
}

/** §2.6a: a tool-call turn came back without its thinking block (`found` is the first block's type). */
export function openRouterMissingThinkingError(
  turn: number,
  found: 'tool_use' | 'text',
  requestId: string,
): EmulatorAnswer {
  const message =
    `messages.${turn}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${found}\`. ` +
    'When `thinking` is enabled, a final `assistant` message must start with a thinking block ' +
    '(preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking ' +
    'blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation ' +
    'at https://docs.claude.com/en/docs/build-with-claude/extended-thinking';
  return openRouterUpstreamError(400, anthropicBody(message, requestId), 'Anthropic');
}

/** §2.6e wording for a key an OpenRouter instance was told to reject (Anthropic upstream). */
export function openRouterExtraInputError(rejection: KeyRejection, requestId: string): EmulatorAnswer {
  const message = `${dottedPath(rejection)}: Extra inputs are not permitted`;
  return openRouterUpstreamError(400, anthropicBody(message, requestId), 'Anthropic');
}

// ---------------------------------------------------------------------------------------------
// GitHub Copilot (WIRE.md §1.8)

/** Copilot's envelope `{"error":{"message":…,"code":"invalid_request_body"}}`. */
export function copilotError(status: number, message: string, code = 'invalid_request_body'): EmulatorAnswer {
  return answer(status, { error: { message, code } });
}

/** Copilot relaying Vertex: the assistant tool-call turn lacks the latest `reasoning_opaque`. */
export function copilotMissingOpaqueError(functionName: string, position: number): EmulatorAnswer {
  return copilotError(
    400,
    `Unable to submit request because function call \`default_api:${functionName}\` in the ${position}. content block is missing a \`thought_signature\`.`,
  );
}

/** Copilot relaying Anthropic: an opaque came back altered or stale. */
export function copilotInvalidOpaqueError(): EmulatorAnswer {
  return copilotError(400, 'Invalid `signature` in `thinking` block');
}

/** A key a Copilot instance was told to reject (OpenAI's wording inside Copilot's envelope). */
export function copilotUnknownFieldError(rejection: KeyRejection): EmulatorAnswer {
  return copilotError(400, `Unknown parameter: '${bracketPath(rejection)}'.`);
}

// ---------------------------------------------------------------------------------------------
// Gemini OpenAI compatibility (WIRE.md §1.9, §4.5)

/**
 * Google's OpenAI-compatibility endpoint answers errors as a one-element JSON array of the
 * Google API error (`[{"error":{"code":400,"message":…,"status":"INVALID_ARGUMENT"}}]`).
 */
export function googleError(status: number, message: string, googleStatus: string): EmulatorAnswer {
  return answer(status, [{ error: { code: status, message, status: googleStatus } }]);
}

/** §4.5 Gemini API wording: the function call lacks its thought signature. */
export function geminiMissingSignatureError(functionName: string, position: number): EmulatorAnswer {
  return googleError(
    400,
    'Function call is missing a thought_signature in functionCall parts. This is required for tools to work ' +
      'correctly, and missing thought_signature may lead to degraded model performance. Additional data, ' +
      `function call \`default_api:${functionName}\` , position ${position}. Please refer to ` +
      'https://ai.google.dev/gemini-api/docs/thought-signatures for more details.',
    'INVALID_ARGUMENT',
  );
}

/** §4.5: a signature that is not one Google issued for this call ("Corrupted thought signature."). */
export function geminiCorruptedSignatureError(): EmulatorAnswer {
  return googleError(400, 'Corrupted thought signature.', 'INVALID_ARGUMENT');
}

/** Google's proto-JSON unknown-field wording, for a key a Gemini instance was told to reject. */
export function geminiUnknownFieldError(rejection: KeyRejection): EmulatorAnswer {
  const owner = bracketPath({ ...rejection, path: rejection.path.slice(0, -1) });
  return googleError(
    400,
    `Invalid JSON payload received. Unknown name "${rejection.key}" at '${owner}': Cannot find field.`,
    'INVALID_ARGUMENT',
  );
}
