import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as library from '../../src/index.js';

/** The error classes docs/library.md promises, read from its `errors` row. */
function documentedErrors(): string[] {
  const row = readFileSync(new URL('../../docs/library.md', import.meta.url), 'utf8')
    .split('\n')
    .find((line) => line.startsWith('| errors |'));
  if (row === undefined) throw new Error('docs/library.md has no errors row');
  return [...row.matchAll(/`(\w+Error)`/g)].map((match) => match[1] ?? '');
}

describe('hermes-ts exports every error class docs/library.md names', () => {
  const exported = library as unknown as Record<string, unknown>;

  it.each(documentedErrors())('%s is an Error class exported by name', (name) => {
    const value = exported[name];
    expect(typeof value).toBe('function');
    expect((value as { prototype: unknown }).prototype).toBeInstanceOf(Error);
  });

  it('a time limit is a ConnectionError a caller can tell apart', () => {
    const error = new library.TimeoutError('no bytes for 300 s (timeouts.idle)', { limit: 'idle', limitMs: 300_000 });
    expect(error).toBeInstanceOf(library.ConnectionError);
    expect([error.limit, error.limitMs]).toEqual(['idle', 300_000]);
    expect(error).toBeInstanceOf(library.HermesError);
    expect(error.name).toBe('TimeoutError');
  });
});
