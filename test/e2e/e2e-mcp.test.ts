import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chatJson, parseJson, postChatCompletion, runHermes, useE2e, type Sandbox } from '../support/e2e.js';
import { MCP_FIXTURE_SERVER, startMcpHttpFixture, stdioFixtureEntry } from '../support/mcp-fixture.js';

/**
 * MCP servers written with the same SDK (test/fixtures/mcp), reached over stdio and Streamable
 * HTTP by the real `hermes` binary: the emulator's scripted model asks for an `mcp__…` tool by
 * name ("call the tool NAME with {…}"), and the agent's tool loop runs it in `chat -q`,
 * interactive `chat` and the gateway's server-side loop (docs/mcp.md).
 */

const e2e = useE2e();

async function httpUrl(): Promise<string> {
  const fixture = await startMcpHttpFixture();
  e2e.defer(() => fixture.close());
  return fixture.url;
}

/** A chat emulator, and a sandbox whose config.yaml lists `servers` (indented entry text). */
async function setup(servers: string[]) {
  const { emulator, sandbox, route } = await e2e.chatRoute({ persona: 'deepseek' }, 'deepseek', 'deepseek-v4-flash');
  writeFileSync(join(sandbox.home, 'config.yaml'), `mcp_servers:\n${servers.join('\n')}\n`);
  return { emulator, sandbox, route };
}

const toolNames = (body: unknown) =>
  ((body as { tools?: { function: { name: string } }[] }).tools ?? []).map((tool) => tool.function.name);

describe('MCP tools offered to the model: capped, and chosen per server', () => {
  it('a server offering 5,007 tools: a capped number is offered, with one notice naming the server', async () => {
    const { emulator, sandbox, route } = await setup([stdioFixtureEntry('huge', [], ['--many-tools', '5001'])]);
    const run = await runHermes(['chat', '-q', 'hello', '--json', ...route], sandbox);
    expect(run.code, run.stderr).toBe(0);
    const offered = toolNames(emulator.requests[0]?.body);
    const mcp = offered.filter((name) => name.startsWith('mcp__'));
    expect(mcp).toHaveLength(100);
    expect(offered.length).toBeLessThanOrEqual(128);
    const notices = run.stderr.split('\n').filter((line) => line.includes('huge'));
    expect(notices).toEqual([
      'hermes: mcp server "huge" offers 5007 tools: only its first 100 are offered (at most 100 MCP tools per request; ' +
        'providers refuse or degrade with more); choose them with mcp_servers.huge.tools.include or exclude in config.yaml',
    ]);
  });

  it('tools.include and tools.exclude choose what a server offers (names or * patterns)', async () => {
    const { emulator, sandbox, route } = await setup([
      stdioFixtureEntry('fx', ['tools: { include: [add, "tool_1*"], exclude: [tool_10] }'], ['--many-tools', '20']),
    ]);
    const run = await runHermes(['chat', '-q', 'hello', '--json', ...route], sandbox);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('mcp server');
    const mcp = toolNames(emulator.requests[0]?.body).filter((name) => name.startsWith('mcp__'));
    expect(mcp).toEqual([
      'mcp__fx__add',
      'mcp__fx__tool_1',
      'mcp__fx__tool_11',
      'mcp__fx__tool_12',
      'mcp__fx__tool_13',
      'mcp__fx__tool_14',
      'mcp__fx__tool_15',
      'mcp__fx__tool_16',
      'mcp__fx__tool_17',
      'mcp__fx__tool_18',
      'mcp__fx__tool_19',
    ]);
    const listed = await runHermes(['mcp', 'list', '--tools'], sandbox);
    expect(listed.stdout).toContain('11 tools; 15 of 26 left out by tools.include/exclude');
  });
});

describe('hermes chat -q with MCP servers', () => {
  it.each(['stdio', 'http'] as const)(
    '%s: the model is offered the server’s tools with their schemas and the tool loop runs one',
    async (kind) => {
      const entry =
        kind === 'stdio'
          ? stdioFixtureEntry('fx', ['trust: true'])
          : `  fx:\n    url: ${await httpUrl()}\n    trust: true`;
      const { emulator, sandbox, route } = await setup([entry]);
      const result = await chatJson(sandbox, ['-q', 'call the tool mcp__fx__add with {"a": 2, "b": 40}', ...route]);
      expect(result.tool_calls).toEqual([
        { id: 'call_1_1', name: 'mcp__fx__add', arguments: '{"a": 2, "b": 40}', result: '42', is_error: false },
      ]);
      expect(result.answer).toContain('The tool returned: 42');
      const offered = (emulator.requests[0]?.body as { tools: { function: { name: string; parameters: unknown } }[] })
        .tools;
      expect(toolNames(emulator.requests[0]?.body)).toEqual(
        expect.arrayContaining(['read_file', 'run_shell', 'mcp__fx__echo', 'mcp__fx__add', 'mcp__fx__fail']),
      );
      expect(offered.find((tool) => tool.function.name === 'mcp__fx__add')?.function.parameters).toMatchObject({
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
      });
      expect(emulator.requests[1]?.raw).toContain('"content":"42"');
    },
  );

  it('an untrusted server’s tool is refused under -q without --yolo (a tool error the model reads), and runs with it', async () => {
    const { sandbox, route } = await setup([`  web:\n    url: ${await httpUrl()}`]);
    const ask = ['-q', 'call the tool mcp__web__echo with {"text": "hi"}', ...route];
    const refused = await chatJson(sandbox, ask);
    expect(refused.tool_calls[0]).toMatchObject({
      name: 'mcp__web__echo',
      is_error: true,
      result: 'error: mcp__web__echo was not approved by the user (approve interactively, or run with --yolo)',
    });
    const approved = await chatJson(sandbox, [...ask, '--yolo']);
    expect(approved.tool_calls[0]).toMatchObject({ result: 'echo: hi', is_error: false });
  });

  it('a server error is a tool error the model sees; a server that cannot start is one line and the chat goes on', async () => {
    const { sandbox, route } = await setup([
      stdioFixtureEntry('fx', ['trust: true']),
      stdioFixtureEntry('broken', [], ['--fail-start']),
    ]);
    const run = await runHermes(['chat', '-q', 'call the tool mcp__fx__fail', ...route, '--json'], sandbox);
    expect(run.code).toBe(0);
    expect(run.stderr.split('\n').filter((line) => line.includes('broken'))).toEqual([
      'hermes: mcp server "broken" failed to start: the server closed the connection before it was ready (stderr: fixture: cannot open the database)',
    ]);
    const result = parseJson<{ tool_calls: { result: string; is_error: boolean }[]; answer: string }>(run);
    expect(result.tool_calls).toMatchObject([{ result: 'error: the fixture tool failed on purpose', is_error: true }]);
    expect(result.answer).toContain('The tool returned: error: the fixture tool failed on purpose');
  });
});

describe('interactive hermes chat with an MCP server', () => {
  it('asks before an MCP tool runs, like a built-in tool that changes something', async () => {
    const { sandbox, route } = await setup([stdioFixtureEntry('fx')]);
    const lines = ['call the tool mcp__fx__echo with {"text": "over stdio"}', 'y', '/exit'];
    const run = await runHermes(['chat', ...route], sandbox, {}, lines.map((line) => `${line}\n`).join(''));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('allow mcp__fx__echo {"text":"over stdio"}? [y]es / [N]o / [a]lways for this session');
    expect(run.stdout).toContain('The tool returned: echo: over stdio');
  });

  it('/mcp shows each server’s state and tools; /tools lists the MCP tools beside the built-in ones', async () => {
    const { sandbox, route } = await setup([
      stdioFixtureEntry('fx'),
      stdioFixtureEntry('broken', [], ['--fail-start']),
    ]);
    const run = await runHermes(['chat', ...route], sandbox, {}, '/mcp\n/tools\n/exit\n');
    expect(run.code).toBe(0);
    // Piped lines are echoed after their prompt, whether they arrived before it or after.
    expect(run.stdout).toContain('you> /mcp\n');
    expect(run.stdout).toContain('you> /tools\n');
    const lines = run.stdout.split('\n').map((line) =>
      line
        .replace(/^you> /, '')
        .replace(/ +/g, ' ')
        .trim(),
    );
    expect(lines).toContain('fx stdio connected 6 tools (config.yaml)');
    expect(lines).toContain('mcp__fx__echo');
    expect(lines).toContain(
      'broken stdio failed the server closed the connection before it was ready (stderr: fixture: cannot open the database) (config.yaml)',
    );
    expect(lines.some((line) => line.startsWith('read_file '))).toBe(true);
    expect(lines.some((line) => line.startsWith('mcp__fx__add '))).toBe(true);
  });

  it('a server that crashed mid-call is started again for the next call, with the tools it listed first', async () => {
    const { sandbox, route } = await setup([stdioFixtureEntry('fx', ['trust: true'], ['--with-crash'])]);
    const lines = ['call the tool mcp__fx__crash', 'call the tool mcp__fx__echo with {"text": "back again"}', '/exit'];
    const run = await runHermes(['chat', ...route], sandbox, {}, lines.map((line) => `${line}\n`).join(''));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/The tool returned: error: MCP server "fx": [^\n]+/);
    expect(run.stdout).toContain('The tool returned: echo: back again');
  });

  it('/mcp without servers says how to add one', async () => {
    const { sandbox, route } = await e2e.chatRoute({ persona: 'deepseek' }, 'deepseek', 'deepseek-v4-flash');
    const run = await runHermes(['chat', ...route], sandbox, {}, '/mcp\n/exit\n');
    expect(run.stdout).toContain('no MCP servers in this chat (add mcp_servers to config.yaml');
  });
});

describe('hermes gateway with MCP servers', () => {
  it('the server-side tool loop runs stdio and Streamable HTTP servers’ tools', async () => {
    const { emulator, sandbox, route } = await setup([
      stdioFixtureEntry('local', ['trust: true']),
      `  web:\n    url: ${await httpUrl()}\n    trust: true`,
    ]);
    const gateway = await e2e.gateway(route, sandbox);
    for (const [tool, answer] of [
      ['mcp__local__echo with {"text": "from the gateway"}', 'echo: from the gateway'],
      ['mcp__web__add with {"a": 1, "b": 2}', 'The tool returned: 3'],
    ] as const) {
      const response = await postChatCompletion(gateway.url, {
        model: 'hermes',
        messages: [{ role: 'user', content: `call the tool ${tool}` }],
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { choices: { message: { content: string } }[] };
      expect(body.choices[0]?.message.content).toContain(answer);
    }
    expect(toolNames(emulator.requests[0]?.body)).toEqual(
      expect.arrayContaining(['mcp__local__echo', 'mcp__web__add']),
    );
  });
});

describe('hermes mcp list, approve and doctor', () => {
  function projectFile(sandbox: Sandbox): void {
    const mcpServers = { project: { command: process.execPath, args: [MCP_FIXTURE_SERVER] } };
    writeFileSync(join(sandbox.workspace, '.mcp.json'), JSON.stringify({ mcpServers }));
  }

  it('lists each server’s transport, state and tool count, or its one-line failure; .mcp.json servers wait for approval', async () => {
    const { sandbox, route } = await setup([
      stdioFixtureEntry('fx'),
      `  web:\n    url: ${await httpUrl()}`,
      stdioFixtureEntry('broken', [], ['--fail-start']),
    ]);
    projectFile(sandbox);
    const listed = await runHermes(['mcp', 'list'], sandbox);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n').map((line) => line.replace(/ +/g, ' '))).toEqual([
      'fx stdio connected 6 tools (config.yaml)',
      'web http connected 6 tools (config.yaml)',
      'broken stdio failed the server closed the connection before it was ready (stderr: fixture: cannot open the database) (config.yaml)',
      'project stdio needs approval not approved for this directory: hermes mcp approve project (.mcp.json)',
      '',
    ]);

    const doctor = await runHermes(['doctor'], sandbox);
    expect(doctor.code).toBe(1);
    const mcpLines = doctor.stdout.split('\n').filter((line) => /^\S+\s+mcp /.test(line));
    expect(mcpLines.map((line) => line.replace(/ +/g, ' '))).toEqual([
      'ok mcp fx (stdio, config.yaml): 6 tools',
      'ok mcp web (http, config.yaml): 6 tools',
      'FAIL mcp broken (stdio, config.yaml): the server closed the connection before it was ready (stderr: fixture: cannot open the database)',
      'warn mcp project (stdio, .mcp.json): not approved for this directory: hermes mcp approve project',
    ]);

    const approved = await runHermes(['mcp', 'approve', 'project'], sandbox);
    expect(approved.stdout).toBe(`approved project: ${process.execPath} ${MCP_FIXTURE_SERVER}\n`);
    const json = parseJson<{ servers: { name: string; status: string; tools: string[] }[] }>(
      await runHermes(['mcp', 'list', '--json'], sandbox),
    );
    expect(json.servers.find((server) => server.name === 'project')).toMatchObject({
      status: 'connected',
      tools: expect.arrayContaining(['mcp__project__echo']),
    });
    const result = await chatJson(sandbox, [
      '-q',
      'call the tool mcp__project__echo with {"text": "approved"}',
      ...route,
      '--yolo',
    ]);
    expect(result.tool_calls[0]?.result).toBe('echo: approved');

    expect((await runHermes(['mcp', 'approve', 'nope'], sandbox)).stderr).toBe(
      `hermes: ${join(sandbox.workspace, '.mcp.json')} has no server "nope" (servers: project)\n`,
    );
  });

  it('a bad mcp_servers entry in config.yaml is one usage line naming the key', async () => {
    const sandbox = e2e.sandbox({ config: 'mcp_servers:\n  fx: { command: node, arg: [x] }\n' });
    const run = await runHermes(['mcp', 'list'], sandbox);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'config.yaml: mcp_servers.fx: unknown key "arg" (check the spelling; known keys here: command, args',
    );
  });
});
