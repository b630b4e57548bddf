import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startAnthropicEmulator } from '../../src/emulators/anthropic-messages/anthropic-emulator.js';
import { startBedrockEmulator } from '../../src/emulators/bedrock-converse/bedrock-converse-emulator.js';
import type { ReceivedRequest } from '../../src/emulators/shared/emulator-request-log.js';
import { chatJson, parseJson, runHermes, useE2e } from '../support/e2e.js';
import { toolCall } from '../support/messages.js';

/**
 * `hermes replay preview --api anthropic_messages` and
 * `--api bedrock_converse` print the exact body the next turn sends. A stored session is exported
 * with `hermes sessions export` (its `{"hermes_session": …}` header line is accepted by
 * `--history`), the next user message is appended, and the preview is compared with the body the
 * emulator received when the same turn ran through `hermes chat --resume`.
 *
 * Not deterministic from a history file: the tool list. A `--history` file carries messages only,
 * so the preview has no `tools` (Anthropic) / `toolConfig` (Converse); everything else, in the same
 * key order, is byte-equal. The bodies hold no timestamps, request ids or random fields.
 */

interface Running {
  baseUrl: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

interface PreviewCase {
  api: 'anthropic_messages' | 'bedrock_converse';
  start: () => Promise<Running>;
  /** Route flags for the emulator; the API key is passed only to `chat`. */
  route: (baseUrl: string) => string[];
  chatOnly: string[];
  /** Body key the preview cannot know from a history file. */
  toolsKey: string;
}

const AWS_ENV = { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' };

const CASES: PreviewCase[] = [
  {
    api: 'anthropic_messages',
    start: () => startAnthropicEmulator(),
    route: (baseUrl) => ['--provider', 'anthropic', '--model', 'claude-opus-4-8', '--base-url', baseUrl],
    chatOnly: ['--api-key', 'x'],
    toolsKey: 'tools',
  },
  {
    api: 'bedrock_converse',
    start: () => startBedrockEmulator(),
    route: (baseUrl) => [
      '--provider',
      'bedrock',
      '--model',
      'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      '--base-url',
      baseUrl,
    ],
    chatOnly: [],
    toolsKey: 'toolConfig',
  },
];

const e2e = useE2e();

describe('hermes replay preview equals the next turn', () => {
  it.each(CASES)(
    '--api $api: the preview of an exported session plus the next user message is the body the emulator receives',
    async (testCase) => {
      const running = await testCase.start();
      e2e.defer(() => running.close());
      const sandbox = e2e.sandbox();
      const route = testCase.route(running.baseUrl);
      const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route, ...testCase.chatOnly], AWS_ENV);
      const exported = await runHermes(['sessions', 'export', first.session_id], sandbox);
      expect(exported.code).toBe(0);
      expect(Object.keys(JSON.parse(exported.stdout.split('\n')[0] ?? '{}') as object)).toEqual(['hermes_session']);
      const historyFile = join(sandbox.workspace, 'history.jsonl');
      writeFileSync(historyFile, `${exported.stdout}${JSON.stringify({ role: 'user', content: 'thanks' })}\n`);

      const preview = await runHermes(
        ['replay', 'preview', '--history', historyFile, ...route, '--api', testCase.api, '--json'],
        sandbox,
        AWS_ENV,
      );
      expect(preview.code, preview.stderr).toBe(0);
      const previewBody = parseJson(preview);

      const before = running.requests.length;
      await chatJson(sandbox, ['--resume', first.session_id, '-q', 'thanks', ...route, ...testCase.chatOnly], AWS_ENV);
      const received = running.requests[before];
      expect(received?.status).toBe(200);
      const { [testCase.toolsKey]: tools, ...withoutTools } = received?.body as Record<string, unknown>;
      expect(tools).toBeDefined();
      expect(previewBody).toEqual(withoutTools);
      // Same key order and value bytes, not only deep equality.
      expect(JSON.stringify(previewBody)).toBe(JSON.stringify(withoutTools));
    },
  );
});

describe('hermes replay preview: an in-flight tool-call turn without thinking (WIRE.md §2.6a)', () => {
  it('the body goes with thinking off, and --explain says why', async () => {
    const sandbox = e2e.sandbox();
    const historyFile = join(sandbox.workspace, 'loop.jsonl');
    const history = [
      { role: 'user', content: 'read the file notes.txt' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [toolCall('toolu_1', 'read_file', '{"path":"notes.txt"}')],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'alpha beta\n' },
    ];
    writeFileSync(historyFile, history.map((message) => JSON.stringify(message)).join('\n'));
    const route = ['--history', historyFile, '--provider', 'anthropic', '--model', 'claude-opus-4-8'];
    const preview = await runHermes(['replay', 'preview', ...route, '--api', 'anthropic_messages', '--json'], sandbox);
    expect(parseJson(preview)).toEqual({
      model: 'claude-opus-4-8',
      max_tokens: 16384,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'read the file notes.txt' }] },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'notes.txt' } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'alpha beta\n' }] },
      ],
      stream: true,
    });
    const explained = await runHermes(
      ['replay', 'preview', ...route, '--api', 'anthropic_messages', '--explain'],
      sandbox,
    );
    expect(explained.stdout).toContain(
      'dropped thinking (thinking off for this request: the in-flight tool-call turn has no valid thinking block)',
    );
  });
});
