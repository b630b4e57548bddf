import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson, runHermes, useE2e } from '../support/e2e.js';

/**
 * The system prompt of `hermes chat` through the built binary against each emulator: the first
 * request of a chat in a directory with an `AGENTS.md` carries it in the wire API's own system
 * place (chat `system` message, Anthropic `system`, Responses `instructions`, Gemini
 * `systemInstruction`, Converse `system`), and the resumed request carries the same bytes.
 */

interface Emulator {
  baseUrl: string;
  requests: { body: unknown }[];
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

/** Text of each text block/part of a list (`[{text}]`). */
function texts(list: unknown): string {
  return ((list as Json[] | undefined) ?? []).map((entry) => String(entry['text'] ?? '')).join('\n\n');
}

interface Api {
  name: string;
  start(): Promise<Emulator>;
  route(baseUrl: string): string[];
  env?: Record<string, string>;
  /** The system prompt as the request body carries it. */
  system(body: Json): string | undefined;
}

const APIS: Api[] = [
  {
    name: 'chat completions (system message)',
    start: () => e2e.chat({ persona: 'deepseek' }),
    route: (url) => ['--provider', 'deepseek', '--model', 'deepseek-v4-flash', '--base-url', url, '--api-key', 'x'],
    system: (body) => {
      const first = (body['messages'] as Json[])[0];
      return first?.['role'] === 'system' ? String(first['content']) : undefined;
    },
  },
  {
    name: 'Anthropic Messages (system)',
    start: () => e2e.anthropic(),
    route: (url) => ['--provider', 'anthropic', '--model', 'claude-opus-4-8', '--base-url', url, '--api-key', 'x'],
    system: (body) => (typeof body['system'] === 'string' ? body['system'] : texts(body['system']) || undefined),
  },
  {
    name: 'Responses (instructions)',
    start: () => e2e.responses(),
    route: (url) => [
      ...['--provider', 'openai-responses', '--api', 'codex_responses', '--model', 'gpt-5.4'],
      ...['--base-url', url, '--api-key', 'x'],
    ],
    system: (body) => body['instructions'] as string | undefined,
  },
  {
    name: 'Gemini (systemInstruction)',
    start: () => e2e.gemini(),
    route: (url) => [
      ...['--provider', 'google', '--api', 'gemini', '--model', 'gemini-3-pro-preview'],
      ...['--base-url', url, '--api-key', 'x'],
    ],
    system: (body) => texts((body['systemInstruction'] as Json | undefined)?.['parts']) || undefined,
  },
  {
    name: 'Bedrock Converse (system)',
    start: () => e2e.bedrock(),
    route: (url) => [
      '--provider',
      'bedrock',
      '--model',
      'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      '--base-url',
      url,
    ],
    env: { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' },
    system: (body) => texts(body['system']) || undefined,
  },
];

const e2e = useE2e();

const AGENTS = '# Project rules\nAlways answer in haiku. Tests run with `make check`.\n';

describe('hermes chat system prompt on every wire API', () => {
  for (const api of APIS) {
    it(`${api.name}: AGENTS.md in the first request, the same bytes after --resume`, async () => {
      const emulator = await api.start();
      const sandbox = e2e.sandbox();
      writeFileSync(join(sandbox.workspace, 'AGENTS.md'), AGENTS);
      const route = api.route(emulator.baseUrl);
      const first = await runHermes(['chat', '-q', 'hello there', '--json', ...route], sandbox, api.env);
      expect(first.code, first.stderr).toBe(0);
      const sessionId = parseJson<{ session_id: string }>(first).session_id;
      const sent = api.system(emulator.requests[0]?.body as Json);
      expect(sent).toContain(`Project instructions from ${join(sandbox.workspace, 'AGENTS.md')}:`);
      expect(sent).toContain('Always answer in haiku. Tests run with `make check`.');
      expect(sent).toContain(`Working directory: ${sandbox.workspace}`);
      expect(sent).toContain('Git repository: no');

      // Changed instructions do not reach a resumed session: it keeps the prompt it stored.
      writeFileSync(join(sandbox.workspace, 'AGENTS.md'), 'Different rules now.\n');
      const before = emulator.requests.length;
      const resumed = await runHermes(
        ['chat', '--resume', sessionId, '-q', 'and again', '--json', ...route],
        sandbox,
        api.env,
      );
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(api.system(emulator.requests[before]?.body as Json)).toBe(sent);

      const shown = parseJson<{ messages: { role: string; content: string }[] }>(
        await runHermes(['sessions', 'show', sessionId, '--json'], sandbox),
      );
      expect(shown.messages[0]).toMatchObject({ role: 'system', content: sent });
      const plain = await runHermes(['sessions', 'show', sessionId], sandbox);
      expect(plain.stdout).toMatch(/ {3}0 system {4}You are Hermes/);
    });
  }

  it('in a git repository: branch and dirty state, instruction files from the root down, config replaces and appends', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const sandbox = e2e.sandbox();
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: sandbox.workspace });
    git('init', '-q', '-b', 'feature-x');
    writeFileSync(join(sandbox.workspace, 'HERMES.md'), 'root rules\n');
    git('add', '.');
    git('commit', '-q', '-m', 'init');
    const sub = join(sandbox.workspace, 'pkg');
    mkdirSync(sub);
    writeFileSync(join(sub, 'CLAUDE.md'), 'package rules\n');
    writeFileSync(
      join(sandbox.home, 'config.yaml'),
      'system_prompt: "You are a test agent."\ninstructions: "Reply in French."\n',
    );
    const route = ['--provider', 'deepseek', '--model', 'deepseek-v4-flash', '--base-url', emulator.baseUrl];
    const run = await runHermes(['chat', '-q', 'hello', '--json', ...route, '--api-key', 'x'], {
      ...sandbox,
      workspace: sub,
    });
    expect(run.code, run.stderr).toBe(0);
    const system = String(((emulator.requests[0]?.body as Json)['messages'] as Json[])[0]?.['content']);
    expect(system.startsWith('You are a test agent.\n\n')).toBe(true);
    expect(system).not.toContain('You are Hermes');
    expect(system).toContain(`Git repository: yes (root ${sandbox.workspace}; branch feature-x; uncommitted changes)`);
    const root = system.indexOf(`Project instructions from ${join(sandbox.workspace, 'HERMES.md')}:`);
    const pkg = system.indexOf(`Project instructions from ${join(sub, 'CLAUDE.md')}:`);
    expect(root).toBeGreaterThan(0);
    expect(pkg).toBeGreaterThan(root);
    expect(system.trimEnd().endsWith('Reply in French.')).toBe(true);
  });
});
