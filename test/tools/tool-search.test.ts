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
    const outcome = await withLimits({ timeLimitMs: 0 }, { pattern: 'zzz' });
    expect(outcome).toEqual({
      content:
        'error: search stopped at its 0 s time limit after 1 file without a match (pattern too slow or tree too ' +
        'large): narrow the path or simplify the pattern',
      isError: true,
    });
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

  it('yields to the event loop while matching, so Ctrl-C and other sessions are served', async () => {
    let turns = 0;
    let searching = true;
    const count = () => {
      turns += 1;
      if (searching) setImmediate(count);
    };
    setImmediate(count);
    const outcome = await withLimits({ sliceMs: 0 }, { pattern: 'b', path: 'data' });
    searching = false;
    expect(outcome).toEqual({ content: 'no matches', isError: false });
    // One yield per line at least: the 101 lines of data/a.txt.
    expect(turns).toBeGreaterThan(100);
  });

  it('an aborted turn (Ctrl-C) stops the search with a tool error', async () => {
    const controller = new AbortController();
    let turns = 0;
    const abortSoon = () => {
      turns += 1;
      if (turns === 20) controller.abort();
      else setImmediate(abortSoon);
    };
    setImmediate(abortSoon);
    const outcome = await withLimits({ sliceMs: 0 }, { pattern: 'b', path: 'data' }, controller.signal);
    expect(outcome).toEqual({ content: 'error: search_files was interrupted by the user', isError: true });
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
