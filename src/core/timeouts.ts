/**
 * Time limits on one provider request, in milliseconds. Reasoning models may think for minutes
 * before the first byte, so `firstByte` is long; a stream that goes silent is not normal, so
 * `idle` is shorter. SSE comments (`: keep-alive`) and ping events never count as progress.
 * The TCP connect itself is bounded by Node's fetch (10 s).
 */
export interface Timeouts {
  /** From sending the request to the response headers. */
  firstByte: number;
  /** Longest gap between two body chunks that carry data. */
  idle: number;
  /** The whole request, headers and body. */
  total: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = {
  firstByte: 600_000,
  idle: 300_000,
  total: 3_600_000,
};
