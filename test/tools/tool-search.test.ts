import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { executeToolCall } from '../../src/tools/tool-registry.js';
import { createSearchFilesTool, SEARCH_LIMITS, type SearchLimits } from '../../src/tools/tool-search.js';

/**
 * `search_files` is bounded: RE2 (linear time) instead of a backtracking engine, a time limit,
 * a match cap, and the turn's abort signal. The three patterns below took minutes per search
 * with JavaScript's RegExp on lines of a…a! and could not be interrupted.
 */

let workspace: string;
const deny = async () => false;
const REDOS_LINE = `${'a'.repeat(64)}!`;

beforeEach(() => {
  workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-search-')));
  mkdirSync(join(workspace, 'data'));
  writeFileSync(join(workspace, 'data', 'a.txt'), `${Array.from({ length: 100 }, () => REDOS_LINE).join('\n')}\n`);
  writeFileSync(join(workspace, 'notes.txt'), 'Alpha beta\ngamma\n');
});

const search = (args: Record<string, unknown>) =>
  executeToolCall('search_files', JSON.stringify(args), { workspace, approve: deny });

function withLimits(limits: Partial<SearchLimits>, args: Record<string, unknown>, signal?: AbortSignal) {
  const tool = createSearchFilesTool({ ...SEARCH_LIMITS, ...limits });
  return executeToolCall('search_files', JSON.stringify(args), { workspace, approve: deny, tools: [tool], signal });
}

describe('search_files: catastrophic patterns', () => {
  it('(a|a)*$ matches every line (an empty match at the end), within the tool limits', async () => {
    const outcome = await search({ pattern: '(a|a)*$', path: 'data' });
    expect(outcome.isError).toBe(false);
    const lines = outcome.content.split('\n');
    expect(lines).toHaveLength(101);
    expect(lines[0]).toBe(`data/a.txt:1: ${REDOS_LINE}`);
    expect(lines[100]).toBe('data/a.txt:101: ');
  });

  it.each(['((a+))+$', '(?:a|a)+b'])('%s finds no match, within the tool limits', async (pattern) => {
    expect(await search({ pattern, path: 'data' })).toEqual({ content: 'no matches', isError: false });
  });
});

describe('search_files: limits', () => {
  it('past its time limit without a match it is a clear "pattern too slow" tool error', async () => {
    // A tree no search finishes within the first turn of the event loop, so the timer always fires first.
    mkdirSync(join(workspace, 'tree'));
    for (let index = 0; index < 400; index += 1) writeFileSync(join(workspace, 'tree', `${index}.txt`), 'a line\n');
    const outcome = await withLimits({ timeLimitMs: 0 }, { pattern: 'zzz', path: 'tree' });
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toMatch(
      /^error: search stopped at its 0 s time limit after \d+ files? without a match \(pattern too slow or tree too large\): narrow the path or simplify the pattern$/,
    );
  });

  it('stops at its match cap and says so', async () => {
    const outcome = await withLimits({ maxMatches: 3 }, { pattern: 'a!$', path: 'data' });
    expect(outcome.content.split('\n')).toEqual([
      `data/a.txt:1: ${REDOS_LINE}`,
      `data/a.txt:2: ${REDOS_LINE}`,
      `data/a.txt:3: ${REDOS_LINE}`,
      '[stopped at 3 matches; narrow the path or pattern for the rest]',
    ]);
  });
});

/** The large-NFA pattern (~4,000 RE2 instructions, ~0.1 ms per character) and a line it is slow on. */
const HUGE_PROGRAM = '[\\p{L}\\p{N}]{1,1000}[\\p{Greek}]{1,1000}';

describe('search_files: a pattern that is slow on every character', () => {
  it('matches a 2,000,000-character line on a capped prefix, in a worker: the event loop turns meanwhile', async () => {
    writeFileSync(join(workspace, 'data', 'long.txt'), `${'a'.repeat(2_000_000)}\n`);
    let turns = 0;
    let searching = true;
    const count = () => {
      turns += 1;
      if (searching) setImmediate(count);
    };
    setImmediate(count);
    const outcome = await search({ pattern: HUGE_PROGRAM, path: 'data/long.txt' });
    searching = false;
    expect(outcome).toEqual({
      content:
        'no matches\n[1 line was longer than this pattern may match per line: matched on their first 10000 characters]',
      isError: false,
    });
    // The main thread was never held by the match (on one thread it is minutes in one call).
    expect(turns).toBeGreaterThan(1);
  });

  it('the time limit terminates the worker mid-match and the search says so', async () => {
    const line = 'a'.repeat(10_000);
    writeFileSync(join(workspace, 'data', 'slow.txt'), `${Array.from({ length: 200 }, () => line).join('\n')}\n`);
    const outcome = await withLimits({ timeLimitMs: 300 }, { pattern: HUGE_PROGRAM, path: 'data/slow.txt' });
    expect(outcome).toEqual({
      content:
        'error: search stopped at its 0.3 s time limit after 0 files without a match (pattern too slow or tree ' +
        'too large): narrow the path or simplify the pattern',
      isError: true,
    });
  });

  it('an aborted turn (Ctrl-C) terminates the worker mid-match with a tool error', async () => {
    writeFileSync(join(workspace, 'data', 'long.txt'), `${'a'.repeat(2_000_000)}\n`);
    const controller = new AbortController();
    const running = withLimits({ lineWork: 1e12 }, { pattern: HUGE_PROGRAM, path: 'data/long.txt' }, controller.signal);
    setImmediate(() => controller.abort());
    expect(await running).toEqual({ content: 'error: search_files was interrupted by the user', isError: true });
  });
});

describe('search_files: syntax and scope', () => {
  it('an unsupported construct is a tool error naming RE2', async () => {
    const outcome = await search({ pattern: '(?=a)b' });
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toMatch(/^error: invalid pattern: .*\(\?=.*RE2 syntax, as in ripgrep/);
  });

  it('ignore_case, and a file as the path', async () => {
    expect(await search({ pattern: 'alpha', path: 'notes.txt' })).toEqual({ content: 'no matches', isError: false });
    expect(await search({ pattern: 'alpha', path: 'notes.txt', ignore_case: true })).toEqual({
      content: 'notes.txt:1: Alpha beta',
      isError: false,
    });
  });

  it('skips binary files and files over the size cap', async () => {
    writeFileSync(join(workspace, 'binary.bin'), 'gamma\0gamma\n');
    writeFileSync(join(workspace, 'big.txt'), `gamma\n${'x'.repeat(2000)}\n`);
    const outcome = await withLimits({ maxFileBytes: 1000 }, { pattern: 'gamma' });
    expect(outcome).toEqual({ content: 'notes.txt:2: gamma', isError: false });
  });

  it('an unknown path and an empty pattern are tool errors', async () => {
    expect(await search({ pattern: 'a', path: 'missing' })).toEqual({
      content: 'error: no such path: missing',
      isError: true,
    });
    expect(await search({ pattern: '' })).toEqual({ content: 'error: pattern is empty', isError: true });
  });
});
