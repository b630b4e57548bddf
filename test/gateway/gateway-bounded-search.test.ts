import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { postChatCompletion, useE2e } from '../support/e2e.js';
import { BUILTIN_TOOLS } from '../../src/tools/tool-registry.js';
import { searchFilesTool } from '../../src/tools/tool-search.js';
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

/** The real search_files, reporting when it starts and holding its result until released. */
function observedSearch() {
  let started!: () => void;
  let release!: () => void;
  const whenStarted = new Promise<void>((resolve) => (started = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const tool: Tool = {
    ...searchFilesTool,
    run: async (args, context) => {
      const searching = searchFilesTool.run(args, context);
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
