import { describe, expect, it } from 'vitest';
import { expandConnection, expandValue } from '../../src/mcp/mcp-expand.js';
import { parseProjectMcpFile } from '../../src/mcp/mcp-project-file.js';
import { mcpToolName, resultText } from '../../src/mcp/mcp-tools.js';

describe('.mcp.json in Claude Code’s project format', () => {
  it('reads stdio and http servers as written; unknown keys are left to the tools that use them', () => {
    const file = parseProjectMcpFile(
      JSON.stringify({
        mcpServers: {
          files: { command: 'npx', args: ['-y', 'server-filesystem', '.'], env: { LOG: '1' }, note: 'ignored' },
          search: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
          plain: { url: 'http://127.0.0.1:9/mcp' },
        },
      }),
    );
    expect(file.error).toBeUndefined();
    expect(file.unusable).toEqual([]);
    expect(file.servers.map((server) => [server.name, server.source, server.trust, server.connection])).toEqual([
      [
        'files',
        '.mcp.json',
        false,
        { transport: 'stdio', command: 'npx', args: ['-y', 'server-filesystem', '.'], env: { LOG: '1' } },
      ],
      [
        'search',
        '.mcp.json',
        false,
        { transport: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
      ],
      ['plain', '.mcp.json', false, { transport: 'http', url: 'http://127.0.0.1:9/mcp', headers: {} }],
    ]);
  });

  it.each([
    [
      { old: { type: 'sse', url: 'http://x/sse' } },
      'type "sse" (the deprecated HTTP+SSE transport) is not supported: use "http"',
    ],
    [{ bad: { command: '' } }, '"command" must be a non-empty string'],
    [{ bad: { command: 'x', args: [1] } }, '"args" must be a list of strings'],
    [{ bad: { command: 'x', env: { A: 1 } } }, '"env" must be an object of strings'],
    [{ bad: { type: 'ws', url: 'ws://x' } }, 'unknown "type" "ws" (expected "stdio" or "http")'],
    [{ 'has space': { command: 'x' } }, 'an MCP server name is 1-32 letters, digits, "_" or "-"'],
  ])('an entry Hermes cannot use fails alone, with why: %j', (servers, reason) => {
    const file = parseProjectMcpFile(JSON.stringify({ mcpServers: { ...servers, good: { command: 'ok' } } }));
    expect(file.unusable.map((entry) => entry.reason)).toEqual([reason]);
    expect(file.servers.map((server) => server.name)).toEqual(['good']);
  });

  it.each([
    ['{ not json', /^\.mcp\.json: not valid JSON: /],
    ['{"mcpServers": []}', /^\.mcp\.json: "mcpServers" must be an object of servers by name$/],
  ])('a file that is not a .mcp.json is one line: %j', (text, expected) => {
    const file = parseProjectMcpFile(text);
    expect(file.error).toMatch(expected);
    expect(file.servers).toEqual([]);
  });
});

describe('${VAR} expansion (as Claude Code expands .mcp.json)', () => {
  const env = { TOKEN: 's3cret', EMPTY: '' };
  it.each([
    ['Bearer ${TOKEN}', 'Bearer s3cret'],
    ['${MISSING:-fallback}', 'fallback'],
    ['${EMPTY:-fallback}', 'fallback'],
    ['no references', 'no references'],
    ['$TOKEN stays', '$TOKEN stays'],
  ])('%j → %j', (text, expected) => {
    expect(expandValue(text, env)).toBe(expected);
  });

  it('an unset variable without a default names the variable, never a value', () => {
    expect(() =>
      expandConnection(
        { transport: 'http', url: 'https://x/mcp', headers: { Authorization: 'Bearer ${MISSING}' } },
        env,
      ),
    ).toThrow('environment variable MISSING is not set (referenced as ${MISSING})');
  });
});

describe('MCP tool names and results', () => {
  it.each([
    ['github', 'create_issue', 'mcp__github__create_issue'],
    ['docs', 'search.v2', 'mcp__docs__search_v2'],
    ['s', 'x'.repeat(80), `mcp__s__${'x'.repeat(56)}`],
  ])('%s / %s → %s (what every provider API accepts)', (server, tool, expected) => {
    expect(mcpToolName(server, tool)).toBe(expected);
    expect(mcpToolName(server, tool)).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });

  it('renders text as is, binary blocks as one line each, structured content when there is no text', () => {
    expect(
      resultText({
        content: [
          { type: 'text', text: 'first' },
          { type: 'image', mimeType: 'image/png', data: 'AAAA' },
          { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inline text' } },
          { type: 'resource', resource: { uri: 'file:///b.bin', mimeType: 'application/octet-stream', blob: 'AA==' } },
          { type: 'resource_link', uri: 'file:///c', name: 'c' },
        ],
      }),
    ).toBe(
      'first\n[image image/png, 3 bytes]\ninline text\n[resource file:///b.bin (application/octet-stream)]\n[resource link file:///c "c"]',
    );
    expect(resultText({ content: [], structuredContent: { sum: 3 } })).toBe('{"sum":3}');
  });
});
