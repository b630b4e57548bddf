import { randomFillSync } from 'node:crypto';

/**
 * Random bytes for values that must be unique but are not secret: the ids the gateway gives
 * answers (`chatcmpl-…`, `msg_…`, `resp_…`, item ids) and the nonces of sealed handles, which
 * travel in the clear inside the handle (NIST SP 800-38D §8.2.2 asks only that a key never see a
 * nonce twice). The bytes come from the CSPRNG in blocks of {@link POOL_BYTES} and each byte is
 * used once: one RNG call (about 5 µs whatever its size) per a hundred or so values instead of one
 * per value. Secrets (handle keys, user keys) draw their own bytes directly.
 */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let offset = POOL_BYTES;

/** The offset of `bytes` fresh pool bytes, which are used once. */
function draw(bytes: number, what: string): number {
  if (bytes > POOL_BYTES) throw new RangeError(`${what} draws at most ${POOL_BYTES} bytes, not ${bytes}`);
  if (offset + bytes > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  offset += bytes;
  return offset - bytes;
}

/** `bytes` random bytes as lowercase hex (2 × `bytes` characters); `bytes` at most 4096. */
export function randomHex(bytes: number): string {
  const start = draw(bytes, 'randomHex');
  return pool.toString('hex', start, start + bytes);
}

/** `bytes` random bytes in a buffer of their own (a nonce); `bytes` at most 4096. */
export function uniqueBytes(bytes: number): Buffer {
  const start = draw(bytes, 'uniqueBytes');
  return Buffer.from(pool.subarray(start, start + bytes));
}
