import type { Route } from '../core/route.js';
import { modelPrice, usageCost, type ModelPrice } from '../providers/provider-models.js';
import {
  PROBE_ASK,
  PROBE_PICK,
  PROBE_SYSTEM_PROMPT,
  PROBE_TOOL,
  PROBE_TOOL_LOOP_ASK,
  PROBE_WARM_UPS,
} from './probe-prompts.js';

/**
 * What a probe costs on a real route, said before it runs (SPEC §26.5: a few cents). Requests:
 * two warm-ups and the pick, the tool loop's two, one each for branch and resume, and the
 * compaction's summary and question. Input is the conversation each request carries; output is
 * a short answer plus the reasoning a low effort asks for, a range because models differ.
 */

/** Requests one probe sends when nothing is retried. */
export const PROBE_REQUESTS = PROBE_WARM_UPS.length + 1 + 2 + 1 + 2 + 1;

/** Output tokens of one request at low reasoning effort: a short reply and its reasoning. */
const OUTPUT_PER_REQUEST = { low: 300, high: 1500 } as const;
/** Tokens of one short reply the history carries afterwards. */
const REPLY_TOKENS = 30;
/** A dear list price, for routes whose price Hermes does not know (US dollars per million tokens). */
export const CEILING_PRICE: ModelPrice = { input: 15, output: 75 };

/** The estimate shown before a probe runs. */
export interface ProbeCostEstimate {
  requests: number;
  inputTokens: number;
  outputTokens: { low: number; high: number };
  /** US dollars at the route's list price, or at {@link CEILING_PRICE} when `priced` is false. */
  dollars: { low: number; high: number };
  priced: boolean;
}

const tokens = (text: string): number => Math.ceil(text.length / 4);

/** The estimate for a probe on `route`. */
export function estimateProbeCost(route: Route): ProbeCostEstimate {
  const fixed = tokens(PROBE_SYSTEM_PROMPT) + tokens(JSON.stringify(PROBE_TOOL));
  // Each request carries the conversation so far: the warm-ups and the pick grow it by one turn each.
  let history = 0;
  let input = 0;
  for (const text of [...PROBE_WARM_UPS, PROBE_PICK]) {
    history += tokens(text);
    input += fixed + history;
    history += REPLY_TOKENS;
  }
  // Tool loop (two requests), branch, resume and the compaction's question ask on that history.
  input += 2 * (fixed + history + tokens(PROBE_TOOL_LOOP_ASK)) + 3 * (fixed + history + tokens(PROBE_ASK));
  // The summary request carries the warm-ups as a transcript.
  input += fixed + PROBE_WARM_UPS.reduce((sum, text) => sum + tokens(text) + REPLY_TOKENS, 0);
  const outputTokens = { low: PROBE_REQUESTS * OUTPUT_PER_REQUEST.low, high: PROBE_REQUESTS * OUTPUT_PER_REQUEST.high };
  const price = modelPrice(route.provider, route.model);
  const cost = (output: number): number =>
    usageCost(price ?? CEILING_PRICE, { input, output, cachedInput: 0 }) ?? Number.NaN;
  return {
    requests: PROBE_REQUESTS,
    inputTokens: input,
    outputTokens,
    dollars: { low: cost(outputTokens.low), high: cost(outputTokens.high) },
    priced: price !== undefined,
  };
}

/** The estimate in one sentence. */
export function describeProbeCost(estimate: ProbeCostEstimate, routeName: string): string {
  const dollars = (value: number) => `$${value < 0.01 ? value.toFixed(4) : value.toFixed(2)}`;
  const price = estimate.priced
    ? 'at its list price'
    : `at $${CEILING_PRICE.input}/$${CEILING_PRICE.output} per million tokens (Hermes knows no price for this route; most cost less)`;
  return (
    `the continuity probe sends about ${estimate.requests} requests to ${routeName}: about ` +
    `${estimate.inputTokens.toLocaleString('en-US')} input and ${estimate.outputTokens.low.toLocaleString('en-US')}–` +
    `${estimate.outputTokens.high.toLocaleString('en-US')} output tokens, ` +
    `${dollars(estimate.dollars.low)}–${dollars(estimate.dollars.high)} ${price}`
  );
}
