import { describe, expect, it } from 'vitest';
import { withFields } from '../../src/core/with-fields.js';

describe('withFields', () => {
  it('equals the spread: same keys in the same order, later fields win, base untouched', () => {
    const base = { a: 1, b: 2, c: 3 };
    const merged = withFields(base, { b: 20, d: 4 });
    expect(merged).toEqual({ ...base, b: 20, d: 4 });
    expect(Object.keys(merged)).toEqual(Object.keys({ ...base, b: 20, d: 4 }));
    expect(merged).not.toBe(base);
    expect(base).toEqual({ a: 1, b: 2, c: 3 });
  });

  it('copies a lazy property of the base as its value, as a spread does', () => {
    let reads = 0;
    const base = Object.defineProperty({}, 'x', { get: () => ++reads, enumerable: true });
    expect(withFields(base, { y: 1 })).toEqual({ x: 1, y: 1 });
  });
});
