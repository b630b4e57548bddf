import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import {
  IDENTIFIER_HEADING,
  IDENTIFIER_LIMITS,
  identifierCount,
  identifierIndex,
  identifiersOf,
  renderIdentifierIndex,
} from '../../src/runtime/compaction-identifiers.js';
import { longSession, PLANTED_IDENTIFIERS } from '../support/long-session.js';

/** The identifier index of a compaction summary (SPEC §26.6: identifiers kept verbatim). */

describe('identifiersOf', () => {
  it('finds paths, commits, issues, URLs and error lines, each once and verbatim', () => {
    const found = identifiersOf(
      [
        'Edit src/runtime/compaction-plan.ts and ./scripts/run.sh, then ~/notes/todo.md; package.json too.',
        'See https://github.com/acme/hermes/pull/12, issue #4711, acme/hermes#88 and PR 90.',
        'HEAD is at 9f3c2a7 (was 1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b).',
        "TypeError: Cannot read properties of undefined (reading 'x')",
        'npm test exited: ENOENT: no such file or directory, open "/tmp/x.json"',
        'error TS2345: Argument of type string is not assignable.',
        'C:\\Users\\me\\project\\main.py and/or 1/2 and 2024 are not paths; deadbeefcafe is not a commit',
      ].join('\n'),
    );
    expect([...found.paths].sort()).toEqual(
      [
        'src/runtime/compaction-plan.ts',
        './scripts/run.sh',
        '~/notes/todo.md',
        'C:\\Users\\me\\project\\main.py',
        'package.json',
        '/tmp/x.json',
      ].sort(),
    );
    expect(found.paths).not.toContain('and/or');
    expect(found.paths).not.toContain('1/2');
    expect(found.urls).toEqual(['https://github.com/acme/hermes/pull/12']);
    expect(found.issues).toEqual(expect.arrayContaining(['issue #4711', 'acme/hermes#88', 'PR 90']));
    expect(found.commits).toEqual(['9f3c2a7', '1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b']);
    expect(found.errors).toEqual([
      "TypeError: Cannot read properties of undefined (reading 'x')",
      'ENOENT: no such file or directory, open "/tmp/x.json"',
      'error TS2345: Argument of type string is not assignable.',
    ]);
  });
});

describe('identifierIndex', () => {
  it('takes what the turns said and did, never their reasoning', () => {
    const messages: Message[] = [
      { role: 'user', content: 'open docs/a.md' },
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'secret/plan.md is in my reasoning only',
        reasoning: 'secret/plan.md is in my reasoning only',
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'read_file', arguments: '{"path":"docs/b.md"}' } }],
      },
      { role: 'tool', tool_call_id: 'c', content: 'see docs/c.md' },
    ];
    const index = identifierIndex(messages);
    expect(index.paths).toEqual(['docs/a.md', 'docs/b.md', 'docs/c.md']);
  });

  it('finds every identifier planted in a long session, in order, and renders them under one heading', () => {
    const index = identifierIndex(longSession({ turns: 6, resultTokens: 200, plantInTurn: 3 }));
    const rendered = renderIdentifierIndex(index);
    expect(rendered.startsWith(IDENTIFIER_HEADING)).toBe(true);
    for (const identifier of PLANTED_IDENTIFIERS) expect(rendered).toContain(identifier);
  });

  it('is deduplicated and bounded per kind, keeping the newest when it must cut', () => {
    const messages: Message[] = [];
    for (let index = 0; index < 200; index += 1) {
      messages.push({ role: 'user', content: `look at src/file-${index}.ts and src/file-${index}.ts again` });
    }
    const index = identifierIndex(messages);
    expect(index.paths).toHaveLength(IDENTIFIER_LIMITS.paths);
    expect(new Set(index.paths).size).toBe(index.paths.length);
    expect(index.paths[index.paths.length - 1]).toBe('src/file-199.ts');
    expect(index.paths[0]).toBe(`src/file-${200 - IDENTIFIER_LIMITS.paths}.ts`);
    expect(identifierCount(index)).toBe(IDENTIFIER_LIMITS.paths);
  });

  it('renders nothing when nothing was found', () => {
    expect(renderIdentifierIndex(identifierIndex([{ role: 'user', content: 'hello there' }]))).toBe('');
  });
});
