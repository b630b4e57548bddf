import { z } from 'zod';
import { hostileFaultSchemas, type HostileFault } from './emulator-hostile-faults.js';

/**
 * Fault injection shared by every emulator. Faults are queued and each one is consumed by exactly
 * one model request, so a test can script "429, then success" or "drop, then success" and assert
 * what the client retried.
 */

/** One injected fault. */
export type Fault =
  | {
      /** Answer with this HTTP status instead of serving the request. */
      kind: 'status';
      status: number;
      /** Sent as the `retry-after` header (seconds). */
      retryAfterSeconds?: number;
      /** Exact body to send; when absent the emulator uses its provider's envelope for the status. */
      body?: string;
    }
  /** Stream a few chunks, then destroy the socket (non-streaming requests: drop before answering). */
  | { kind: 'drop-mid-stream' }
  /** Stream a few chunks, then a frame that is not JSON (`data: {not json`). */
  | { kind: 'malformed-chunk' }
  /** Stream a few chunks, then an in-band error chunk (OpenRouter style, `finish_reason: "error"`). */
  | { kind: 'error-chunk' }
  | HostileFault;

/** Validates faults posted to `POST /_emulator/faults` (one fault or an array). */
export const faultSchema: z.ZodType<Fault> = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('status'),
    status: z.number().int().min(100).max(599),
    retryAfterSeconds: z.number().nonnegative().optional(),
    body: z.string().optional(),
  }),
  z.object({ kind: z.literal('drop-mid-stream') }),
  z.object({ kind: z.literal('malformed-chunk') }),
  z.object({ kind: z.literal('error-chunk') }),
  ...hostileFaultSchemas,
]) as z.ZodType<Fault>;

/** Parses one fault or an array of faults; throws a readable message when invalid. */
export function parseFaults(value: unknown): Fault[] {
  const result = z.union([faultSchema, z.array(faultSchema)]).safeParse(value);
  if (!result.success) throw new Error(`invalid fault: ${z.prettifyError(result.error)}`);
  return Array.isArray(result.data) ? result.data : [result.data];
}

/** A first-in first-out queue of faults. */
export class FaultQueue {
  private readonly queued: Fault[] = [];

  /** Starts with the given faults queued in order. */
  constructor(initial: readonly Fault[] = []) {
    this.queued.push(...initial);
  }

  /** Queues a fault behind the ones already waiting. */
  add(fault: Fault): void {
    this.queued.push(fault);
  }

  /** Removes and returns the next fault, if any. */
  take(): Fault | undefined {
    return this.queued.shift();
  }

  /** Faults still waiting. */
  get pending(): number {
    return this.queued.length;
  }
}
