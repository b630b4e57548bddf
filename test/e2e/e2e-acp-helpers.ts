import * as acp from '@agentclientprotocol/sdk';
import type { InitializeResponse, RequestPermissionRequest, SessionUpdate, StopReason } from '@agentclientprotocol/sdk';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { HERMES_BIN, type E2e, type Sandbox } from '../support/e2e.js';

/**
 * A real `hermes acp` process driven by the official ACP library's client side, as an editor
 * drives it: it offers the file system (reads and writes go to the sandbox's workspace, as an
 * editor's buffers would), answers permission prompts as told, and records every update.
 *
 * `runAcpTurn(agent, sessionId, text)` is ACP as a way in for the matrix tests: one prompt,
 * its stop reason, and the answer's text and reasoning as the editor showed them.
 */

/** What one prompt showed the editor. */
export interface AcpTurn {
  stopReason: StopReason;
  /** The `agent_message_chunk` text, joined. */
  text: string;
  /** The `agent_thought_chunk` text, joined. */
  thoughts: string;
  updates: SessionUpdate[];
}

/** A running agent and its client connection. */
export interface AcpAgentProcess {
  agent: acp.ClientContext;
  init: InitializeResponse;
  /** Every update, by session, in arrival order. */
  updates: Map<string, SessionUpdate[]>;
  permissions: RequestPermissionRequest[];
  /** `fs/write_text_file` calls (path, content). */
  writes: { path: string; content: string }[];
  /** `fs/read_text_file` paths. */
  reads: string[];
  /** Its stderr so far. */
  readonly stderr: string;
  /** Ends the connection and waits for the process to exit. */
  close(): Promise<number | null>;
}

/** How the client answers permission prompts, and whether it offers its file system. */
export interface AcpClientOptions {
  permission?: 'allow_once' | 'allow_always' | 'reject_once';
  fileSystem?: boolean;
}

/** Starts `hermes acp ARGS` in the sandbox and initializes the connection (stopped after the test). */
export async function startAcpAgent(
  e2e: E2e,
  sandbox: Sandbox,
  args: string[] = [],
  env: Record<string, string> = {},
  options: AcpClientOptions = {},
): Promise<AcpAgentProcess> {
  const child = spawn(process.execPath, [HERMES_BIN, 'acp', ...args], {
    cwd: sandbox.workspace,
    env: { ...process.env, HERMES_HOME: sandbox.home, NO_COLOR: '1', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const updates = new Map<string, SessionUpdate[]>();
  const permissions: RequestPermissionRequest[] = [];
  const writes: { path: string; content: string }[] = [];
  const reads: string[] = [];
  const fileSystem = options.fileSystem !== false;
  const client = acp
    .client({ name: 'hermes-e2e' })
    .onRequest('session/request_permission', ({ params }) => {
      permissions.push(params);
      return { outcome: { outcome: 'selected', optionId: options.permission ?? 'allow_once' } };
    })
    .onRequest('fs/read_text_file', ({ params }) => {
      reads.push(params.path);
      const lines = readFileSync(params.path, 'utf8').split(/(?<=\n)/);
      const from = (params.line ?? 1) - 1;
      return { content: lines.slice(from, params.limit ? from + params.limit : undefined).join('') };
    })
    .onRequest('fs/write_text_file', ({ params }) => {
      writes.push({ path: params.path, content: params.content });
      writeFileSync(params.path, params.content);
      return {};
    })
    .onNotification('session/update', ({ params }) => {
      const list = updates.get(params.sessionId) ?? [];
      list.push(params.update);
      updates.set(params.sessionId, list);
    });
  const connection = client.connect(
    acp.ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    ),
  );
  const close = async () => {
    connection.close();
    child.stdin.end();
    const stopped = await Promise.race([exited, new Promise<'hung'>((done) => setTimeout(() => done('hung'), 10_000))]);
    if (stopped === 'hung') child.kill('SIGKILL');
    return exited;
  };
  e2e.defer(close);
  const init = await connection.agent.request('initialize', {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: fileSystem, writeTextFile: fileSystem } },
  });
  return {
    agent: connection.agent,
    init,
    updates,
    permissions,
    writes,
    reads,
    get stderr() {
      return stderr;
    },
    close,
  };
}

/**
 * Waits until the updates received before the last response are handled: the library hands a
 * response to its caller a few microtasks before it runs the notification handlers of the
 * messages that came first, so one macrotask later they have all run.
 */
export function updatesSettled(): Promise<void> {
  return new Promise((done) => setImmediate(done));
}

/** The updates of `sessionId` from `from` on, as text and reasoning. */
export function shownSince(process: AcpAgentProcess, sessionId: string, from: number): Omit<AcpTurn, 'stopReason'> {
  const updates = (process.updates.get(sessionId) ?? []).slice(from);
  const chunks = (kind: string) =>
    updates.map((update) => (update.sessionUpdate === kind ? chunkText(update) : '')).join('');
  return { updates, text: chunks('agent_message_chunk'), thoughts: chunks('agent_thought_chunk') };
}

/** The text of a message, thought or user chunk ('' for any other update). */
export function chunkText(update: SessionUpdate): string {
  if (
    update.sessionUpdate !== 'agent_message_chunk' &&
    update.sessionUpdate !== 'agent_thought_chunk' &&
    update.sessionUpdate !== 'user_message_chunk'
  ) {
    return '';
  }
  return update.content.type === 'text' ? update.content.text : '';
}

/** One prompt: its stop reason and what it showed. */
export async function runAcpTurn(process: AcpAgentProcess, sessionId: string, text: string): Promise<AcpTurn> {
  const from = process.updates.get(sessionId)?.length ?? 0;
  const response = await process.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  await updatesSettled();
  return { stopReason: response.stopReason, ...shownSince(process, sessionId, from) };
}
