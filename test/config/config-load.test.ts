import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/config-load.js';
import { UsageError } from '../../src/core/errors.js';

describe('config.yaml (SPEC §20, §23.4)', () => {
  it('reads provider, model, reasoning, echo opt-in and route overrides', () => {
    const config = parseConfigText(`
provider: deepseek
model: deepseek-v4-flash
reasoning: { enabled: true, effort: high }
reasoning_echo: true
routes:
  - providers: [acme]
    carriers: [reasoning]
    must_echo: false
compaction: { context_window: 8000, keep_turns: 4 }
`);
    expect(config.provider).toBe('deepseek');
    expect(config.model).toBe('deepseek-v4-flash');
    expect(config.reasoning).toEqual({ enabled: true, effort: 'high' });
    expect(config.reasoningEcho).toBe(true);
    expect(config.routes).toEqual([{ providers: ['acme'], carriers: ['reasoning'], mustEcho: false }]);
    expect(config.compaction).toEqual({
      threshold: 0.8,
      keepTurns: 4,
      contextWindow: 8000,
      inPlace: true,
      tail: 'lean',
      minTailUserMessages: 3,
    });
  });

  it('reads reasoning_overrides per model, with only the keys each entry sets', () => {
    const config = parseConfigText(`
reasoning: { effort: high }
reasoning_overrides:
  deepseek-v4-pro: { effort: max }
  gpt-5.4-mini: { enabled: false }
  claude-opus-5: { effort: xhigh, budget_tokens: 20000 }
`);
    expect(config.reasoningOverrides).toEqual({
      'deepseek-v4-pro': { effort: 'max' },
      'gpt-5.4-mini': { enabled: false },
      'claude-opus-5': { effort: 'xhigh', budgetTokens: 20000 },
    });
    expect(parseConfigText('provider: deepseek\n').reasoningOverrides).toEqual({});
  });

  it('accepts model as an object with reasoning_echo (SPEC §20 model.reasoning_echo)', () => {
    const config = parseConfigText('model: { name: kimi-k2.6, provider: kimi, reasoning_echo: true }\n');
    expect(config).toMatchObject({ model: 'kimi-k2.6', provider: 'kimi', reasoningEcho: true });
  });

  it.each([
    ['provdier: x\n', 'config.yaml: unknown key "provdier"'],
    ['reasoning: { effort: extreme }\n', 'config.yaml: reasoning.effort:'],
    ['reasoning_overrides: { m: { effort: extreme } }\n', 'config.yaml: reasoning_overrides.m.effort:'],
    ['reasoning_overrides: [high]\n', 'config.yaml: reasoning_overrides:'],
    ['routes: [{ providers: [a], carriers: [reasoning_text] }]\n', 'config.yaml: routes.0.carriers.0:'],
    ['routes: [{ carriers: [reasoning] }]\n', 'a route row needs at least one of providers or hosts'],
    ['model: [1, 2\n', 'config.yaml: not valid YAML'],
  ])('a bad config names the bad key: %j', (text, expected) => {
    expect(() => parseConfigText(text)).toThrow(expected);
  });

  it.each([
    [
      'provider: deepseek\nmodel: "x": y\n',
      'config.yaml: not valid YAML at line 2, column 8: Nested mappings are not allowed in compact mappings (line 2: "model: \\"x\\": y")',
    ],
    ['key: "unterminated\n', 'config.yaml: not valid YAML at line 2, column 1: Missing closing "quote'],
  ])('a YAML syntax error is one line with its line, column and whole message: %j', (text, expected) => {
    expect(() => parseConfigText(text)).toThrow(expected);
    expect(() => parseConfigText(text)).not.toThrow(/:$/);
  });

  it.each([
    [
      'provdier: x\n',
      'config.yaml: unknown key "provdier" (check the spelling; known keys here: provider, model, base_url, api, reasoning, reasoning_overrides, reasoning_echo, routes, compaction, max_iterations, storage, timeouts, gateway, system_prompt, instructions, mcp_servers)',
    ],
    [
      'model: { nme: x }\n',
      'config.yaml: model: unknown key "nme" (check the spelling; known keys here: name, provider, base_url, reasoning_echo)',
    ],
    [
      'reasoning_overrides: { gpt-5.4: { efort: high } }\n',
      'config.yaml: reasoning_overrides.gpt-5.4: unknown key "efort" (check the spelling; known keys here: enabled, effort, budget_tokens)',
    ],
    [
      'routes: [{ providers: [a], carriers: [reasoning], mustecho: true }]\n',
      'config.yaml: routes.0: unknown key "mustecho" (check the spelling; known keys here: providers, hosts, carriers, must_echo, keep_thinking)',
    ],
    [
      'mcp_servers:\n  fx: { command: node, argz: [a] }\n',
      'config.yaml: mcp_servers.fx: unknown key "argz" (check the spelling; known keys here: command, args, env, cwd, url, headers, trust, enabled, startup_timeout, tool_timeout, tools)',
    ],
  ])('an unknown key lists the keys accepted there: %j', (text, expected) => {
    expect(() => parseConfigText(text)).toThrow(new UsageError(expected));
  });

  it('timeouts are seconds in the file and milliseconds in the config; absent ones keep the defaults', () => {
    expect(parseConfigText('timeouts:\n  idle: 0.5\n  total: 120\n').timeouts).toEqual({
      firstByte: 600_000,
      idle: 500,
      total: 120_000,
    });
    expect(() => parseConfigText('timeouts:\n  connect: 5\n')).toThrow(/timeouts: unknown key "connect"/);
  });
  it.each([
    [
      'mcp_servers:\n  x: { command: node, url: "http://127.0.0.1:1/mcp" }\n',
      'config.yaml: mcp_servers.x: give either command (stdio) or url (Streamable HTTP), not both',
    ],
    [
      'mcp_servers:\n  x: { trust: true }\n',
      'config.yaml: mcp_servers.x: needs command (a stdio server) or url (a Streamable HTTP server)',
    ],
    [
      'mcp_servers:\n  x: { url: "http://a/mcp", env: { A: b } }\n',
      'config.yaml: mcp_servers.x: env apply to stdio servers, not to url',
    ],
    [
      'mcp_servers:\n  x: { command: node, headers: { A: b } }\n',
      'config.yaml: mcp_servers.x: headers apply to url servers, not to command',
    ],
    ['mcp_servers:\n  x: { url: "ftp://a" }\n', 'config.yaml: mcp_servers.x.url: Invalid URL'],
    [
      'mcp_servers:\n  "a b": { command: node }\n',
      'config.yaml: mcp_servers.a b: an MCP server name is 1-32 letters, digits, "_" or "-"',
    ],
  ])('a bad mcp_servers entry is one line naming it: %j', (text, expected) => {
    expect(() => parseConfigText(text)).toThrow(new UsageError(expected));
  });

  it('mcp_servers become stdio and Streamable HTTP settings (seconds in the file, milliseconds here)', () => {
    const config = parseConfigText(`
mcp_servers:
  files: { command: npx, args: [-y, server-filesystem], env: { LOG: debug }, tool_timeout: 5 }
  search: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer \${TOKEN}" }, trust: true, startup_timeout: 2.5 }
  github: { enabled: false }
`);
    expect(config.mcpServers).toEqual([
      {
        name: 'files',
        source: 'config.yaml',
        enabled: true,
        trust: false,
        startupTimeoutMs: 30_000,
        toolTimeoutMs: 5_000,
        connection: { transport: 'stdio', command: 'npx', args: ['-y', 'server-filesystem'], env: { LOG: 'debug' } },
      },
      {
        name: 'search',
        source: 'config.yaml',
        enabled: true,
        trust: true,
        startupTimeoutMs: 2_500,
        toolTimeoutMs: 60_000,
        connection: {
          transport: 'http',
          url: 'https://mcp.example.com/mcp',
          headers: { Authorization: 'Bearer ${TOKEN}' },
        },
      },
      {
        name: 'github',
        source: 'config.yaml',
        enabled: false,
        trust: false,
        startupTimeoutMs: 30_000,
        toolTimeoutMs: 60_000,
        connection: null,
      },
    ]);
  });
});
