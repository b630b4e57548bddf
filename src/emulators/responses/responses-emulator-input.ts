import { isJsonObject } from '../../core/json.js';
import type { JsonObject } from '../../core/json.js';
import { openPayload, sealPayload } from '../shared/emulator-sealing.js';
import { isSealedIntact } from '../shared/scripted-model.js';
import type { ScriptMessage } from '../shared/scripted-model.js';

/**
 * Request-side rules of the Responses emulator: the sealed `encrypted_content` blob (bound to an
 * issuer, so a second emulator instance acts as another deployment) and the validation of
 * `input` with the exact errors of WIRE.md §5.5.
 */

// ---------------------------------------------------------------------------------------------
// Encrypted content
// ---------------------------------------------------------------------------------------------

/** What the emulator seals inside a reasoning item's `encrypted_content`. */
export interface ReasoningBlob {
  /** The reasoning item id it was minted for. */
  id: string;
  /** The readable reasoning (continuity probe: the scripted model re-checks its nonce). */
  text: string;
  /**
   * What must follow the item on replay: a function call's `call_id`, `message`, or
   * {@link ANY_FOLLOWER} (a reasoning-only answer: whatever its continuation produced).
   */
  next: string;
  /** True for the provisional copy sent in `output_item.added`, which never verifies. */
  provisional: boolean;
}

/** `next` of a reasoning-only answer's blob (SPEC §24.6): a message or any function call may follow. */
export const ANY_FOLLOWER = '*';

/** Fernet-looking prefix real OpenAI blobs start with (`gAAAAA…`). */
const BLOB_PREFIX = 'gAAAAAB';
const REASONING_PURPOSE = 'responses-reasoning';
const COMPACTION_PURPOSE = 'responses-compaction';

function issuerSecret(issuer: string): string {
  return `hermes-responses-emulator|${issuer}`;
}

/** Seals a reasoning blob for `issuer`. */
export function sealReasoningBlob(issuer: string, blob: ReasoningBlob): string {
  return BLOB_PREFIX + sealPayload(REASONING_PURPOSE, blob, issuerSecret(issuer));
}

/** Opens a reasoning blob minted by `issuer`; undefined when altered, provisional, or foreign. */
export function openReasoningBlob(issuer: string, encrypted: string): ReasoningBlob | undefined {
  if (!encrypted.startsWith(BLOB_PREFIX)) return undefined;
  const payload = openPayload(REASONING_PURPOSE, encrypted.slice(BLOB_PREFIX.length), issuerSecret(issuer));
  if (!isJsonObject(payload) || payload['provisional'] !== false) return undefined;
  const { id, text, next } = payload;
  if (typeof id !== 'string' || typeof text !== 'string' || typeof next !== 'string') return undefined;
  return { id, text, next, provisional: false };
}

/** Seals a compaction checkpoint for `issuer` (opaque summary of earlier turns). */
export function sealCompactionBlob(issuer: string, summary: string): string {
  return BLOB_PREFIX + sealPayload(COMPACTION_PURPOSE, { summary }, issuerSecret(issuer));
}

function compactionVerifies(issuer: string, encrypted: string): boolean {
  if (!encrypted.startsWith(BLOB_PREFIX)) return false;
  return openPayload(COMPACTION_PURPOSE, encrypted.slice(BLOB_PREFIX.length), issuerSecret(issuer)) !== undefined;
}

// ---------------------------------------------------------------------------------------------
// Exact errors (WIRE.md §5.5)
// ---------------------------------------------------------------------------------------------

/** An error answer: status plus the provider's envelope. */
export interface ResponsesEmulatorError {
  status: number;
  body: { error: { message: string; type: string; param: string | null; code: string | null } };
}

function invalidRequest(
  status: number,
  message: string,
  param: string | null,
  code: string | null,
): ResponsesEmulatorError {
  return { status, body: { error: { message, type: 'invalid_request_error', param, code } } };
}

/** `gAAA...DQ==`: how OpenAI abbreviates a blob in its error text. */
function abbreviate(encrypted: string): string {
  return encrypted.length <= 8 ? encrypted : `${encrypted.slice(0, 4)}...${encrypted.slice(-4)}`;
}

/** 404 for a reasoning id sent without its encrypted content under `store: false`. */
export function itemNotFoundError(id: string): ResponsesEmulatorError {
  return invalidRequest(
    404,
    `Item with id '${id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
    'input',
    null,
  );
}

/** 400 for a blob that was altered, provisional, or minted by another issuer. */
export function invalidEncryptedContentError(encrypted: string): ResponsesEmulatorError {
  return invalidRequest(
    400,
    `The encrypted content ${abbreviate(encrypted)} could not be verified.`,
    null,
    'invalid_encrypted_content',
  );
}

/** 400 for a reasoning item not followed by the item it preceded. */
export function missingFollowingItemError(id: string): ResponsesEmulatorError {
  return invalidRequest(
    400,
    `Item '${id}' of type 'reasoning' was provided without its required following item.`,
    'input',
    null,
  );
}

/**
 * 400 for a key the input schema does not have, in OpenAI's words (WIRE.md §5.5, §6):
 * `Unknown parameter: 'input[3].status'.` with `code: "unknown_parameter"`.
 */
export function unknownParameterError(path: string): ResponsesEmulatorError {
  return invalidRequest(400, `Unknown parameter: '${path}'.`, path, 'unknown_parameter');
}

/** The keys a `reasoning` input item may carry (WIRE.md §5.4); `status` is output-only (SPEC §24.4). */
const REASONING_INPUT_KEYS = new Set(['type', 'id', 'encrypted_content', 'summary', 'content']);

/**
 * The first output-only key found on an input item, as its `input[i].key` path, else undefined
 * (SPEC §24.4): a reasoning item is a closed schema (so `status`, `response_id` and private `_…`
 * keys are refused), and `response_id` belongs to no input item. `status` stays accepted on
 * message and function-call items, whose input schemas have it.
 */
function outputOnlyKeyPath(input: readonly unknown[]): string | undefined {
  for (const [index, item] of input.entries()) {
    if (!isJsonObject(item)) continue;
    const keys = Object.keys(item);
    const unknown =
      item['type'] === 'reasoning'
        ? keys.find((key) => !REASONING_INPUT_KEYS.has(key))
        : keys.find((key) => key === 'response_id');
    if (unknown !== undefined) return `input[${index}].${unknown}`;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Input validation → script messages
// ---------------------------------------------------------------------------------------------

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isJsonObject)
    .map((part) => (typeof part['text'] === 'string' ? part['text'] : ''))
    .join('');
}

function isAssistantMessage(item: JsonObject): boolean {
  return item['role'] === 'assistant' && (item['type'] === undefined || item['type'] === 'message');
}

/**
 * The reasoning of a turn that carries several blobs: a turn continued after a reasoning-only
 * answer (SPEC §24.6) replays each answer's item. Each blob is sealed on its own, so the turn
 * stays intact (the last sealed text) when every blob is; otherwise the texts are joined, which
 * the continuity probe reports as altered.
 */
function joinReasoning(earlier: string | undefined, text: string): string {
  if (earlier === undefined) return text;
  return isSealedIntact(earlier) && isSealedIntact(text) ? text : `${earlier}\n\n${text}`;
}

/** Does `item` satisfy a blob's `next` (the call it preceded, or the message)? */
function followsCorrectly(item: JsonObject | undefined, next: string): boolean {
  if (item === undefined) return false;
  if (next === ANY_FOLLOWER) return isAssistantMessage(item) || item['type'] === 'function_call';
  if (next === 'message') return isAssistantMessage(item);
  return item['type'] === 'function_call' && item['call_id'] === next;
}

/**
 * Validates `input` as OpenAI does for stateless replay and translates it for the scripted
 * model. Each assistant turn's `reasoning` is the text sealed in its verified blobs, so the
 * scripted answer reports whether reasoning came back intact.
 */
export function scriptMessagesFromInput(input: unknown, issuer: string): ScriptMessage[] | ResponsesEmulatorError {
  if (typeof input === 'string') return [{ role: 'user', text: input }];
  if (!Array.isArray(input))
    return invalidRequest(400, "Missing required parameter: 'input'.", 'input', 'missing_required_parameter');
  const outputOnly = outputOnlyKeyPath(input);
  if (outputOnly !== undefined) return unknownParameterError(outputOnly);
  const items = input.filter(isJsonObject);
  const messages: ScriptMessage[] = [];
  const calls = new Set<string>();
  let assistant: ScriptMessage | undefined;
  const currentAssistant = (): ScriptMessage => {
    if (assistant === undefined) {
      assistant = { role: 'assistant', text: '' };
      messages.push(assistant);
    }
    return assistant;
  };

  for (let index = 0; index < items.length; index += 1) {
    const item = items[index] as JsonObject;
    if (item['type'] === 'reasoning') {
      const encrypted = item['encrypted_content'];
      if (typeof encrypted !== 'string' || encrypted === '') {
        if (typeof item['id'] === 'string') return itemNotFoundError(item['id']);
        return invalidRequest(
          400,
          `Missing required parameter: 'input[${index}].encrypted_content'.`,
          `input[${index}].encrypted_content`,
          'missing_required_parameter',
        );
      }
      const blob = openReasoningBlob(issuer, encrypted);
      if (blob === undefined) return invalidEncryptedContentError(encrypted);
      const follower = items.slice(index + 1).find((candidate) => candidate['type'] !== 'reasoning');
      if (!followsCorrectly(follower, blob.next))
        return missingFollowingItemError(typeof item['id'] === 'string' ? item['id'] : blob.id);
      const turn = currentAssistant();
      turn.reasoning = joinReasoning(turn.reasoning, blob.text);
    } else if (item['type'] === 'compaction') {
      const encrypted = typeof item['encrypted_content'] === 'string' ? item['encrypted_content'] : '';
      if (!compactionVerifies(issuer, encrypted)) return invalidEncryptedContentError(encrypted);
    } else if (item['type'] === 'function_call') {
      const callId = typeof item['call_id'] === 'string' ? item['call_id'] : '';
      calls.add(callId);
      const turn = currentAssistant();
      turn.toolCalls = [
        ...(turn.toolCalls ?? []),
        {
          id: callId,
          name: typeof item['name'] === 'string' ? item['name'] : '',
          arguments: typeof item['arguments'] === 'string' ? item['arguments'] : '',
        },
      ];
    } else if (item['type'] === 'function_call_output') {
      const callId = typeof item['call_id'] === 'string' ? item['call_id'] : '';
      if (!calls.has(callId)) {
        return invalidRequest(
          400,
          `No tool call found for function call output with call_id ${callId}.`,
          'input',
          null,
        );
      }
      assistant = undefined;
      messages.push({
        role: 'tool',
        toolCallId: callId,
        text: typeof item['output'] === 'string' ? item['output'] : textOf(item['output']),
      });
    } else if (isAssistantMessage(item)) {
      const turn = currentAssistant();
      turn.text += textOf(item['content']);
    } else if (item['role'] === 'user' || item['role'] === 'system' || item['role'] === 'developer') {
      assistant = undefined;
      messages.push({ role: item['role'] === 'user' ? 'user' : 'system', text: textOf(item['content']) });
    }
  }
  return messages;
}

/**
 * The `compact_threshold` of a request's `context_management` (SPEC §24.7): undefined when the
 * request has none, a 400 when it is not a list of `{type: "compaction", compact_threshold}`.
 */
export function compactThresholdOf(value: unknown): number | undefined | ResponsesEmulatorError {
  if (value === undefined) return undefined;
  const entries = Array.isArray(value) ? value : [];
  const entry = entries.find((candidate) => isJsonObject(candidate) && candidate['type'] === 'compaction');
  const threshold = isJsonObject(entry) ? entry['compact_threshold'] : undefined;
  if (typeof threshold === 'number' && Number.isInteger(threshold) && threshold > 0) return threshold;
  return invalidRequest(
    400,
    "Invalid value for 'context_management': expected [{type: 'compaction', compact_threshold: <positive integer>}].",
    'context_management',
    'invalid_value',
  );
}
