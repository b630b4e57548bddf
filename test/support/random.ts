/**
 * Seeded randomness for tests that split streams at random boundaries: the same seed gives the
 * same split, so a failing case is reproduced from its seed.
 */

/** mulberry32: a small deterministic PRNG returning numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** Splits bytes at random boundaries (pieces of 1..maxPiece bytes), cutting through UTF-8 characters too. */
export function splitRandomly(bytes: Uint8Array, random: () => number, maxPiece = 97): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length;) {
    const size = 1 + Math.floor(random() * maxPiece);
    pieces.push(bytes.subarray(offset, Math.min(bytes.length, offset + size)));
    offset += size;
  }
  return pieces;
}
