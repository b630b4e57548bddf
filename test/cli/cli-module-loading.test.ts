import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaledTimeout } from '../support/timeouts.js';

// Commands that use no emulator load no emulator module: the CLI loads emulators with `import()`
// only for `hermes emulate` and `--provider emulator:NAME` (the built CLI, dist/cli.js). Command
// registrars declare flags only; the store, config, runtime, tools and gateway server load when
// an action needs them, so `hermes --help` loads none of them.
//
// Every command runs once, all at the same time, before the checks: each is a full CLI start
// with a module hook, whose time grows with the machine's load; run one by one (and blocking the
// test worker), a load spike after the suite started pushed a single check past its time limit.

const cli = resolve(process.cwd(), 'dist/cli.js');
/** A module-load hook that appends every loaded URL to $MODULE_LOG. */
const HOOKS = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) { appendFileSync(process.env.MODULE_LOG, url + '\\n'); return next(url, context); }`;
const REGISTER = `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}));`;

/** What one command loaded: its exit status and the project modules, relative to dist/. */
interface Loaded {
  status: number | null;
  modules: string[];
  /** The OpenTelemetry package files it loaded. */
  openTelemetry: string[];
}

const homes: string[] = [];

/** Runs the CLI and resolves with the project modules it loaded. */
function loadedModules(args: readonly string[]): Promise<Loaded> {
  const home = mkdtempSync(join(tmpdir(), 'hermes-modules-'));
  homes.push(home);
  const log = join(home, 'modules.log');
  writeFileSync(log, '');
  writeFileSync(join(home, 'history.json'), JSON.stringify([{ role: 'user', content: 'hello' }]));
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, cli, ...args],
      {
        encoding: 'utf8',
        cwd: home,
        env: { ...withoutOtelVariables(process.env), HERMES_HOME: home, MODULE_LOG: log },
        // Only a hung command is stopped; a slow one on a busy machine is waited for.
        timeout: scaledTimeout(120_000),
      },
      (error) => {
        const distUrl = new URL(`file://${resolve(process.cwd(), 'dist')}/`).href;
        const urls = readFileSync(log, 'utf8').split('\n');
        const modules = urls.filter((url) => url.startsWith(distUrl)).map((url) => url.slice(distUrl.length));
        const openTelemetry = urls.filter((url) => url.includes('/node_modules/@opentelemetry/'));
        const status = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        done({ status, modules, openTelemetry });
      },
    );
  });
}

/** The environment without the OpenTelemetry variables (tracing is off without them). */
function withoutOtelVariables(environment: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(environment).filter(([name]) => !name.startsWith('OTEL_')));
}

const COMMANDS = {
  help: ['--help'],
  sessionsList: ['sessions', 'list'],
  previewWithModel: [
    'replay',
    'preview',
    '--history',
    'history.json',
    '--provider',
    'deepseek',
    '--model',
    'deepseek-v4-flash',
  ],
  preview: ['replay', 'preview', '--history', 'history.json', '--provider', 'deepseek'],
  emulateChatHelp: ['emulate', 'chat', '--help'],
  chatWithoutMcp: ['chat', '-q', 'hello', '--provider', 'emulator:deepseek'],
} as const;

const loaded = {} as Record<keyof typeof COMMANDS, Loaded>;

beforeAll(async () => {
  const entries = Object.entries(COMMANDS) as [keyof typeof COMMANDS, readonly string[]][];
  const results = await Promise.all(entries.map(([, args]) => loadedModules(args)));
  entries.forEach(([name], index) => (loaded[name] = results[index] as Loaded));
}, scaledTimeout(150_000));

afterAll(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

describe('emulator modules load only when an emulator is used', () => {
  it.each(['help', 'sessionsList', 'previewWithModel'] as const)('hermes %s loads no emulator module', (name) => {
    const { status, modules } = loaded[name];
    expect(status).toBe(0);
    expect(modules).toContain('cli/cli-main.js');
    expect(modules.filter((module) => module.startsWith('emulators/'))).toEqual([]);
  });

  it('hermes emulate chat --help loads the chat emulator and no other family', () => {
    const { status, modules } = loaded.emulateChatHelp;
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
    const { status, modules } = loaded.help;
    expect(status).toBe(0);
    expect(modules.filter((module) => ACTION_ONLY.test(module))).toEqual([]);
  });

  // The pure encoders of every wire API are one shared table (transport-prepare, also behind
  // buildRequest); what must stay unloaded is another family's sender, decoder and SDK.
  it("hermes replay preview on a chat-completions route loads no other wire family's transport", () => {
    const { status, modules } = loaded.preview;
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
    const { status, modules } = loaded.sessionsList;
    expect(status).toBe(0);
    expect(modules).toContain('storage/sqlite-session-store.js');
    expect(modules.filter((module) => /^(runtime\/agent-turn|gateway\/gateway-serve)/.test(module))).toEqual([]);
  });
});

describe('the MCP client loads only when a server is configured', () => {
  it('hermes chat -q with no config.yaml server and no .mcp.json loads no mcp/ module', () => {
    const { status, modules } = loaded.chatWithoutMcp;
    expect(status).toBe(0);
    expect(modules).toContain('runtime/agent-turn.js');
    expect(modules.filter((module) => module.startsWith('mcp/'))).toEqual([]);
  });
});

describe('OpenTelemetry loads only when an OTEL_* variable asks for tracing', () => {
  it('hermes chat -q with no OTEL_* variable loads no telemetry module and no OpenTelemetry package', () => {
    const { status, modules, openTelemetry } = loaded.chatWithoutMcp;
    expect(status).toBe(0);
    expect(modules.filter((module) => module.startsWith('telemetry/'))).toEqual([]);
    expect(openTelemetry).toEqual([]);
  });
});
