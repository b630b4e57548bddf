import * as acp from '@agentclientprotocol/sdk';
import type { SessionUpdate, StopReason } from '@agentclientprotocol/sdk';
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { HermesError } from '../core/errors.js';

/**
 * `hermes acp --probe` processes driven by the official ACP library's client side, as an editor
 * drives the agent: `initialize`, `session/load`, `session/prompt`, every permission prompt
 * answered "allow once", every `session/update` read. One process serves any number of probe
 * conversations at once (an editor's threads), each by its session id.
 */

/** How to start `hermes` on the probe's store: the executable, its leading arguments, the environment. */
export interface HermesCommand {
  command: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
}

/** What one prompt showed the editor. */
export interface AcpPromptAnswer {
  /** The `agent_message_chunk` text, joined. */
  text: string;
  /** The `agent_thought_chunk` text, joined. */
  thoughts: string;
  /** `tool_call` updates (each call the agent ran). */
  toolCalls: number;
  /** Permission prompts the editor answered. */
  permissions: number;
}

/** A running agent, as the probe uses it. */
export interface ProbeAcpAgent {
  /** `session/load` of a stored session (its replayed history is read and set aside). */
  load(sessionId: string, cwd: string): Promise<void>;
  /** One `session/prompt`; a stop other than `end_turn` is an error. */
  prompt(sessionId: string, text: string): Promise<AcpPromptAnswer>;
  close(): Promise<void>;
}

/**
 * The agents of an ACP way in: `live` serves the probe's conversations; `fresh` is another
 * process that never served them, for a resume. Callers that run many probes (the matrix) share
 * one pair; `close` ends the processes.
 */
export interface ProbeAcpAgents {
  live(): Promise<ProbeAcpAgent>;
  fresh(): Promise<ProbeAcpAgent>;
  close(): Promise<void>;
}

/** The pair of agents `command` starts, each on first use. */
export function probeAcpAgents(command: HermesCommand, limitMs: number): ProbeAcpAgents {
  const started: Promise<ProbeAcpAgent>[] = [];
  let live: Promise<ProbeAcpAgent> | undefined;
  let fresh: Promise<ProbeAcpAgent> | undefined;
  const start = () => {
    const agent = startProbeAcpAgent(command, limitMs);
    started.push(agent);
    return agent;
  };
  return {
    live: () => (live ??= start()),
    fresh: () => (fresh ??= start()),
    async close() {
      const agents = await Promise.allSettled(started.splice(0));
      for (const agent of agents) if (agent.status === 'fulfilled') await agent.value.close();
    },
  };
}

/** Starts `hermes acp --probe` and initializes the connection. */
export async function startProbeAcpAgent(command: HermesCommand, limitMs: number): Promise<ProbeAcpAgent> {
  const child = spawn(command.command, [...command.args, 'acp', '--probe'], {
    env: command.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4096);
  });
  const exited = new Promise<never>((_, reject) => {
    const failed = (why: string) => {
      const last = stderr.trim().split('\n').pop()?.trim();
      reject(new HermesError(`hermes acp ${why}${last ? `: ${last}` : ''}`));
    };
    child.once('error', (error) => failed(`could not start (${error.message})`));
    child.once('exit', (code, signal) => failed(`exited (${signal ?? `code ${String(code)}`})`));
  });
  exited.catch(() => undefined);
  // Updates by session, while a request of that session is running.
  const listening = new Map<string, SessionUpdate[]>();
  const permissions = new Map<string, number>();
  const client = acp
    .client({ name: 'hermes-probe' })
    .onRequest('session/request_permission', ({ params }) => {
      permissions.set(params.sessionId, (permissions.get(params.sessionId) ?? 0) + 1);
      const allow = params.options.find((option) => option.kind === 'allow_once');
      return allow
        ? { outcome: { outcome: 'selected', optionId: allow.optionId } }
        : { outcome: { outcome: 'cancelled' } };
    })
    .onNotification('session/update', ({ params }) => {
      listening.get(params.sessionId)?.push(params.update);
    });
  const connection = client.connect(
    acp.ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    ),
  );
  // Every request ends: answered, the process gone, or the time limit.
  const bounded = async <T>(what: string, request: Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new HermesError(`hermes acp: no answer to ${what} in ${limitMs} ms`)), limitMs);
    });
    try {
      return await Promise.race([request, exited, late]);
    } finally {
      clearTimeout(timer);
    }
  };
  const close = async () => {
    connection.close();
    child.stdin.end();
    if (child.exitCode === null && child.signalCode === null) {
      const ended = new Promise((done) => child.once('exit', done));
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await ended;
      clearTimeout(timer);
    }
  };
  try {
    await bounded(
      'initialize',
      connection.agent.request('initialize', { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} }),
    );
  } catch (error) {
    await close();
    throw error;
  }
  return {
    async load(sessionId, cwd) {
      await bounded('session/load', connection.agent.request('session/load', { sessionId, cwd, mcpServers: [] }));
      await settled();
    },
    async prompt(sessionId, text) {
      const updates: SessionUpdate[] = [];
      listening.set(sessionId, updates);
      permissions.set(sessionId, 0);
      let stopReason: StopReason;
      try {
        const answered = await bounded(
          'session/prompt',
          connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] }),
        );
        stopReason = answered.stopReason;
        await settled();
      } finally {
        listening.delete(sessionId);
      }
      if (stopReason !== 'end_turn') throw new HermesError(`session/prompt stopped with "${stopReason}"`);
      return {
        text: chunks(updates, 'agent_message_chunk'),
        thoughts: chunks(updates, 'agent_thought_chunk'),
        toolCalls: updates.filter((update) => update.sessionUpdate === 'tool_call').length,
        permissions: permissions.get(sessionId) ?? 0,
      };
    },
    close,
  };
}

/**
 * One macrotask: the library answers a request a few microtasks before it runs the handlers of
 * notifications that came first, so after this every update sent before the answer is in.
 */
function settled(): Promise<void> {
  return new Promise((done) => setImmediate(done));
}

/** The text of one kind of chunk update, joined. */
function chunks(updates: readonly SessionUpdate[], kind: 'agent_message_chunk' | 'agent_thought_chunk'): string {
  return updates
    .map((update) => (update.sessionUpdate === kind && update.content.type === 'text' ? update.content.text : ''))
    .join('');
}
