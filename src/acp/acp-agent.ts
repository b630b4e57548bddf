import * as acp from '@agentclientprotocol/sdk';
import type { ContentBlock, SessionUpdate, StopReason } from '@agentclientprotocol/sdk';
import { isAbsolute } from 'node:path';
import { newSessionId } from '../core/ids.js';
import type { ToolCall } from '../core/message.js';
import type { Logger } from '../logging/logger.js';
import { runAgentTurn, type AgentEvent, type AgentTurnOptions } from '../runtime/agent-turn.js';
import type { SessionRecord, SessionStore } from '../storage/session-store.js';
import { BUILTIN_TOOLS } from '../tools/tool-registry.js';
import { AcpApprovals, clientFileTools, type ClientFileSystem } from './acp-client-tools.js';
import { AcpTurnUpdates, historyUpdates } from './acp-updates.js';

/**
 * `hermes acp`: Hermes as an Agent Client Protocol agent (docs/acp.md, SPEC §26.9), built on the
 * official ACP library. An ACP session is a Hermes session — the same store, the same id, so
 * `hermes sessions show ID` and `hermes chat --resume ID` work on it, and `session/load` of a
 * session any process stored replays its history as `session/update` notifications; the next
 * prompt runs on that stored history, every carrier as stored, like a resumed chat.
 *
 * - `session/prompt` runs one agent turn (the tool loop included) and streams it: reasoning as
 *   `agent_thought_chunk`, text as `agent_message_chunk`, each tool call as `tool_call` and
 *   `tool_call_update`s (acp-updates.ts).
 * - Tools that need approval ask with `session/request_permission`; the client's file system is
 *   used where it offers one (acp-client-tools.ts).
 * - `session/cancel` interrupts the turn: what was answered and run so far is stored, a partial
 *   answer never is (runtime agent-turn.ts), and the prompt ends with `cancelled`.
 */

/** What the CLI gives the agent. */
export interface AcpHost {
  store: SessionStore;
  logger: Logger;
  version: string;
  /** Approve every tool call without asking (`--yolo`). */
  yolo: boolean;
  /** The stored session `id` names (its compaction child when it was compacted), or null. */
  findSession(id: string): Promise<SessionRecord | null>;
  /** The turn settings of a session (null: a new one) opened from `cwd`; its route stays open until `close`. */
  openSession(session: SessionRecord | null, cwd: string, sessionId: string): Promise<OpenedAcpSession>;
}

/** A session's turn settings, ready for prompts. */
export interface OpenedAcpSession {
  /** Where its tools run (a stored session runs where it started). */
  workspace: string;
  options: Omit<AgentTurnOptions, 'sessionId' | 'approve' | 'signal' | 'onEvent'>;
  close(): Promise<void>;
}

/** One session this agent process serves. */
interface LiveSession {
  /** The Hermes session the next prompt continues (a compaction moves it to the child). */
  hermesId: string;
  opened: OpenedAcpSession;
  running: AbortController | null;
  approvals: AcpApprovals;
}

/** The agent app and what ends it. */
export interface AcpAgent {
  app: acp.AgentApp;
  /** Interrupts running prompts and closes every session's route. */
  close(): Promise<void>;
}

/** Builds the agent over `host`. */
export function createAcpAgent(host: AcpHost): AcpAgent {
  const sessions = new Map<string, LiveSession>();
  let fs: ClientFileSystem = { readTextFile: false, writeTextFile: false };
  const replace = async (id: string, live: LiveSession) => {
    const previous = sessions.get(id);
    sessions.set(id, live);
    previous?.running?.abort();
    await previous?.opened.close();
  };
  const app = acp
    .agent({ name: 'hermes' })
    .onRequest('initialize', ({ params }) => {
      fs = {
        readTextFile: params.clientCapabilities?.fs?.readTextFile === true,
        writeTextFile: params.clientCapabilities?.fs?.writeTextFile === true,
      };
      return {
        protocolVersion: acp.PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: false, audio: false, embeddedContext: true },
        },
        agentInfo: { name: 'hermes', title: 'Hermes', version: host.version },
        authMethods: [],
      };
    })
    .onRequest('session/new', async ({ params, client }) => {
      requireAbsolute(params.cwd);
      const id = newSessionId();
      const opened = await host.openSession(null, params.cwd, id);
      await replace(id, { hermesId: id, opened, running: null, approvals: new AcpApprovals(client, host.yolo) });
      host.logger.info({ session: id, cwd: params.cwd }, `acp session ${id} started`);
      return { sessionId: id };
    })
    .onRequest('session/load', async ({ params, client }) => {
      requireAbsolute(params.cwd);
      const stored = await host.findSession(params.sessionId);
      if (!stored) throw acp.RequestError.sessionNotFound(params.sessionId);
      const opened = await host.openSession(stored, params.cwd, stored.id);
      await replace(params.sessionId, {
        hermesId: stored.id,
        opened,
        running: null,
        approvals: new AcpApprovals(client, host.yolo),
      });
      const messages = await host.store.listMessages(stored.id);
      for (const update of historyUpdates(messages, opened.workspace)) {
        await client.notify('session/update', { sessionId: params.sessionId, update });
      }
      return {};
    })
    .onRequest('session/prompt', async ({ params, client, signal }) => {
      const live = sessions.get(params.sessionId);
      if (!live) throw acp.RequestError.sessionNotFound(params.sessionId);
      if (live.running) throw acp.RequestError.invalidRequest(undefined, 'a prompt is already running in this session');
      const controller = new AbortController();
      signal.addEventListener('abort', () => controller.abort(), { once: true });
      live.running = controller;
      try {
        return { stopReason: await runPrompt(params.sessionId, live, params.prompt, { client, fs, controller }) };
      } finally {
        live.running = null;
      }
    })
    .onNotification('session/cancel', ({ params }) => {
      sessions.get(params.sessionId)?.running?.abort();
    });
  return {
    app,
    async close() {
      for (const live of sessions.values()) live.running?.abort();
      for (const live of sessions.values()) await live.opened.close();
      sessions.clear();
    },
  };
}

/** Runs one prompt as an agent turn and streams it; returns how it stopped. */
async function runPrompt(
  acpId: string,
  live: LiveSession,
  prompt: readonly ContentBlock[],
  connection: { client: acp.AgentContext; fs: ClientFileSystem; controller: AbortController },
): Promise<StopReason> {
  const { client, controller } = connection;
  const { opened } = live;
  // Updates leave in order; the prompt answers once every one is out.
  let sending: Promise<void> = Promise.resolve();
  const send = (update: SessionUpdate) => {
    sending = sending.then(() => client.notify('session/update', { sessionId: acpId, update })).catch(() => undefined);
  };
  const updates = new AcpTurnUpdates(opened.workspace, send);
  // The calls of the answer being run, for the permission prompt to point at.
  const pending: ToolCall[] = [];
  const onEvent = (event: AgentEvent) => {
    if (event.type === 'finish') pending.push(...(event.message.tool_calls ?? []));
    if (event.type === 'tool-result') {
      const done = pending.findIndex((call) => call.id === event.id);
      if (done >= 0) pending.splice(done, 1);
    }
    if (event.type === 'compacted') live.hermesId = event.to;
    updates.event(event);
  };
  const tools = clientFileTools(opened.options.tools ?? BUILTIN_TOOLS, connection.fs, client, acpId);
  const approve = live.approvals.decider(
    acpId,
    opened.workspace,
    (name) => pending.find((call) => call.function.name === name)?.id,
    controller.signal,
  );
  try {
    const result = await runAgentTurn(promptText(prompt), {
      ...opened.options,
      sessionId: live.hermesId,
      tools,
      approve,
      signal: controller.signal,
      onEvent,
    });
    live.hermesId = result.sessionId;
    await sending;
    return result.stoppedAtCap ? 'max_turn_requests' : 'end_turn';
  } catch (error) {
    await sending;
    if (controller.signal.aborted) return 'cancelled';
    opened.options.logger.warn({ session: live.hermesId, err: (error as Error).message }, 'acp prompt failed');
    throw acp.RequestError.internalError(undefined, (error as Error).message);
  }
}

/** The user's prompt as text: text blocks, linked and embedded files named or inlined. */
export function promptText(prompt: readonly ContentBlock[]): string {
  return prompt
    .map((block) => {
      switch (block.type) {
        case 'text':
          return block.text;
        case 'resource_link':
          return `[file: ${block.uri}]`;
        case 'resource':
          return 'text' in block.resource
            ? `<file uri="${block.resource.uri}">\n${block.resource.text}\n</file>`
            : `[file ${block.resource.uri} omitted: hermes reads text only]`;
        default:
          return `[${block.type} omitted: hermes reads text only]`;
      }
    })
    .join('\n\n');
}

function requireAbsolute(cwd: string): void {
  if (!isAbsolute(cwd)) throw acp.RequestError.invalidParams(undefined, `cwd must be an absolute path, not "${cwd}"`);
}
