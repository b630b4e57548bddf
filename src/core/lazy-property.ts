/**
 * Own, enumerable properties computed on first read, for objects made on every request.
 *
 * Rule: no getter in an object literal on a hot path. A literal's `get x() {…}` is a new function
 * each time the literal runs, and V8 keeps an accessor's functions in the object's hidden class,
 * so every such object gets a hidden class of its own. Those live in the old generation until a
 * full collection, and what their getters close over (a request's whole replay, its decisions)
 * then survives every young-generation collection with them (docs/performance.md). Here every
 * object with a lazy `key` shares one getter per key, which reads the object's own thunk, so the
 * objects share hidden classes and nothing outlives its request.
 *
 * The property behaves as the literal's getter did: own, enumerable and configurable; a spread
 * or `JSON.stringify` reads it (and copies the value); the value is computed once.
 */

const THUNKS = Symbol('lazy properties');

interface Thunk {
  compute: (() => unknown) | undefined;
  value: unknown;
}

type WithThunks = { [THUNKS]?: Record<string, Thunk> };

const getters = new Map<string, (this: WithThunks) => unknown>();

function sharedGetter(key: string): (this: WithThunks) => unknown {
  let getter = getters.get(key);
  if (getter === undefined) {
    getter = function (this: WithThunks): unknown {
      const thunk = (this[THUNKS] as Record<string, Thunk>)[key] as Thunk;
      const compute = thunk.compute;
      if (compute !== undefined) {
        thunk.compute = undefined;
        thunk.value = compute();
      }
      return thunk.value;
    };
    getters.set(key, getter);
  }
  return getter;
}

/** Defines `key` on `target` as a property whose value `compute` gives on first read; returns `target`. */
export function defineLazyProperty<T extends object, K extends string, V>(
  target: T,
  key: K,
  compute: () => V,
): T & { readonly [P in K]: V } {
  const holder = target as T & WithThunks;
  let thunks = holder[THUNKS];
  if (thunks === undefined) {
    thunks = {};
    Object.defineProperty(holder, THUNKS, { value: thunks });
  }
  thunks[key] = { compute, value: undefined };
  Object.defineProperty(holder, key, { get: sharedGetter(key), enumerable: true, configurable: true });
  return holder as T & { readonly [P in K]: V };
}
