import { describe, expect, it } from 'vitest';
import { defineLazyProperty } from '../../src/core/lazy-property.js';

describe('defineLazyProperty', () => {
  it('computes the value once, on first read', () => {
    let calls = 0;
    const target = defineLazyProperty({ id: 1 }, 'decisions', () => {
      calls += 1;
      return ['kept'];
    });
    expect(calls).toBe(0);
    expect(target.decisions).toEqual(['kept']);
    expect(target.decisions).toBe(target.decisions);
    expect(calls).toBe(1);
  });

  it('is an own enumerable property: spreads, keys and JSON see the value, not the thunk', () => {
    const target = defineLazyProperty({ id: 1 }, 'decisions', () => [2]);
    expect(Object.keys(target)).toEqual(['id', 'decisions']);
    expect({ ...target }).toEqual({ id: 1, decisions: [2] });
    expect(JSON.parse(JSON.stringify(target))).toEqual({ id: 1, decisions: [2] });
    expect(Object.getOwnPropertySymbols({ ...target })).toEqual([]);
  });

  it('gives every object one shared getter per key, so the objects share a hidden class', () => {
    const first = defineLazyProperty({}, 'decisions', () => 1);
    const second = defineLazyProperty({}, 'decisions', () => 2);
    const getter = (object: object) => Object.getOwnPropertyDescriptor(object, 'decisions')?.get;
    expect(getter(first)).toBe(getter(second));
    expect([first.decisions, second.decisions]).toEqual([1, 2]);
  });

  it('keeps two lazy keys of one object apart', () => {
    const target = defineLazyProperty(
      defineLazyProperty({}, 'a', () => 'A'),
      'b',
      () => 'B',
    );
    expect([target.a, target.b]).toEqual(['A', 'B']);
  });
});
