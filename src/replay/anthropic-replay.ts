/**
 * Canonical history → Anthropic `system` + `messages` (SPEC §9.3 turn assembly and route
 * treatment, SPEC §23.2 origin scoping). Pure; history is never mutated (drafts are copies).
 *
 * Origin "matches" for Anthropic signatures (SPEC §23.2): the message's origin api is
 * `anthropic_messages`, its endpoint class (`direct` / `bedrock` / `vertex` / `foundry` /
 * `host:<third-party host>`) equals the route's, and its model equals the route's model exactly.
 * Unstamped legacy messages match (they follow the SPEC §9.3 rules alone).
 */
import type { JsonObject, JsonValue } from '../core/json.js';
import type { AssistantMessage, Message } from '../core/message.js';
import {
  anthropicEndpointClass,
  type AnthropicRouteTreatment,
  anthropicThinkingScope,
} from './anthropic-endpoint-route.js';
import { BOUND_SYSTEM_CHANGED, PrefixDigest, staleBindingReason, systemDigest } from './anthropic-block-binding.js';
import { type AnthropicCompactionCarrier, compactionCarrierOf, liftCompaction } from './anthropic-compaction.js';
import {
  anthropicByteLength,
  assistantDraftBlocks,
  type DraftBlock,
  type ThinkingMeta,
  userDraftBlocks,
} from './anthropic-replay-blocks.js';
import { unreadCarrierDecisions } from './replay-native-drops.js';
import { syncToolCallSidecars } from './replay-tool-call-sync.js';
import type { CarrierDecision } from './replay-types.js';

/** Options of {@link buildAnthropicMessages}. */
export interface AnthropicReplayOptions {
  /** The route's treatment (SPEC §9.2). */
  treatment: AnthropicRouteTreatment;
  /** The route's exact model id. */
  model: string;
  /** The route's endpoint class ({@link anthropicEndpointClass}). */
  endpointClass: string;
  /** Thinking is requested on this turn; when false every thinking block is stripped (WIRE.md §2.6d). */
  thinkingEnabled: boolean;
  /** Remembered rejected fingerprints (SPEC §9.4). */
  rejectedFingerprints?: readonly string[] | undefined;
  /** Strip all thinking from this request only (SPEC §9.4, nothing was fingerprintable). */
  stripAllThinking?: boolean | undefined;
  /**
   * Present when the route's model checks thinking-block binding (SPEC §26.4): the request's wire
   * `tools`, the part of every block's prefix that is not built here. Signed blocks whose captured
   * model or prefix no longer holds are then left out.
   */
  prefixCheck?: { tools: readonly JsonObject[] } | undefined;
  /**
   * On a native route whose model does not check the whole prefix, what to do with a signed block
   * produced by this model under another `system` prompt (SPEC §26.4, `SystemBinding`): `note`
   * sends it and lists its wire position in {@link AnthropicReplayResult.systemChanged} (a
   * rejection of it teaches the route), `check` leaves it out (the route taught that it binds).
   */
  systemBinding?: 'note' | 'check' | undefined;
  /**
   * The route sends back compaction blocks of its own platform (on-demand compaction on, SPEC
   * §26.4): a leading summary message that carries one goes as that block, first in `messages`.
   */
  compactionBlocks?: boolean | undefined;
}

/** The converted conversation. */
export interface AnthropicReplayResult {
  /** System messages joined by a blank line; undefined when there is none. */
  system: string | undefined;
  messages: JsonObject[];
  decisions: CarrierDecision[];
  /** For each wire message, the history index each of its content blocks came from. */
  blockSources: number[][];
  /** With a prefix check: the digest after the whole conversation, where an answer's blocks follow. */
  prefix?: PrefixDigest | undefined;
  /** With `systemBinding: 'note'`: the wire positions `[message, block]` of blocks sent under another system prompt. */
  systemChanged?: [number, number][];
}

/** Placeholder for an assistant turn left empty once its thinking was stripped (SPEC §9.3). */
export const THINKING_ELIDED_TEXT = '(thinking elided)';

interface Turn {
  role: 'user' | 'assistant';
  blocks: DraftBlock[];
  /** The turn is a lifted compaction block (SPEC §26.4). */
  compaction?: AnthropicCompactionCarrier;
}

function originMatches(message: AssistantMessage, options: AnthropicReplayOptions): boolean {
  const origin = message.origin;
  if (!origin) return true;
  return (
    origin.api === 'anthropic_messages' &&
    anthropicEndpointClass(origin.host, origin.provider) === options.endpointClass &&
    origin.model === options.model
  );
}

/** Builds per-message drafts and merges same-role neighbours (the second assistant's thinking is marked). */
function assembleTurns(history: readonly Message[], options: AnthropicReplayOptions, decisions: CarrierDecision[]) {
  const rejected = new Set(options.rejectedFingerprints ?? []);
  const foreign = new Set<number>();
  const turns: Turn[] = [];
  const system: string[] = [];
  history.forEach((message, historyIndex) => {
    let role: Turn['role'];
    let blocks: DraftBlock[];
    if (message.role === 'system') {
      if (message.content !== '') system.push(message.content);
      return;
    } else if (message.role === 'user') {
      const carrier = compactionCarrierOf(message);
      if (carrier) {
        const lifted = liftCompaction(carrier, turns.length === 0 ? options : undefined);
        decisions.push({ messageIndex: historyIndex, ...lifted.decision });
        if (lifted.lift) {
          turns.push({
            role: 'assistant',
            blocks: [{ block: carrier.block, historyIndex, source: carrier.block }],
            compaction: carrier,
          });
          return;
        }
      }
      role = 'user';
      blocks = userDraftBlocks(message.content, historyIndex, message);
    } else if (message.role === 'tool') {
      role = 'user';
      blocks = [
        {
          block: { type: 'tool_result', tool_use_id: message.tool_call_id, content: message.content },
          historyIndex,
          source: message,
        },
      ];
    } else {
      role = 'assistant';
      if (!originMatches(message, options)) foreign.add(historyIndex);
      // Calls and sidecar blocks in step first: a dropped call's tool_use is not an orphan.
      const synced = syncToolCallSidecars(message, historyIndex);
      decisions.push(...synced.decisions);
      blocks = assistantDraftBlocks(synced.message, historyIndex, rejected, decisions);
      decisions.push(...unreadCarrierDecisions(message, historyIndex, 'anthropic_messages'));
    }
    if (blocks.length === 0) return;
    const previous = turns[turns.length - 1];
    // A compaction block stands alone: the API reads a kept `assistant` turn after it as its own.
    if (previous && previous.role === role && !previous.compaction) {
      // A steer message after tool results joins the tool-result turn; a second assistant message
      // joins the first and loses its thinking (its signature covered a different turn).
      for (const draft of blocks) previous.blocks.push(role === 'assistant' ? { ...draft, mergedSecond: true } : draft);
    } else turns.push({ role, blocks: [...blocks] });
  });
  return { turns, foreign, system: system.length > 0 ? system.join('\n\n') : undefined };
}

/** Removes orphan tool_use (no tool_result follows) and orphan tool_result blocks. */
function removeOrphans(turns: Turn[], decisions: CarrierDecision[]): void {
  turns.forEach((turn, index) => {
    if (turn.role !== 'assistant') return;
    const next = turns[index + 1];
    const answered = new Set(
      (next?.blocks ?? [])
        .filter((draft) => draft.block['type'] === 'tool_result')
        .map((draft) => draft.block['tool_use_id']),
    );
    const kept: DraftBlock[] = [];
    let removed = false;
    let calls = 0;
    let orphaned = 0;
    for (const draft of turn.blocks) {
      if (draft.block['type'] === 'tool_use') calls += 1;
      if (draft.block['type'] === 'tool_use' && !answered.has(draft.block['id'])) {
        removed = true;
        orphaned += 1;
        decisions.push({
          messageIndex: draft.historyIndex,
          field: 'tool_use',
          action: 'dropped',
          reason: 'orphan tool_use',
        });
      } else kept.push(draft);
    }
    // The signature covered the removed tool_use too, so it no longer verifies (SPEC §9.3); when
    // every call was orphaned the turn's plan never ran (SPEC §24.3 exception).
    const allOrphaned = calls > 0 && orphaned === calls;
    turn.blocks = removed
      ? kept.map((draft) => (draft.thinking ? { ...draft, invalidated: true, allOrphaned } : draft))
      : kept;
  });
  turns.forEach((turn, index) => {
    if (turn.role !== 'user') return;
    const previous = turns[index - 1];
    const issued = new Set(
      previous?.role === 'assistant'
        ? previous.blocks.filter((draft) => draft.block['type'] === 'tool_use').map((draft) => draft.block['id'])
        : [],
    );
    turn.blocks = turn.blocks.filter((draft) => {
      if (draft.block['type'] !== 'tool_result' || issued.has(draft.block['tool_use_id'])) return true;
      decisions.push({
        messageIndex: draft.historyIndex,
        field: 'tool_result',
        action: 'dropped',
        reason: 'orphan tool_result',
      });
      return false;
    });
  });
}

/** Index of the first assistant turn of the in-flight tool loop (after the last real user turn). */
function loopStart(turns: readonly Turn[]): number {
  for (let index = turns.length - 1; index >= 0; index -= 1) {
    const turn = turns[index];
    if (turn?.role === 'user' && !turn.blocks.some((draft) => draft.block['type'] === 'tool_result')) return index + 1;
  }
  return 0;
}

/**
 * Thinking that cannot travel as thinking, as the text block it becomes (SPEC §25.3): its readable
 * text alone, no `<thinking>` wrapper (Anthropic has refused prior chain-of-thought dressed as
 * tagged text).
 */
function demoted(readable: string): JsonObject {
  return { type: 'text', text: readable };
}

/** Applies the route treatment to one thinking draft: the block to send (or null) plus the decision. */
function treatThinking(
  draft: DraftBlock,
  inScope: boolean,
  originOk: boolean,
  options: AnthropicReplayOptions,
  prefix: PrefixDigest | undefined,
  systemMoved: boolean,
): { block: JsonObject | null; decision: Omit<CarrierDecision, 'messageIndex'> } {
  const meta = draft.thinking!;
  const field = meta.synthesized ? 'reasoning_content' : String(draft.block['type']);
  const readableBytes = anthropicByteLength(meta.readable);
  // SPEC §24.10, §25.5: one count per carrier, the same kept or dropped: a signed block counts its
  // signature (or redacted data), the bytes the transcript view and the other encoders report for
  // it; an unsigned one its text.
  const carrierBytes = meta.signed
    ? anthropicByteLength(String(draft.block['signature'] ?? draft.block['data'] ?? ''))
    : readableBytes;
  const drop = (reason: string) => ({
    block: null,
    decision: { field, action: 'dropped' as const, reason, bytes: carrierBytes },
  });
  // SPEC §24.3, §25.3: thinking that cannot travel as thinking still travels as bare text, ahead
  // of the turn's own text (as pydantic-ai does for foreign reasoning, fixture
  // anthropic/pydantic-thinking-part-from-other-model), never as a fabricated signed block.
  const demote = (reason: string) =>
    meta.readable === ''
      ? drop(reason)
      : {
          block: demoted(meta.readable),
          decision: { field, action: 'lifted' as const, reason: `demoted to text: ${reason}`, bytes: readableBytes },
        };
  if (options.stripAllThinking) return drop('strip all thinking (retry)');
  if (draft.mergedSecond) return drop('merged same-role message');
  if (options.treatment === 'third_party') return drop('third-party route');
  if (!inScope) return drop('prior turn: model does not keep prior thinking');
  // SPEC §24.3 exception: every tool call of the turn was orphaned, so its plan never ran.
  if (draft.allOrphaned) return drop('every tool call orphaned');
  // SPEC §25.1: on MiniMax, thinking invalidated by an orphan tool_use removal is not sent at all,
  // neither as thinking nor as text (the reference's behaviour).
  if (options.treatment === 'minimax' && draft.invalidated) return drop('signature invalidated');
  if (!options.thinkingEnabled) return demote('thinking off for this request');
  // SPEC §26.4: a block bound to another model or prefix is never sent, as a block or as text.
  if (prefix && meta.signed && options.treatment === 'native') {
    const stale = staleBindingReason({ binding: meta.binding, model: options.model, originMatches: originOk, prefix });
    if (stale) return drop(stale);
  }
  if (systemMoved && options.systemBinding === 'check') return drop(BOUND_SYSTEM_CHANGED);
  const signedValid = meta.signed && originOk && !draft.invalidated;
  const treatment = options.treatment;
  const keep = (reason: string) => ({
    block: draft.block,
    decision: { field, action: 'kept' as const, reason, bytes: carrierBytes },
  });
  if (signedValid && (treatment === 'native' || treatment === 'minimax' || treatment === 'kimi')) {
    return keep(treatment === 'kimi' ? 'kimi: kept as issued' : 'signed: same issuer');
  }
  if (treatment === 'native') return demote(unsignedReason(meta, originOk, draft));
  // MiniMax (SPEC §24.2), Kimi (unsigned or foreign) and DeepSeek (SPEC §24.1): readable thinking
  // goes back as a real unsigned thinking block, never a blob.
  if (meta.readable === '') return drop(meta.signed ? 'opaque blob: route takes unsigned only' : 'empty thinking');
  const reason =
    treatment === 'deepseek'
      ? 'unsigned: route drops signatures'
      : treatment === 'minimax'
        ? `unsigned: minimax accepts unsigned (${unsignedReason(meta, originOk, draft)})`
        : 'unsigned: route accepts unsigned';
  return {
    block: { type: 'thinking', thinking: meta.readable },
    decision: { field, action: 'kept', reason, bytes: readableBytes },
  };
}

function unsignedReason(meta: ThinkingMeta, originOk: boolean, draft: DraftBlock): string {
  if (!originOk && meta.signed) return 'foreign origin';
  if (draft.invalidated) return 'signature invalidated';
  return 'unsigned on signed route';
}

/**
 * Converts canonical history to Anthropic `system` + `messages` for one route (SPEC §9.3) with
 * one decision per carrier. Same input, same output; nothing in `history` changes.
 */
export function buildAnthropicMessages(
  history: readonly Message[],
  options: AnthropicReplayOptions,
): AnthropicReplayResult {
  const decisions: CarrierDecision[] = [];
  const { turns, foreign, system } = assembleTurns(history, options, decisions);
  removeOrphans(turns, decisions);
  const scope = anthropicThinkingScope(options.treatment, options.model);
  const firstLoopTurn = loopStart(turns);

  const messages: JsonObject[] = [];
  const blockSources: number[][] = [];
  let prefix = options.prefixCheck ? PrefixDigest.start(system, options.prefixCheck.tools as JsonValue[]) : undefined;
  const prefixStart = prefix?.hex();
  // The digest of this request's `system`, computed once a block that kept one is met.
  let systemNow: string | undefined;
  const systemChanged: [number, number][] = [];
  const movedSystem = (draft: DraftBlock): boolean => {
    const kept = draft.thinking?.systemBinding;
    if (!options.systemBinding || !kept || options.treatment !== 'native' || foreign.has(draft.historyIndex)) {
      return false;
    }
    if (kept.model !== options.model) return false;
    systemNow ??= systemDigest(system);
    return kept.system !== systemNow;
  };
  turns.forEach((turn, turnIndex) => {
    if (turn.role === 'user') {
      if (turn.blocks.length === 0) return;
      messages.push({ role: 'user', content: turn.blocks.map((draft) => draft.block) });
      blockSources.push(turn.blocks.map((draft) => draft.historyIndex));
      if (prefix) {
        prefix.header('user');
        for (const draft of turn.blocks) prefix.block(draft.block, draft.source);
      }
      return;
    }
    const inScope = scope === 'all' || (scope === 'loop' && turnIndex >= firstLoopTurn);
    // What this request sends before each block of the turn (SPEC §26.4).
    const turnPrefix = prefix?.copy().header('assistant');
    const content: JsonObject[] = [];
    const sources: number[] = [];
    let strippedThinking = false;
    let orphanedPlan = false;
    let elidedIndex = -1;
    // Positions in `content` of blocks sent under another system prompt (`systemBinding: 'note'`).
    const movedAt: number[] = [];
    for (const draft of turn.blocks) {
      if (!draft.thinking) {
        // Server-tool blocks are Anthropic-issued; only a signed route of the same issuer reads them.
        const serverBlock =
          draft.block['type'] === 'server_tool_use' || String(draft.block['type']).endsWith('_tool_result');
        if (
          serverBlock &&
          (foreign.has(draft.historyIndex) || (options.treatment !== 'native' && options.treatment !== 'minimax'))
        ) {
          decisions.push({
            messageIndex: draft.historyIndex,
            field: String(draft.block['type']),
            action: 'dropped',
            reason: 'server tool block: foreign route',
          });
          continue;
        }
        content.push(draft.block);
        sources.push(draft.historyIndex);
        turnPrefix?.block(draft.block, draft.source);
        continue;
      }
      const moved = movedSystem(draft);
      const result = treatThinking(draft, inScope, !foreign.has(draft.historyIndex), options, turnPrefix, moved);
      decisions.push({ messageIndex: draft.historyIndex, ...result.decision });
      if (result.block) {
        if (moved && result.block === draft.block) movedAt.push(content.length);
        content.push(result.block);
        sources.push(draft.historyIndex);
        // A block sent as drafted keeps its cached digest; a rewritten one (demoted, unsigned) has none.
        turnPrefix?.block(result.block, result.block === draft.block ? draft.source : undefined);
      } else {
        strippedThinking = true;
        orphanedPlan ||= draft.allOrphaned === true;
        elidedIndex = draft.historyIndex;
      }
    }
    // SPEC §24.3: a turn whose every tool call was orphaned always gets the placeholder, first.
    let placeholder = false;
    if (content.length === 0 || orphanedPlan) {
      if (!strippedThinking) return;
      content.unshift({ type: 'text', text: THINKING_ELIDED_TEXT });
      sources.unshift(elidedIndex);
      placeholder = true;
      decisions.push({
        messageIndex: elidedIndex,
        field: 'content',
        action: 'padded',
        reason: 'thinking elided placeholder',
      });
    }
    for (const at of movedAt) systemChanged.push([messages.length, placeholder ? at + 1 : at]);
    messages.push({ role: 'assistant', content });
    blockSources.push(sources);
    // The placeholder went in front of blocks already digested: the turn is digested again.
    if (prefix) prefix = placeholder || !turnPrefix ? prefix.message('assistant', content) : turnPrefix;
    // SPEC §26.4: the API accepts the swap of an API-written summary in its prefix check. With the
    // same `system` and `tools` as the compaction request, what follows the block is bound as if
    // the summarised messages still stood where it stands.
    if (prefix && turn.compaction && turn.compaction.prefixStart === prefixStart) {
      prefix = PrefixDigest.restore(turn.compaction.prefixState) ?? prefix;
    }
  });
  const result: AnthropicReplayResult = { system, messages, decisions, blockSources, prefix };
  if (systemChanged.length > 0) result.systemChanged = systemChanged;
  return result;
}
