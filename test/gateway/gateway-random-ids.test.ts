import { describe, expect, it } from 'vitest';
import { randomHex } from '../../src/gateway/gateway-random-ids.js';

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
});
