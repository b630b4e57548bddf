import { randomFillSync } from 'node:crypto';

/**
 * Random hex for the ids the gateway gives answers (`chatcmpl-…`, `msg_…`, `resp_…`, item ids).
 * The bytes come from the CSPRNG in blocks of {@link POOL_BYTES} and each byte is used once: one
 * RNG call per a hundred or so ids instead of one per id. Secrets (handle keys, seal nonces) draw
 * their own bytes directly.
 */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let offset = POOL_BYTES;

/** `bytes` random bytes as lowercase hex (2 × `bytes` characters); `bytes` at most 4096. */
export function randomHex(bytes: number): string {
  if (bytes > POOL_BYTES) throw new RangeError(`randomHex draws at most ${POOL_BYTES} bytes, not ${bytes}`);
  if (offset + bytes > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  offset += bytes;
  return pool.toString('hex', offset - bytes, offset);
}
