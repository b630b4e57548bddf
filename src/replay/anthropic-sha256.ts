/**
 * SHA-256 (FIPS 180-4) in plain TypeScript. `replay/` must stay pure (no `node:crypto`, and Web
 * Crypto's digest is async), yet the rejected-signature fingerprints of SPEC §9.4 and the
 * thinking-block prefix digests of SPEC §26.4 are computed while a request is being built
 * synchronously. {@link Sha256} hashes incrementally and can report the digest of what it has
 * seen so far without stopping, so a request's prefix digests cost one pass over its bytes.
 * Tested against the FIPS vectors and against `node:crypto`.
 */

const ROUND_CONSTANTS = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

const INITIAL_STATE = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

const encoder = new TextEncoder();

function rotateRight(value: number, bits: number): number {
  return (value >>> bits) | (value << (32 - bits));
}

/** One 64-byte block into `state`, reading it from `view` at `offset`. */
function compress(state: Uint32Array, schedule: Uint32Array, view: DataView, offset: number): void {
  for (let index = 0; index < 16; index += 1) schedule[index] = view.getUint32(offset + index * 4);
  for (let index = 16; index < 64; index += 1) {
    const back15 = schedule[index - 15] ?? 0;
    const back2 = schedule[index - 2] ?? 0;
    const sigma0 = rotateRight(back15, 7) ^ rotateRight(back15, 18) ^ (back15 >>> 3);
    const sigma1 = rotateRight(back2, 17) ^ rotateRight(back2, 19) ^ (back2 >>> 10);
    schedule[index] = ((schedule[index - 16] ?? 0) + sigma0 + (schedule[index - 7] ?? 0) + sigma1) >>> 0;
  }
  let a = state[0] ?? 0;
  let b = state[1] ?? 0;
  let c = state[2] ?? 0;
  let d = state[3] ?? 0;
  let e = state[4] ?? 0;
  let f = state[5] ?? 0;
  let g = state[6] ?? 0;
  let h = state[7] ?? 0;
  for (let index = 0; index < 64; index += 1) {
    const sum1 = rotateRight(e, 6) ^ rotateRight(e, 11) ^ rotateRight(e, 25);
    const choice = (e & f) ^ (~e & g);
    const temp1 = (h + sum1 + choice + (ROUND_CONSTANTS[index] ?? 0) + (schedule[index] ?? 0)) >>> 0;
    const sum0 = rotateRight(a, 2) ^ rotateRight(a, 13) ^ rotateRight(a, 22);
    const majority = (a & b) ^ (a & c) ^ (b & c);
    const temp2 = (sum0 + majority) >>> 0;
    h = g;
    g = f;
    f = e;
    e = (d + temp1) >>> 0;
    d = c;
    c = b;
    b = a;
    a = (temp1 + temp2) >>> 0;
  }
  state[0] = ((state[0] ?? 0) + a) >>> 0;
  state[1] = ((state[1] ?? 0) + b) >>> 0;
  state[2] = ((state[2] ?? 0) + c) >>> 0;
  state[3] = ((state[3] ?? 0) + d) >>> 0;
  state[4] = ((state[4] ?? 0) + e) >>> 0;
  state[5] = ((state[5] ?? 0) + f) >>> 0;
  state[6] = ((state[6] ?? 0) + g) >>> 0;
  state[7] = ((state[7] ?? 0) + h) >>> 0;
}

/**
 * An incremental SHA-256: {@link update} any number of times, {@link hex} whenever the digest of
 * everything so far is wanted (the hash goes on afterwards), {@link copy} to branch.
 */
export class Sha256 {
  private readonly state: Uint32Array;
  private readonly pending: Uint8Array;
  private pendingLength: number;
  private totalLength: number;
  private readonly schedule = new Uint32Array(64);

  constructor(from?: Sha256) {
    this.state = from ? Uint32Array.from(from.state) : Uint32Array.from(INITIAL_STATE);
    this.pending = from ? Uint8Array.from(from.pending) : new Uint8Array(64);
    this.pendingLength = from ? from.pendingLength : 0;
    this.totalLength = from ? from.totalLength : 0;
  }

  /** Adds bytes, or the UTF-8 encoding of a string. */
  update(input: Uint8Array | string): this {
    const bytes = typeof input === 'string' ? encoder.encode(input) : input;
    this.totalLength += bytes.length;
    let offset = 0;
    if (this.pendingLength > 0) {
      const taken = Math.min(64 - this.pendingLength, bytes.length);
      this.pending.set(bytes.subarray(0, taken), this.pendingLength);
      this.pendingLength += taken;
      offset = taken;
      if (this.pendingLength < 64) return this;
      compress(this.state, this.schedule, new DataView(this.pending.buffer), 0);
      this.pendingLength = 0;
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (; offset + 64 <= bytes.length; offset += 64) compress(this.state, this.schedule, view, offset);
    if (offset < bytes.length) {
      this.pending.set(bytes.subarray(offset), 0);
      this.pendingLength = bytes.length - offset;
    }
    return this;
  }

  /**
   * Adds a string of code points below 128 (hex digits, letters, digits, `:`) as its bytes,
   * without encoding it first: the prefix chain hashes a few such bytes per block.
   */
  updateAscii(text: string): this {
    for (let index = 0; index < text.length; index += 1) {
      this.pending[this.pendingLength] = text.charCodeAt(index) & 0x7f;
      this.pendingLength += 1;
      if (this.pendingLength === 64) {
        compress(this.state, this.schedule, new DataView(this.pending.buffer), 0);
        this.pendingLength = 0;
      }
    }
    this.totalLength += text.length;
    return this;
  }

  /** An independent hash that continues from this one's state. */
  copy(): Sha256 {
    return new Sha256(this);
  }

  /**
   * This hash's running state as text (`<8 state words hex>.<byte count>.<pending bytes hex>`), so
   * a later process can {@link restore} it and continue exactly where it stopped.
   */
  snapshot(): string {
    let words = '';
    for (const word of this.state) words += word.toString(16).padStart(8, '0');
    let pending = '';
    for (const byte of this.pending.subarray(0, this.pendingLength)) pending += byte.toString(16).padStart(2, '0');
    return `${words}.${this.totalLength}.${pending}`;
  }

  /** The hash a {@link snapshot} describes; undefined when the text is not one. */
  static restore(text: string): Sha256 | undefined {
    const match = /^([0-9a-f]{64})\.(\d{1,15})\.((?:[0-9a-f]{2}){0,63})$/.exec(text);
    if (!match) return undefined;
    const [, words = '', total = '0', pending = ''] = match;
    const totalLength = Number(total);
    if (totalLength % 64 !== pending.length / 2) return undefined;
    const hash = new Sha256();
    for (let index = 0; index < 8; index += 1)
      hash.state[index] = Number.parseInt(words.slice(index * 8, index * 8 + 8), 16);
    for (let index = 0; index < pending.length / 2; index += 1) {
      hash.pending[index] = Number.parseInt(pending.slice(index * 2, index * 2 + 2), 16);
    }
    hash.pendingLength = pending.length / 2;
    hash.totalLength = totalLength;
    return hash;
  }

  /** The digest of everything added so far, as 32 bytes; this hash is left as it was. */
  bytes(): Uint8Array {
    const state = Uint32Array.from(this.state);
    const bitLength = this.totalLength * 8;
    const tailLength = this.pendingLength + 9 <= 64 ? 64 : 128;
    const tail = new Uint8Array(tailLength);
    tail.set(this.pending.subarray(0, this.pendingLength));
    tail[this.pendingLength] = 0x80;
    const view = new DataView(tail.buffer);
    // Messages here are far below 2^32 bytes, so the high word of the 64-bit length is the overflow.
    view.setUint32(tailLength - 8, Math.floor(bitLength / 0x100000000));
    view.setUint32(tailLength - 4, bitLength >>> 0);
    for (let offset = 0; offset < tailLength; offset += 64) compress(state, this.schedule, view, offset);
    const digest = new Uint8Array(32);
    const digestView = new DataView(digest.buffer);
    for (let index = 0; index < 8; index += 1) digestView.setUint32(index * 4, state[index] ?? 0);
    return digest;
  }

  /** {@link bytes} as lower-case hex. */
  hex(): string {
    let hex = '';
    for (const byte of this.bytes()) hex += byte.toString(16).padStart(2, '0');
    return hex;
  }
}

/** SHA-256 of raw bytes, as 32 bytes. */
export function sha256Bytes(input: Uint8Array): Uint8Array {
  return new Sha256().update(input).bytes();
}

/** SHA-256 of the UTF-8 encoding of `text`, as lower-case hex. */
export function sha256Hex(text: string): string {
  return new Sha256().update(text).hex();
}
