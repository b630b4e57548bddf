/**
 * Anthropic on-demand compaction (beta `compact-2026-09-04`, docs/wire.md §2.7 "Server-side
 * compaction", SPEC §26.4): on a bound model the API writes the summary, returns it as one signed
 * `compaction` block, and accepts the swap in its prefix check, so the signed thinking of the
 * turns kept after the block stays valid. Hermes keeps the block, verbatim, in a private carrier
 * of the summary message it stores, and lifts it only on a route of the platform that issued it.
 * Pure.
 */
import { isJsonObject, type JsonObject } from '../core/json.js';
import type { Message } from '../core/message.js';
import { anthropicByteLength } from './anthropic-replay-blocks.js';
import { parseClaudeModel } from './replay-model-ids.js';
import type { CarrierDecision } from './replay-types.js';

/** The beta of on-demand compaction: on the compaction request and every request carrying a block. */
export const COMPACTION_BETA = 'compact-2026-09-04';

/** Private key of the summary message that holds a compaction block (never sent as such). */
export const ANTHROPIC_COMPACTION_KEY = '_anthropic_compaction';

/** What the summary message of an API-written compaction keeps. */
export interface AnthropicCompactionCarrier {
  /** The `compaction` block exactly as the API returned it (`type`, `content`, `signature`, …). */
  block: JsonObject;
  /** Endpoint class of the platform that issued it (SPEC §23.2): the block goes back only there. */
  endpointClass: string;
  /** The model the compaction request named. */
  model: string;
  /** {@link PrefixDigest} of `system` and `tools` alone on the compaction request. */
  prefixStart: string;
  /** Snapshot of the prefix digest after the summarised messages (anthropic-block-binding.ts). */
  prefixState: string;
}

/**
 * First version, per family, that Anthropic's compaction pages list for on-demand compaction:
 * Opus and Sonnet 4.6, Haiku 5.5, Fable and Mythos 5 (and `claude-mythos-preview`), and later
 * versions of those families.
 */
const COMPACTION_FROM: Readonly<Record<string, readonly [number, number]>> = {
  opus: [4, 6],
  sonnet: [4, 6],
  haiku: [5, 5],
  fable: [5, 0],
  mythos: [5, 0],
};

/** True when Anthropic's docs list the model for on-demand compaction. */
export function acceptsOnDemandCompaction(model: string): boolean {
  if (/^claude-mythos-preview(?:$|[-@])/.test(model)) return true;
  const parsed = parseClaudeModel(model);
  if (parsed.kind !== 'claude') return false;
  const floor = COMPACTION_FROM[parsed.version.family];
  if (!floor) return false;
  const { major, minor } = parsed.version;
  return major > floor[0] || (major === floor[0] && minor >= floor[1]);
}

/** True for a `compaction` content block. */
export function isCompactionBlock(block: unknown): block is JsonObject {
  return isJsonObject(block) && block['type'] === 'compaction';
}

/** The compaction carrier of a stored message, when it has a well-formed one. */
export function compactionCarrierOf(message: Message): AnthropicCompactionCarrier | undefined {
  if (message.role !== 'user') return undefined;
  const value = (message as unknown as JsonObject)[ANTHROPIC_COMPACTION_KEY];
  if (!isJsonObject(value) || !isCompactionBlock(value['block'])) return undefined;
  const { endpointClass, model, prefixStart, prefixState } = value;
  if (typeof endpointClass !== 'string' || typeof model !== 'string') return undefined;
  if (typeof prefixStart !== 'string' || typeof prefixState !== 'string') return undefined;
  return { block: value['block'], endpointClass, model, prefixStart, prefixState };
}

/** The carrier as stored on the summary message. */
export function compactionCarrierJson(carrier: AnthropicCompactionCarrier): JsonObject {
  return {
    block: carrier.block,
    endpointClass: carrier.endpointClass,
    model: carrier.model,
    prefixStart: carrier.prefixStart,
    prefixState: carrier.prefixState,
  };
}

/** True when a wire body carries a compaction block or asks for one. */
export function bodyUsesCompaction(body: JsonObject): boolean {
  if (body['compaction'] !== undefined) return true;
  const messages = body['messages'];
  const first = Array.isArray(messages) ? messages[0] : undefined;
  const content = isJsonObject(first) ? first['content'] : undefined;
  return Array.isArray(content) && isCompactionBlock(content[0]);
}

/**
 * Whether a stored compaction block goes back as itself (SPEC §26.4): only first in `messages`
 * (`route` given only there), only to a route with on-demand compaction on, only to the platform
 * that issued it. Otherwise its summary goes as the text of the message, and the decision says why.
 */
export function liftCompaction(
  carrier: AnthropicCompactionCarrier,
  route: { compactionBlocks?: boolean | undefined; endpointClass: string } | undefined,
): { lift: boolean; decision: Omit<CarrierDecision, 'messageIndex'> } {
  const bytes = anthropicByteLength(String(carrier.block['signature'] ?? ''));
  const why =
    route === undefined
      ? 'not first in messages'
      : !route.compactionBlocks
        ? 'on-demand compaction not on for this route'
        : carrier.endpointClass !== route.endpointClass
          ? `issued by ${carrier.endpointClass}`
          : undefined;
  if (why === undefined) {
    return {
      lift: true,
      decision: { field: 'compaction', action: 'kept', reason: 'compaction block: same platform', bytes },
    };
  }
  return {
    lift: false,
    decision: {
      field: 'compaction',
      action: 'dropped',
      reason: `compaction block (${why}): its summary goes as text`,
      bytes,
    },
  };
}
