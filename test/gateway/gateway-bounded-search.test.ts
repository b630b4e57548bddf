import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { postChatCompletion, useE2e } from '../support/e2e.js';
import { BUILTIN_TOOLS } from '../../src/tools/tool-registry.js';
import { createSearchFilesTool, SEARCH_LIMITS, searchFilesTool } from '../../src/tools/tool-search.js';
import type { Tool } from '../../src/tools/tool-types.js';
import { makeGatewaySandbox, startPersona, startTestGateway } from './gateway-test-helpers.js';

/**
 * A catastrophic search pattern cannot stall the gateway. Session A asks the emulator's scripted
 * model to "search for PATTERN in data" (lines of a…a!, where JavaScript's backtracking RegExp
 * spent minutes per line and blocked the whole process); once A's search has started, session B
 * sends a plain question and must be answered while A's turn is still open. A's turn is held
 * open after its search until B's answer arrived, so the order is a fact, not a race: on a
 * blocked event loop B could never be answered and the test would time out.
 */

const e2e = useE2e();

/** The real search_files (or `search`), reporting when it starts and holding its result until released. */
function observedSearch(search: Tool = searchFilesTool) {
  let started!: () => void;
  let release!: () => void;
  const whenStarted = new Promise<void>((resolve) => (started = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const tool: Tool = {
    ...searchFilesTool,
    run: async (args, context) => {
      const searching = search.run(args, context);
      started();
      const result = await searching;
      await released;
      return result;
    },
  };
  return { tool, whenStarted, release };
}

interface CompletionJson {
  choices: { message: { content: string } }[];
  hermes: { tool_calls: { name: string; arguments: string; result: string; is_error: boolean }[] };
}

describe('gateway: a ReDoS search in one session does not stall another', () => {
  it.each([
    { pattern: '(a|a)*$', result: /^data\/a\.txt:1: a{64}!\n/ },
    { pattern: '((a+))+$', result: /^no matches$/ },
    { pattern: '(?:a|a)+b', result: /^no matches$/ },
  ])('$pattern: session B is answered while A searches; A returns its result', async ({ pattern, result }) => {
    const { emulator, route } = await startPersona('deepseek');
    const sandbox = makeGatewaySandbox();
    mkdirSync(join(sandbox.workspace, 'data'));
    writeFileSync(
      join(sandbox.workspace, 'data', 'a.txt'),
      `${Array.from({ length: 200 }, () => `${'a'.repeat(64)}!`).join('\n')}\n`,
    );
    const search = observedSearch();
    const tools = BUILTIN_TOOLS.map((tool) => (tool.definition.name === 'search_files' ? search.tool : tool));
    const gateway = await startTestGateway(sandbox.dbPath, route, sandbox.workspace, { turn: { tools } });
    e2e.defer(async () => {
      await gateway.close();
      await emulator.close();
    });
    const post = (text: string) =>
      postChatCompletion(gateway.url, { model: 'm', messages: [{ role: 'user', content: text }] });

    const first = post(`search for ${pattern} in data`);
    await search.whenStarted;
    const second = await post('hello from session B');
    expect(second.status).toBe(200);
    const answerB = (await second.json()) as CompletionJson;
    expect(answerB.choices[0]?.message.content).toContain('You said: hello from session B');
    search.release();

    const answerA = (await (await first).json()) as CompletionJson;
    expect(answerA.hermes.tool_calls.map((call) => [call.name, JSON.parse(call.arguments), call.is_error])).toEqual([
      ['search_files', { pattern, path: 'data' }, false],
    ]);
    expect(answerA.hermes.tool_calls[0]?.result).toMatch(result);
    expect(answerB).not.toHaveProperty('hermes.tool_calls.0');
  });
});

describe('gateway: a search that is slow on every character does not hold the other requests', () => {
  it('GET /v1/models is answered while the search runs; the time limit ends the search', async () => {
    const { emulator, route } = await startPersona('deepseek');
    const sandbox = makeGatewaySandbox();
    mkdirSync(join(sandbox.workspace, 'data'));
    // One 2,000,000-character line (minutes in one synchronous match), then 200 lines of 10,000.
    writeFileSync(join(sandbox.workspace, 'data', 'a-long.txt'), `${'a'.repeat(2_000_000)}\n`);
    const line = 'a'.repeat(10_000);
    writeFileSync(
      join(sandbox.workspace, 'data', 'b-lines.txt'),
      `${Array.from({ length: 200 }, () => line).join('\n')}\n`,
    );
    let searchFinished = false;
    const limited = createSearchFilesTool({ ...SEARCH_LIMITS, timeLimitMs: 3_000 });
    const search = observedSearch({
      ...limited,
      run: async (args, context) => {
        try {
          return await limited.run(args, context);
        } finally {
          searchFinished = true;
        }
      },
    });
    const tools = BUILTIN_TOOLS.map((tool) => (tool.definition.name === 'search_files' ? search.tool : tool));
    const gateway = await startTestGateway(sandbox.dbPath, route, sandbox.workspace, { turn: { tools } });
    e2e.defer(async () => {
      await gateway.close();
      await emulator.close();
    });
    const pattern = '[\\p{L}\\p{N}]{1,1000}[\\p{Greek}]{1,1000}';
    const first = postChatCompletion(gateway.url, {
      model: 'm',
      messages: [{ role: 'user', content: `search for ${pattern} in data` }],
    });
    await search.whenStarted;
    const models = await fetch(`${gateway.url}/v1/models`);
    expect(models.status).toBe(200);
    // The other request was answered before the search's result: the search was still running.
    expect(searchFinished).toBe(false);
    search.release();
    const answer = (await (await first).json()) as CompletionJson;
    expect(answer.hermes.tool_calls[0]?.result).toMatch(
      /^error: search stopped at its 3 s time limit after \d+ files? without a match/,
    );
  });
});
