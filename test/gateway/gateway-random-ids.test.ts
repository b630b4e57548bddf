import { describe, expect, it } from 'vitest';
import { randomHex, uniqueBytes } from '../../src/gateway/gateway-random-ids.js';

describe('randomHex', () => {
  it('gives 2 × bytes lowercase hex characters, never the same id twice across pool refills', () => {
    const seen = new Set<string>();
    // 2,000 ids of 12 bytes draw about six pools of 4,096 bytes.
    for (let index = 0; index < 2000; index++) {
      const id = randomHex(12);
      expect(id).toMatch(/^[0-9a-f]{24}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(2000);
    expect(randomHex(16)).toMatch(/^[0-9a-f]{32}$/);
    expect(randomHex(4096)).toHaveLength(8192);
  });

  it('uniqueBytes gives fresh buffers of their own, never the same value twice across pool refills', () => {
    const seen = new Set<string>();
    const first = uniqueBytes(12);
    const copy = Buffer.from(first);
    // 1,000 nonces of 12 bytes and 1,000 ids between them draw about nine pools.
    for (let index = 0; index < 1000; index++) {
      const nonce = uniqueBytes(12);
      expect(nonce).toHaveLength(12);
      seen.add(nonce.toString('hex'));
      seen.add(randomHex(12));
    }
    expect(seen.size).toBe(2000);
    // A refilled pool does not change a buffer already handed out.
    expect(first.equals(copy)).toBe(true);
    expect(() => uniqueBytes(4097)).toThrow(RangeError);
  });
});
