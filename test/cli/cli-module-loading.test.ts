import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Commands that use no emulator load no emulator module: the CLI loads emulators with `import()`
// only for `hermes emulate` and `--provider emulator:NAME` (the built CLI, dist/cli.js). Command
// registrars declare flags only; the store, config, runtime, tools and gateway server load when
// an action needs them, so `hermes --help` loads none of them.

const cli = resolve(process.cwd(), 'dist/cli.js');
/** A module-load hook that appends every loaded URL to $MODULE_LOG. */
const HOOKS = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) { appendFileSync(process.env.MODULE_LOG, url + '\\n'); return next(url, context); }`;
const REGISTER = `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}));`;

/** Runs the CLI and returns the project modules it loaded, relative to dist/. */
function loadedModules(args: string[]): { status: number | null; modules: string[] } {
  const home = mkdtempSync(join(tmpdir(), 'hermes-modules-'));
  const log = join(home, 'modules.log');
  writeFileSync(log, '');
  writeFileSync(join(home, 'history.json'), JSON.stringify([{ role: 'user', content: 'hello' }]));
  const result = spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, cli, ...args],
    { encoding: 'utf8', cwd: home, env: { ...process.env, HERMES_HOME: home, MODULE_LOG: log } },
  );
  const distUrl = new URL(`file://${resolve(process.cwd(), 'dist')}/`).href;
  const modules = readFileSync(log, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith(distUrl))
    .map((url) => url.slice(distUrl.length));
  return { status: result.status, modules };
}

describe('emulator modules load only when an emulator is used', () => {
  it.each([
    [['--help']],
    [['sessions', 'list']],
    [['replay', 'preview', '--history', 'history.json', '--provider', 'deepseek', '--model', 'deepseek-v4-flash']],
  ])('hermes %j loads no emulator module', (args) => {
    const { status, modules } = loadedModules(args);
    expect(status).toBe(0);
    expect(modules).toContain('cli/cli-main.js');
    expect(modules.filter((module) => module.startsWith('emulators/'))).toEqual([]);
  });

  it('hermes emulate chat --help loads the chat emulator and no other family', () => {
    const { status, modules } = loadedModules(['emulate', 'chat', '--help']);
    expect(status).toBe(0);
    expect(modules).toContain('emulators/chat-completions/chat-emulator.js');
    expect(modules.filter((module) => /^emulators\/(anthropic|bedrock|gemini|responses)/.test(module))).toEqual([]);
  });
});

/** Modules a command's action loads on first use, never at registration. */
const ACTION_ONLY =
  /^(transports\/[a-z-]+\/[a-z-]+-transport\.js|config\/config-(load|schema|edit)|tools\/|mcp\/|logging\/|storage\/(sqlite|postgres-(session-store|pool|rows))|gateway\/gateway-(serve|app|chat)|runtime\/(agent-turn|compaction-run|runtime-route-memory))/;

describe('commands load only what their action uses', () => {
  it('hermes --help loads no transport, store, config, logger, tool, MCP, runtime turn or gateway server module', () => {
    const { status, modules } = loadedModules(['--help']);
    expect(status).toBe(0);
    expect(modules.filter((module) => ACTION_ONLY.test(module))).toEqual([]);
  });

  // The pure encoders of every wire API are one shared table (transport-prepare, also behind
  // buildRequest); what must stay unloaded is another family's sender, decoder and SDK.
  it("hermes replay preview on a chat-completions route loads no other wire family's transport", () => {
    const { status, modules } = loadedModules([
      'replay',
      'preview',
      '--history',
      'history.json',
      '--provider',
      'deepseek',
    ]);
    expect(status).toBe(0);
    expect(
      modules.filter((module) =>
        /^transports\/(anthropic-messages|bedrock-converse|gemini|responses)\/.*-(transport|decode|errors|auth|eventstream)\.js$/.test(
          module,
        ),
      ),
    ).toEqual([]);
  });

  it('hermes sessions list opens the SQLite store and loads no runtime turn or gateway server', () => {
    const { status, modules } = loadedModules(['sessions', 'list']);
    expect(status).toBe(0);
    expect(modules).toContain('storage/sqlite-session-store.js');
    expect(modules.filter((module) => /^(runtime\/agent-turn|gateway\/gateway-serve)/.test(module))).toEqual([]);
  });
});

describe('the MCP client loads only when a server is configured', () => {
  it('hermes chat -q with no config.yaml server and no .mcp.json loads no mcp/ module', () => {
    const { status, modules } = loadedModules(['chat', '-q', 'hello', '--provider', 'emulator:deepseek']);
    expect(status).toBe(0);
    expect(modules).toContain('runtime/agent-turn.js');
    expect(modules.filter((module) => module.startsWith('mcp/'))).toEqual([]);
  });
});
