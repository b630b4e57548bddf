import { z } from 'zod';

/**
 * Hostile provider behaviours every emulator can play (queued like the other faults): a server
 * that never answers, a stream that goes silent or only sends keep-alives, an error body that
 * never ends, a stream of deltas that never ends, one stream event that never ends, and a
 * provider that echoes the request's credentials back inside an error.
 */
export type HostileFault =
  /** Read the request, then send nothing at all until the client gives up. */
  | { kind: 'stall-before-headers' }
  /** Send `200` and the stream headers, then nothing. */
  | { kind: 'stall-after-headers' }
  /** Send `200`, then only SSE comments (`: keep-alive`) every `intervalMs` (default 200). */
  | { kind: 'keep-alive-only'; intervalMs?: number }
  /** Answer `status` (default 500) with an error body of `bytes` bytes (default 64 MiB), written in pieces. */
  | { kind: 'huge-error-body'; status?: number; bytes?: number }
  /** Stream valid text deltas every `intervalMs` (default 5) until the client disconnects. */
  | { kind: 'endless-deltas'; intervalMs?: number }
  /** Start one SSE `data:` line and never end it (`bytes` of payload, default 64 MiB). */
  | { kind: 'huge-event'; bytes?: number }
  /**
   * Echo the request's credential headers (`authorization`, `x-api-key`, `x-goog-api-key`)
   * inside an in-band error chunk, a malformed chunk, or a `200` JSON error body; or echo the
   * bare credential as the request id of a `401` (`x-request-id`, `x-amzn-requestid`), or split
   * in half across two malformed stream chunks.
   */
  | { kind: 'key-echo'; where: KeyEchoPlace };

/** Where a `key-echo` fault puts the credentials. */
export type KeyEchoPlace = (typeof KEY_ECHO_PLACES)[number];

/** Every place a `key-echo` fault can echo the credentials. */
export const KEY_ECHO_PLACES = [
  'error-chunk',
  'malformed-chunk',
  'error-body',
  'request-id-header',
  'split-malformed-chunks',
] as const;

const interval = z.number().int().min(1).max(60_000).optional();
const size = z
  .number()
  .int()
  .min(1)
  .max(1024 * 1024 * 1024)
  .optional();

/** Schemas of {@link HostileFault} members (joined into the fault schema of `POST /_emulator/faults`). */
export const hostileFaultSchemas = [
  z.object({ kind: z.literal('stall-before-headers') }),
  z.object({ kind: z.literal('stall-after-headers') }),
  z.object({ kind: z.literal('keep-alive-only'), intervalMs: interval }),
  z.object({ kind: z.literal('huge-error-body'), status: z.number().int().min(200).max(599).optional(), bytes: size }),
  z.object({ kind: z.literal('endless-deltas'), intervalMs: interval }),
  z.object({ kind: z.literal('huge-event'), bytes: size }),
  z.object({ kind: z.literal('key-echo'), where: z.enum(KEY_ECHO_PLACES) }),
] as const;

const HOSTILE_KINDS = new Set(hostileFaultSchemas.map((schema) => schema.shape.kind.value));

/** True for the faults {@link serveHostileFault} answers. */
export function isHostileFault(fault: { kind: string } | undefined): fault is HostileFault {
  return fault !== undefined && HOSTILE_KINDS.has(fault.kind as HostileFault['kind']);
}
