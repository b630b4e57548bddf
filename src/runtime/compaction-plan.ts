import type { JsonObject } from '../core/json.js';
import type { AssistantMessage, Message } from '../core/message.js';
import { estimateMessageTokens } from '../replay/replay-recovery.js';
import { LEAN_TAIL_WINDOW_CAP, leanTailBudget, leanTailCut } from './compaction-tail.js';

/** How the kept tail is sized: in tokens (`lean`, SPEC §26.6) or in user turns (`turns`). */
export type CompactionTail = 'lean' | 'turns';

/** Compaction settings (config.yaml `compaction:`). */
export interface CompactionSettings {
  /** Model context window in tokens; without one, automatic compaction never triggers. */
  contextWindow?: number | undefined;
  /** Fraction of the window that triggers compaction (default 0.8). */
  threshold: number;
  /** User turns kept intact at the end with `tail: turns` (default 20). */
  keepTurns: number;
  /** Compact in the same session, archiving the compacted turns (default true); false writes a child session. */
  inPlace?: boolean | undefined;
  /** How the kept tail is sized (default `lean`). */
  tail?: CompactionTail | undefined;
  /** The lean tail holds at least this many user messages (default 3). */
  minTailUserMessages?: number | undefined;
}

/** Defaults of the settings a config may leave out (SPEC §26.6). */
export const COMPACTION_DEFAULTS = { inPlace: true, tail: 'lean', minTailUserMessages: 3 } as const;

/**
 * The window compaction sizes its tail and summary requests for when `compaction.context_window`
 * is not set (automatic compaction then never triggers; `/compress` and a context-length error
 * still compact).
 */
export const ASSUMED_CONTEXT_WINDOW = 128_000;

/** The window sizes are computed from: the configured one, else {@link ASSUMED_CONTEXT_WINDOW}. */
export function sizingWindow(settings: Pick<CompactionSettings, 'contextWindow'>): number {
  return settings.contextWindow ?? ASSUMED_CONTEXT_WINDOW;
}

/** Where the history is cut: `[0, headEnd)` kept, `[headEnd, tailStart)` summarised, `[tailStart, end)` kept. */
export interface CompactionPlan {
  /** What the next request would cost: the provider usage anchor when present, else {@link roughEstimate}. */
  estimate: number;
  /** The SPEC §15 rough estimate alone (sum of the per-message costs), comparable before and after a compaction. */
  roughEstimate: number;
  limit: number | null;
  shouldCompact: boolean;
  headEnd: number;
  tailStart: number;
  /** User messages in the kept tail (`tail: turns`: the turns kept after any salvage trimming). */
  keptTurns: number;
  /** Tokens of the retained head + tail. */
  retainedEstimate: number;
  /** True when the salvage pass had to keep less than configured (turns, or the lean tail's user-message floor). */
  salvaged: boolean;
  /** How the tail was sized. */
  tail: CompactionTail;
  /** Tokens of the kept tail, priced like the preflight (SPEC §15). */
  tailTokens: number;
  /** The lean tail's token budget (SPEC §26.6); null with `tail: turns`. */
  tailBudget: number | null;
}

/**
 * Per-message token costs with the SAME pricing as the preflight estimate (SPEC §15): the
 * preflight total is exactly the sum of these, so the tail walk and the trigger never disagree
 * (the prior art's compaction loops came from that disagreement). Opaque bytes cost zero.
 */
export function messageCosts(history: readonly Message[], chargeStaleThinking: boolean): number[] {
  let newest = -1;
  for (let index = history.length - 1; index >= 0; index -= 1) {
    if (history[index]?.role === 'assistant') {
      newest = index;
      break;
    }
  }
  return history.map((message, index) =>
    estimateMessageTokens(message, { chargeStaleThinking, newestAssistant: index === newest }),
  );
}

/**
 * The provider usage anchor: the newest assistant message's recorded usage (prompt + completion
 * tokens, private `_usage` key) replaces the rough estimate of everything up to it.
 */
export function anchoredEstimate(history: readonly Message[], costs: readonly number[]): number {
  let total = 0;
  for (let index = history.length - 1; index >= 0; index -= 1) {
    const message = history[index];
    const usage =
      message?.role === 'assistant' ? ((message as AssistantMessage)['_usage'] as JsonObject | undefined) : undefined;
    if (usage && typeof usage['input_tokens'] === 'number' && typeof usage['output_tokens'] === 'number') {
      return total + usage['input_tokens'] + usage['output_tokens'];
    }
    total += costs[index] ?? 0;
  }
  return total;
}

/**
 * Chooses the cut: keep the system prompt(s) and the first user message, keep a tail intact,
 * summarise the middle. `tail: lean` (the default) sizes the tail in tokens (`compaction-tail.ts`);
 * `tail: turns` keeps the last `keepTurns` user turns (a turn starts at a user message, so a tool
 * call is never separated from its result), and its salvage pass keeps fewer turns while head +
 * tail alone would not fit under half the limit (never fewer than one). Both price messages with
 * the preflight's costs (SPEC §15), so the trigger and the cut never disagree.
 */
export function planCompaction(
  history: readonly Message[],
  settings: CompactionSettings,
  chargeStaleThinking: boolean,
  force = false,
): CompactionPlan {
  const costs = messageCosts(history, chargeStaleThinking);
  const estimate = anchoredEstimate(history, costs);
  const limit = settings.contextWindow ? Math.floor(settings.contextWindow * settings.threshold) : null;
  const firstUser = history.findIndex((message) => message.role === 'user');
  const headEnd = firstUser < 0 ? history.length : firstUser + 1;
  const sum = (from: number, to: number): number => {
    let total = 0;
    for (let index = from; index < to; index += 1) total += costs[index] ?? 0;
    return total;
  };
  const headCost = sum(0, headEnd);
  const tail = settings.tail ?? COMPACTION_DEFAULTS.tail;
  let tailStart: number;
  let keptTurns: number;
  let salvaged = false;
  let tailBudget: number | null = null;
  if (tail === 'lean') {
    const window = sizingWindow(settings);
    tailBudget = leanTailBudget(window);
    const cut = leanTailCut({
      history,
      costs,
      headEnd,
      budget: tailBudget,
      minUserMessages: settings.minTailUserMessages ?? COMPACTION_DEFAULTS.minTailUserMessages,
      cap: Math.min(Math.floor(window * LEAN_TAIL_WINDOW_CAP), Math.floor((window * settings.threshold) / 2)),
    });
    tailStart = cut.tailStart;
    salvaged = cut.salvaged;
    keptTurns = history.slice(tailStart).filter((message) => message.role === 'user').length;
  } else {
    const turnStarts: number[] = [];
    history.forEach((message, index) => {
      if (message.role === 'user' && index >= headEnd) turnStarts.push(index);
    });
    keptTurns = Math.min(settings.keepTurns, turnStarts.length);
    // With no later user turn, everything after the first user message is its (current) turn: keep it.
    tailStart = keptTurns > 0 ? (turnStarts[turnStarts.length - keptTurns] ?? history.length) : headEnd;
    // Salvage: the summary itself needs room, so aim for head + tail under half the limit.
    const budget = limit === null ? Infinity : Math.floor(limit / 2);
    while (keptTurns > 1 && headCost + sum(tailStart, history.length) > budget) {
      keptTurns -= 1;
      tailStart = turnStarts[turnStarts.length - keptTurns] ?? history.length;
      salvaged = true;
    }
  }
  tailStart = Math.max(tailStart, headEnd);
  const middleEmpty = tailStart <= headEnd;
  const over = limit !== null && estimate > limit;
  const tailTokens = sum(tailStart, history.length);
  return {
    estimate,
    roughEstimate: sum(0, history.length),
    limit,
    shouldCompact: !middleEmpty && (force || over),
    headEnd,
    tailStart,
    keptTurns,
    retainedEstimate: headCost + tailTokens,
    salvaged,
    tail,
    tailTokens,
    tailBudget,
  };
}

/**
 * Retained turns keep every carrier byte for byte; only Responses compaction checkpoints that a
 * newer checkpoint supersedes are dropped (SPEC §16, #102378).
 */
export function dropSupersededCheckpoints(messages: readonly Message[]): Message[] {
  let newest: { message: number; item: number } | null = null;
  messages.forEach((message, messageIndex) => {
    if (message.role !== 'assistant') return;
    message.codex_reasoning_items?.forEach((item, itemIndex) => {
      if (item['type'] === 'compaction') newest = { message: messageIndex, item: itemIndex };
    });
  });
  if (!newest) return [...messages];
  const keep = newest as { message: number; item: number };
  return messages.map((message, messageIndex) => {
    if (message.role !== 'assistant' || !message.codex_reasoning_items) return message;
    const items = message.codex_reasoning_items.filter(
      (item, itemIndex) => item['type'] !== 'compaction' || (messageIndex === keep.message && itemIndex === keep.item),
    );
    return items.length === message.codex_reasoning_items.length
      ? message
      : { ...message, codex_reasoning_items: items };
  });
}

/**
 * The child session's messages: head, summary, tail. Retained turns keep every carrier byte for
 * byte; only superseded Responses checkpoints go (SPEC §16). The private `_usage` anchor is the
 * one thing removed from retained copies: it measured the prompt the PARENT sent, which no longer
 * exists, and an anchor left in the tail made the child look as large as the parent — so
 * compaction reported "frees nothing" and was attempted again on every request (SPEC §15 anchors
 * "the last response", which in the child has not happened yet).
 */
export function compactedMessages(
  history: readonly Message[],
  plan: Pick<CompactionPlan, 'headEnd' | 'tailStart'>,
  summary: Message,
): Message[] {
  const retained = dropSupersededCheckpoints([
    ...history.slice(0, plan.headEnd),
    summary,
    ...history.slice(plan.tailStart),
  ]);
  return retained.map((message) => {
    if (message.role !== 'assistant' || !('_usage' in message)) return message;
    const copy: AssistantMessage = { ...message };
    delete copy['_usage'];
    return copy;
  });
}
