import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * `hermes-ts/replay` runs in a browser or an edge worker (docs/library.md): its module graph,
 * followed through every runtime import (type-only imports are erased), holds no Node built-in
 * and no package, and none of its modules reads `process` or calls the global `fetch`.
 */

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');
const IMPORT = /^\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/gm;

/** Runtime import specifiers of a module (skips `import type` / `export type` and all-type braces). */
function runtimeImports(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const [, , typeOnly, clause = '', specifier = ''] = match;
    if (typeOnly) continue;
    const names = /^\{([^}]*)\}$/s.exec(clause.trim());
    if (names?.[1] !== undefined) {
      const items = names[1]
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
      if (items.length > 0 && items.every((item) => item.startsWith('type '))) continue;
    }
    found.push(specifier);
  }
  for (const match of text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(match[1] ?? '');
  return found;
}

/** Every module the entry loads at run time, with its non-relative imports. */
function moduleGraph(entry: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (graph.has(file)) continue;
    const text = readFileSync(file, 'utf8');
    const bare: string[] = [];
    for (const specifier of runtimeImports(text)) {
      if (specifier.startsWith('.')) queue.push(join(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else bare.push(specifier);
    }
    graph.set(file, bare);
  }
  return graph;
}

describe('hermes-ts/replay entry purity (docs/library.md)', () => {
  const graph = moduleGraph(join(SRC, 'replay-api.ts'));

  it('reaches the encoders, not the transports that do I/O', () => {
    const files = [...graph.keys()].map((file) => relative(SRC, file));
    expect(files).toContain('transports/chat-completions/chat-completions-encode.ts');
    expect(files).toContain('transports/anthropic-messages/anthropic-messages-encode.ts');
    expect(files.filter((file) => file.endsWith('-transport.ts') || file.includes('storage/'))).toEqual([]);
  });

  it('imports no Node built-in and no package', () => {
    const outside = [...graph].flatMap(([file, bare]) =>
      bare.map((specifier) => `${relative(SRC, file)}: ${specifier}`),
    );
    expect(outside).toEqual([]);
  });

  it('reads no process and calls no global fetch', () => {
    const offenders = [...graph.keys()]
      .filter((file) =>
        /\bprocess\.|\bprocess\[|(?<![.\w])fetch\(/.test(
          readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''),
        ),
      )
      .map((file) => relative(SRC, file));
    expect(offenders).toEqual([]);
  });
});
