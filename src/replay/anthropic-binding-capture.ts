/**
 * Capturing the binding context of an Anthropic answer's signed blocks (SPEC §26.4): each signed
 * block gets the model the request named and the digest of its prefix — the request exactly as
 * Hermes sent it, then the answer's own blocks before it — in the block's private `_binding` key.
 * The answer's earlier blocks are digested in the form they will be replayed in (the whitelist of
 * anthropic-replay-blocks.ts, `tool_use.input` from the stored call), so an unchanged history
 * replays with matching digests; a block type Hermes does not replay is digested as received, so
 * the blocks after it are known to be bound to a prefix Hermes can no longer send. Pure.
 */
import { isJsonObject, type JsonObject } from '../core/json.js';
import type { AssistantMessage } from '../core/message.js';
import {
  BLOCK_BINDING_KEY,
  isSignedThinkingBlock,
  PrefixDigest,
  systemDigest,
  unknownPrefix,
} from './anthropic-block-binding.js';
import { sanitizeBlock } from './anthropic-replay-blocks.js';
import { checksThinkingPrefix } from './anthropic-thinking-policy.js';

/** The stored tool calls' arguments, parsed, by call id (what replay sends as `tool_use.input`). */
function argumentsById(message: AssistantMessage): Map<string, JsonObject> {
  const parsed = new Map<string, JsonObject>();
  for (const call of message.tool_calls ?? []) {
    try {
      const value: unknown = JSON.parse(call.function.arguments);
      if (isJsonObject(value)) parsed.set(call.id, value);
    } catch {
      // Malformed arguments: replay falls back to the block's own input, and so does the digest.
    }
  }
  return parsed;
}

/** The digest after a whole request body (`system`, `tools`, every message). */
function digestOfBody(sent: JsonObject): PrefixDigest {
  const digest = PrefixDigest.start(sent['system'], sent['tools']);
  const messages = Array.isArray(sent['messages']) ? sent['messages'] : [];
  for (const wire of messages) if (isJsonObject(wire)) digest.message(String(wire['role']), wire['content']);
  return digest;
}

/** A block of the answer as it will be replayed (or as received when replay drops its type). */
function replayedForm(block: JsonObject, inputs: ReadonlyMap<string, JsonObject>): JsonObject {
  const clean = sanitizeBlock(block);
  if (!clean) return block;
  if (clean['type'] !== 'tool_use' || typeof clean['id'] !== 'string') return clean;
  return { ...clean, input: inputs.get(clean['id']) ?? (isJsonObject(clean['input']) ? clean['input'] : {}) };
}

/**
 * The answer with every signed sidecar block bound to `model` and to the prefix `sent` (the
 * request body Hermes sent: `system`, `tools`, `messages`) plus the answer's blocks before it.
 * `sentDigest`, when the encoder kept it, is the digest after `sent` (no second pass over the
 * body). An answer without signed blocks is returned as it is.
 */
export function bindAnswerBlocks(
  message: AssistantMessage,
  sent: JsonObject,
  model: string,
  sentDigest?: PrefixDigest,
): AssistantMessage {
  const blocks = message.anthropic_content_blocks;
  if (!blocks?.some(isSignedThinkingBlock)) return message;
  const digest = sentDigest?.copy() ?? digestOfBody(sent);
  digest.header('assistant');
  const inputs = argumentsById(message);
  const bound = blocks.map((block) => {
    const kept = isSignedThinkingBlock(block)
      ? { ...block, [BLOCK_BINDING_KEY]: { model, prefix: digest.hex() } }
      : block;
    digest.block(replayedForm(block, inputs));
    return kept;
  });
  return { ...message, anthropic_content_blocks: bound };
}

/**
 * The answer with every signed sidecar block bound to `model` and to the `system` of `sent` (the
 * request body Hermes sent), on a route whose model does not check the whole prefix
 * (`SystemBinding`). An answer without signed blocks is returned as it is.
 */
export function bindAnswerSystem(message: AssistantMessage, sent: JsonObject, model: string): AssistantMessage {
  if (!message.anthropic_content_blocks?.some(isSignedThinkingBlock)) return message;
  return withBinding(message, { model, system: systemDigest(sent['system']) });
}

/** `message` with `binding` kept on each of its signed sidecar blocks. */
function withBinding(message: AssistantMessage, binding: JsonObject): AssistantMessage {
  return {
    ...message,
    anthropic_content_blocks: (message.anthropic_content_blocks ?? []).map((block) =>
      isSignedThinkingBlock(block) ? { ...block, [BLOCK_BINDING_KEY]: binding } : block,
    ),
  };
}

/**
 * The message with every signed sidecar block bound to `model` and to a prefix Hermes never saw
 * (imported history: `source` names where it came from), when `model` checks the prefix. There such
 * a block is always left out, explained, because what another tool sent before it — its own system
 * prompt and tools — is not what Hermes sends (SPEC §26.4). Other models' blocks stay as they were.
 */
export function bindToUnknownPrefix(message: AssistantMessage, model: string, source: string): AssistantMessage {
  if (!checksThinkingPrefix(model) || !message.anthropic_content_blocks?.some(isSignedThinkingBlock)) return message;
  return withBinding(message, { model, prefix: unknownPrefix(source) });
}
