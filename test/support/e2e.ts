import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach } from 'vitest';
import type { AssistantMessage, Message } from '../../src/core/message.js';
import {
  startAnthropicEmulator,
  type AnthropicEmulator,
  type AnthropicEmulatorOptions,
} from '../../src/emulators/anthropic-messages/anthropic-emulator.js';
import {
  startBedrockEmulator,
  type BedrockEmulator,
  type BedrockEmulatorOptions,
} from '../../src/emulators/bedrock-converse/bedrock-converse-emulator.js';
import { startChatEmulator } from '../../src/emulators/chat-completions/chat-emulator.js';
import type {
  ChatEmulatorOptions,
  RunningChatEmulator,
} from '../../src/emulators/chat-completions/chat-emulator-types.js';
import {
  startGeminiEmulator,
  type GeminiEmulator,
  type GeminiEmulatorOptions,
} from '../../src/emulators/gemini/gemini-emulator.js';
import {
  startResponsesEmulator,
  type ResponsesEmulator,
  type ResponsesEmulatorOptions,
} from '../../src/emulators/responses/responses-emulator.js';
import { openSqliteSessionStore } from '../../src/storage/sqlite-session-store.js';
import { logsDir, stateDbPath } from '../../src/storage/store-paths.js';
import { startGatedProvider, type GatedProvider } from './gated-provider.js';
import { scaledTimeout } from './timeouts.js';

/**
 * The one end-to-end harness: a temporary HERMES_HOME, the built CLI (`dist/cli.js`, so
 * `npm run build` first) run with an environment, the loopback emulators (127.0.0.1 only),
 * readers of `state.db` and the logs, and cleanup after every test.
 *
 * ```ts
 * const e2e = useE2e(); // top level of the test file: stops what each test started
 *
 * it('answers after a tool call (SPEC §N)', async () => {
 *   const emulator = await e2e.chat({ persona: 'deepseek' });
 *   const sandbox = e2e.sandbox(); // HERMES_HOME + a workspace holding notes.txt
 *   const route = routeArgs('deepseek', 'deepseek-v4-flash', emulator.baseUrl);
 *   const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route]);
 *   const stored = await storedMessages(sandbox.home, first.session_id);
 *   expect(readLog(sandbox.home)).toContain('…');
 * });
 * ```
 *
 * `runHermes` returns exit code, stdout and stderr; `spawnHermes` + `collectRun` keep a process
 * running (kill tests); `e2e.gateway` starts `hermes gateway` on an ephemeral loopback port.
 */

/** The built CLI (`npm test` builds first; `.ci/run` builds before the tests). */
export const HERMES_BIN = resolve(process.cwd(), 'dist/cli.js');

/** A HERMES_HOME and the workspace (the child's cwd). */
export interface Sandbox {
  home: string;
  workspace: string;
}

/** What a sandbox starts with besides an empty home. */
export interface SandboxOptions {
  /** Text of `notes.txt` in the workspace (default `alpha beta\n`). */
  notes?: string;
  /** Text of `$HERMES_HOME/config.yaml` (none by default). */
  config?: string;
  /** More workspace files: name → text. */
  files?: Record<string, string>;
}

/** A fresh HERMES_HOME and workspace with a notes.txt (not removed; `e2e.sandbox()` is). */
export function makeSandbox(options: SandboxOptions = {}): Sandbox {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-e2e-home-')));
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-e2e-ws-')));
  writeFileSync(join(workspace, 'notes.txt'), options.notes ?? 'alpha beta\n');
  if (options.config !== undefined) writeFileSync(join(home, 'config.yaml'), options.config);
  for (const [name, text] of Object.entries(options.files ?? {})) writeFileSync(join(workspace, name), text);
  return { home, workspace };
}

/** The text of a workspace file now. */
export function readWorkspaceFile(sandbox: Sandbox, name: string): string {
  return readFileSync(join(sandbox.workspace, name), 'utf8');
}

/** Output of one CLI run. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a `hermes` child: this one's, without the AWS SDK Node-version opt-out the
 * test processes set (vitest.config.ts), so a child shows whether `hermes` sets it itself.
 */
function childEnv(sandbox: Sandbox, env: Record<string, string>): NodeJS.ProcessEnv {
  const { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: _optOut, ...inherited } = process.env;
  return { ...inherited, HERMES_HOME: sandbox.home, NO_COLOR: '1', ...env };
}

/** Runs the real `hermes` binary to its end; `input` is written to its stdin (no TTY). */
export function runHermes(
  args: string[],
  sandbox: Sandbox,
  env: Record<string, string> = {},
  input?: string,
): Promise<CliRun> {
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [HERMES_BIN, ...args],
      { cwd: sandbox.workspace, env: childEnv(sandbox, env), timeout: scaledTimeout(60_000) },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** Starts the real `hermes` binary without waiting (for kill tests); see {@link collectRun}. */
export function spawnHermes(args: string[], sandbox: Sandbox, env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [HERMES_BIN, ...args], {
    cwd: sandbox.workspace,
    env: childEnv(sandbox, env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Collects a spawned process's output; resolves when it exits (a signal counts as code 1). */
export function collectRun(child: ChildProcess): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done) => child.once('exit', (code) => done({ code: code ?? 1, stdout, stderr })));
}

/** Parses `--json` stdout. */
export function parseJson<T = Record<string, unknown>>(run: CliRun): T {
  try {
    return JSON.parse(run.stdout) as T;
  } catch {
    throw new Error(`stdout is not JSON (exit ${run.code}).\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  }
}

/** `--provider P --model M --base-url U --api-key K` (and `--api A` when given). */
export function routeArgs(provider: string, model: string, baseUrl: string, apiKey = 'k', api?: string): string[] {
  const wire = api === undefined ? [] : ['--api', api];
  return ['--provider', provider, ...wire, '--model', model, '--base-url', baseUrl, '--api-key', apiKey];
}

/** `--resume SESSION -q PROMPT`: the arguments of the next turn on a stored session. */
export function resumeArgs(sessionId: string, prompt: string): string[] {
  return ['--resume', sessionId, '-q', prompt];
}

/** What `hermes chat -q … --json` prints. */
export interface ChatJson {
  session_id: string;
  answer: string;
  reasoning?: string;
  tool_calls: { name: string; arguments?: string; result: string; is_error?: boolean }[];
}

/** `hermes chat ARGS --json` that must exit 0 (the error names its stderr); its parsed output. */
export async function chatJson(sandbox: Sandbox, args: string[], env: Record<string, string> = {}): Promise<ChatJson> {
  const run = await runHermes(['chat', ...args, '--json'], sandbox, env);
  if (run.code !== 0) throw new Error(`hermes chat exited ${run.code}: ${run.stderr}`);
  return parseJson<ChatJson>(run);
}

/** `hermes sessions show ID --json`, parsed (the shape is the caller's). */
export async function showSession<T = { model_config: Record<string, unknown>; messages: Message[] }>(
  sandbox: Sandbox,
  sessionId: string,
  env: Record<string, string> = {},
): Promise<T> {
  return parseJson<T>(await runHermes(['sessions', 'show', sessionId, '--json'], sandbox, env));
}

/** Assistant messages of a request body or a shown session (anything with `messages`). */
export function assistantsOf(body: unknown): Record<string, unknown>[] {
  const messages = (body as { messages?: Record<string, unknown>[] } | undefined)?.messages ?? [];
  return messages.filter((message) => message['role'] === 'assistant');
}

/** A session's messages as `$HERMES_HOME/state.db` holds them (read through the store). */
export async function storedMessages(home: string, sessionId: string): Promise<Message[]> {
  const store = openSqliteSessionStore(stateDbPath(home));
  try {
    return await store.listMessages(sessionId);
  } finally {
    await store.close();
  }
}

/** A session's assistant messages as `state.db` holds them. */
export async function storedAssistants(home: string, sessionId: string): Promise<AssistantMessage[]> {
  return (await storedMessages(home, sessionId)).filter(
    (message): message is AssistantMessage => message.role === 'assistant',
  );
}

/** Runs `use` on `$HERMES_HOME/state.db` opened directly (raw SQL), then closes it. */
export function withStateDb<T>(home: string, use: (database: Database.Database) => T): T {
  const database = new Database(stateDbPath(home));
  try {
    return use(database);
  } finally {
    database.close();
  }
}

/** The text of a log in `$HERMES_HOME/logs` (`agent.log` by default; '' when not written). */
export function readLog(home: string, name = 'agent.log'): string {
  try {
    return readFileSync(join(logsDir(home), name), 'utf8');
  } catch {
    return '';
  }
}

/** POSTs `body` as JSON to a gateway's `/v1/chat/completions` (`url` is `http://127.0.0.1:PORT`). */
export function postChatCompletion(
  url: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** A `hermes gateway` process listening on an ephemeral loopback port. */
export interface GatewayProcess {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  process: ChildProcess;
  /** Its stderr so far. */
  readonly stderr: string;
  /** Resolves with its exit code. */
  exited: Promise<number | null>;
}

/** Per-test resources that {@link useE2e} stops after each test. */
export interface E2e {
  /** A sandbox removed after the test. */
  sandbox(options?: SandboxOptions): Sandbox;
  chat(options: ChatEmulatorOptions): Promise<RunningChatEmulator>;
  /** A chat emulator, a sandbox, and the `routeArgs(provider, model, …)` that reach the emulator. */
  chatRoute(
    options: ChatEmulatorOptions,
    provider: string,
    model: string,
    apiKey?: string,
  ): Promise<{ emulator: RunningChatEmulator; sandbox: Sandbox; route: string[] }>;
  anthropic(options?: AnthropicEmulatorOptions): Promise<AnthropicEmulator>;
  responses(options?: ResponsesEmulatorOptions): Promise<ResponsesEmulator>;
  gemini(options?: GeminiEmulatorOptions): Promise<GeminiEmulator>;
  bedrock(options?: BedrockEmulatorOptions): Promise<BedrockEmulator>;
  /** A loopback proxy in front of `targetBaseUrl` that can hold requests (see gated-provider.ts). */
  gated(targetBaseUrl: string): Promise<GatedProvider>;
  /** `hermes gateway --port 0 ARGS`; after the test, SIGTERM and its exit (SIGKILL if it hangs). */
  gateway(args: string[], sandbox: Sandbox, env?: Record<string, string>): Promise<GatewayProcess>;
  /** Runs `cleanup` after the test (in reverse order of registration). */
  defer(cleanup: () => unknown): void;
}

/** Registers an `afterEach` that stops everything a test started through the returned {@link E2e}. */
export function useE2e(): E2e {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const track = async <T extends { close(): Promise<void> }>(started: Promise<T>): Promise<T> => {
    const resource = await started;
    cleanups.push(() => resource.close());
    return resource;
  };
  const sandboxRemovedAfter = (options?: SandboxOptions): Sandbox => {
    const sandbox = makeSandbox(options);
    cleanups.push(() => {
      for (const dir of [sandbox.home, sandbox.workspace]) rmSync(dir, { recursive: true, force: true });
    });
    return sandbox;
  };
  return {
    sandbox: sandboxRemovedAfter,
    chat: (options) => track(startChatEmulator(options)),
    async chatRoute(options, provider, model, apiKey) {
      const emulator = await track(startChatEmulator(options));
      const sandbox = sandboxRemovedAfter();
      return { emulator, sandbox, route: routeArgs(provider, model, emulator.baseUrl, apiKey) };
    },
    anthropic: (options) => track(startAnthropicEmulator(options)),
    responses: (options) => track(startResponsesEmulator(options)),
    gemini: (options) => track(startGeminiEmulator(options)),
    bedrock: (options) => track(startBedrockEmulator(options)),
    async gated(targetBaseUrl) {
      const gated = await startGatedProvider(targetBaseUrl);
      cleanups.push(() => gated.stop());
      return gated;
    },
    async gateway(args, sandbox, env = {}) {
      const child = spawnHermes(['gateway', '--port', '0', ...args], sandbox, env);
      const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
      cleanups.push(async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        const stopped = await Promise.race([
          exited.then(() => true),
          new Promise<boolean>((done) => setTimeout(() => done(false), scaledTimeout(10_000)).unref()),
        ]);
        if (!stopped) child.kill('SIGKILL');
      });
      let stderr = '';
      const url = await new Promise<string>((done, fail) => {
        child.stderr?.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
          if (match?.[1]) done(match[1]);
        });
        child.once('exit', () => fail(new Error(`gateway exited early: ${stderr}`)));
      });
      return {
        url,
        process: child,
        get stderr() {
          return stderr;
        },
        exited,
      };
    },
    defer(cleanup) {
      cleanups.push(cleanup);
    },
  };
}
