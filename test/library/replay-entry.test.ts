import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { WIRE_APIS } from '../../src/core/origin.js';
import { buildRequest, explainTable, lookupRoute, resolveRequestRoute } from '../../src/replay-api.js';
import { getTransport } from '../../src/transports/transport-table.js';
import { prepareRequest } from '../../src/transports/transport-prepare.js';
import { scaledTimeout } from '../support/timeouts.js';
import { toolCall } from '../support/messages.js';

/**
 * `hermes-ts/replay` (docs/library.md): `buildRequest` is what `hermes replay preview` prints
 * (`--json` the body, `--explain` the decision table), and the pure `prepareRequest` builds what
 * each transport's own `prepare` builds. SPEC §4 (must-echo pad), §23.3 (decisions).
 */

const BIN = resolve(process.cwd(), 'dist/cli.js');

const history: Message[] = [
  { role: 'user', content: 'list the files' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [toolCall('t1', 'list_directory', '{"path":"."}')],
  },
  { role: 'tool', tool_call_id: 't1', content: 'notes.txt' },
  { role: 'assistant', content: 'One file.', reasoning_content: 'the listing has one entry' },
  { role: 'user', content: 'thanks' },
];

function hermes(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...args], { timeout: scaledTimeout(30_000) }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('buildRequest', () => {
  it('pads a DeepSeek tool turn with " " (SPEC §4) and says so in the decisions', () => {
    const built = buildRequest({ messages: history, route: { provider: 'deepseek', model: 'deepseek-v4-flash' } });
    const messages = built.body['messages'] as Array<Record<string, unknown>>;
    expect(messages[1]?.['reasoning_content']).toBe(' ');
    expect(messages[3]?.['reasoning_content']).toBe('the listing has one entry');
    expect(built.decisions).toContainEqual(
      expect.objectContaining({ messageIndex: 1, field: 'reasoning_content', action: 'padded' }),
    );
    expect(built.routeKey).toBe('deepseek|api.deepseek.com|deepseek-v4-flash');
  });

  it('drops every carrier on a strict route and a rejected carrier on any route (SPEC §5, §13)', () => {
    const strict = buildRequest({ messages: history, route: { provider: 'mistral', model: 'magistral-medium' } });
    expect(JSON.stringify(strict.body)).not.toContain('reasoning_content');
    const rejected = buildRequest({
      messages: history,
      route: { provider: 'deepseek', model: 'deepseek-v4-flash' },
      rejected: ['reasoning_content'],
    });
    expect(JSON.stringify(rejected.body)).not.toContain('reasoning_content');
  });

  it("defaults the wire API to the provider's and refuses an unknown provider without a base URL", () => {
    expect(resolveRequestRoute({ provider: 'anthropic', model: 'claude-sonnet-4-5' }).api).toBe('anthropic_messages');
    expect(() => buildRequest({ messages: history, route: { provider: 'nope', model: 'm' } })).toThrow(
      /unknown provider "nope"/,
    );
    expect(lookupRoute({ provider: 'deepseek', model: 'deepseek-v4-flash' }).mustEchoFamily).not.toBeNull();
  });

  it(
    'is what `hermes replay preview --json` and `--explain` print',
    async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'hermes-library-')), 'history.json');
      writeFileSync(file, JSON.stringify(history));
      const args = ['replay', 'preview', '--history', file, '--provider', 'deepseek', '--model', 'deepseek-v4-flash'];
      const built = buildRequest({ messages: history, route: { provider: 'deepseek', model: 'deepseek-v4-flash' } });
      const json = await hermes([...args, '--json']);
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toEqual(built.body);
      const explain = await hermes([...args, '--explain']);
      // A header naming the route, its table row and must-echo comes first (SPEC §23.3).
      const [header, ...table] = explain.stdout.split('\n');
      expect(header).toMatch(/^route deepseek\|api\.deepseek\.com\|deepseek-v4-flash · chat_completions · table row: /);
      expect(table.join('\n')).toBe(`${explainTable(history, built.decisions)}\n`);
    },
    scaledTimeout(60_000),
  );
});

describe('prepareRequest equals each transport’s prepare', () => {
  const routes = {
    chat_completions: { provider: 'openrouter', model: 'anthropic/claude-sonnet-4.5' },
    anthropic_messages: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
    bedrock_converse: { provider: 'bedrock', model: 'anthropic.claude-sonnet-4-5-v1:0' },
    gemini: { provider: 'google', model: 'gemini-2.5-pro' },
    codex_responses: { provider: 'openai-responses', model: 'gpt-5' },
  } as const;
  for (const api of WIRE_APIS) {
    it(api, () => {
      const route = resolveRequestRoute({ ...routes[api], api });
      const request = { route, history, tools: [], reasoning: { enabled: true } };
      const { decisionsFrom: _ours, ...ours } = prepareRequest(request, process.env);
      const { decisionsFrom: _theirs, ...theirs } = getTransport(api).prepare(request);
      expect(ours).toEqual(theirs);
      expect(ours.body).not.toEqual({});
    });
  }
});
