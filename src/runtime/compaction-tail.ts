import type { Message } from '../core/message.js';

/**
 * The lean tail (SPEC §26.6, docs/sessions.md "Compaction"): the part of a session compaction
 * keeps verbatim is sized in tokens, priced exactly like the request preflight (SPEC §15: the
 * costs come from `messageCosts`, opaque bytes cost nothing).
 *
 * - Budget: 2.5 % of the context window, clamped to 10,000–25,000 tokens, and never more than
 *   20 % of the window.
 * - The tail starts at a user or assistant message, never at a tool result, so a tool call is
 *   never separated from its results; the newest such unit is always kept, even past the budget.
 * - It holds at least `min_tail_user_messages` user messages (as many as the session has after
 *   its first message, when fewer), even past the budget, unless head and tail together would
 *   then pass the cap (20 % of the window, and never more than half the compaction limit, the
 *   room a summary and the next turns need): then the floor yields, message by message, and the
 *   plan says it was salvaged.
 */

/** Share of the context window the lean tail gets. */
export const LEAN_TAIL_SHARE = 0.025;
/** The lean tail budget's floor and ceiling, in tokens. */
export const LEAN_TAIL_MIN_TOKENS = 10_000;
export const LEAN_TAIL_MAX_TOKENS = 25_000;
/** The lean tail never takes more than this share of the window. */
export const LEAN_TAIL_WINDOW_CAP = 0.2;

/** The lean tail budget for a context window (SPEC §26.6). */
export function leanTailBudget(contextWindow: number): number {
  const share = Math.floor(contextWindow * LEAN_TAIL_SHARE);
  const clamped = Math.min(LEAN_TAIL_MAX_TOKENS, Math.max(LEAN_TAIL_MIN_TOKENS, share));
  return Math.min(clamped, Math.floor(contextWindow * LEAN_TAIL_WINDOW_CAP));
}

/** Where the lean tail starts, and whether the user-message floor had to yield to the cap. */
export interface LeanTailCut {
  tailStart: number;
  salvaged: boolean;
}

/** Inputs of {@link leanTailCut}. */
export interface LeanTailInput {
  history: readonly Message[];
  /** Per-message costs, the preflight's (`messageCosts`). */
  costs: readonly number[];
  /** The head ends here (exclusive): the tail starts after it. */
  headEnd: number;
  budget: number;
  minUserMessages: number;
  /** Head + tail must stay at or under this; Infinity without a limit. */
  cap: number;
}

/** Walks back from the newest message (see the file comment for the rules). */
export function leanTailCut(input: LeanTailInput): LeanTailCut {
  const { history, costs, headEnd } = input;
  const end = history.length;
  const suffix: number[] = new Array<number>(end + 1).fill(0);
  for (let index = end - 1; index >= 0; index -= 1) suffix[index] = (suffix[index + 1] ?? 0) + (costs[index] ?? 0);
  const tailCost = (start: number) => suffix[start] ?? 0;
  const headCost = (suffix[0] ?? 0) - tailCost(headEnd);
  const cuts: number[] = [];
  for (let index = end - 1; index > headEnd; index -= 1) if (history[index]?.role !== 'tool') cuts.push(index);
  // `cuts` runs newest first. Without a valid cut the whole rest is the newest unit: keep it.
  if (cuts.length === 0) return { tailStart: headEnd, salvaged: false };
  let byBudget = cuts[0] as number;
  for (const cut of cuts) {
    if (tailCost(cut) > input.budget) break;
    byBudget = cut;
  }
  const users: number[] = [];
  for (let index = end - 1; index >= headEnd; index -= 1) if (history[index]?.role === 'user') users.push(index);
  const wanted = Math.min(input.minUserMessages, users.length);
  const floorStart = wanted > 0 ? (users[wanted - 1] as number) : end;
  if (floorStart >= byBudget) return { tailStart: byBudget, salvaged: false };
  if (headCost + tailCost(floorStart) <= input.cap) return { tailStart: floorStart, salvaged: false };
  // The floor does not fit: the earliest cut from the floor on that does, never later than the budget's.
  for (const cut of [...cuts].reverse()) {
    if (cut < floorStart) continue;
    if (cut >= byBudget || headCost + tailCost(cut) <= input.cap) return { tailStart: cut, salvaged: true };
  }
  return { tailStart: byBudget, salvaged: true };
}
