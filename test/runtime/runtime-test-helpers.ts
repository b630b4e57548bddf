import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventStream } from '../../src/core/event-stream.js';
import type { AssistantMessage } from '../../src/core/message.js';
import type { AgentTurnOptions } from '../../src/runtime/agent-turn.js';
import type { Route } from '../../src/core/route.js';
import { silentLogger } from '../../src/logging/logger.js';
import type { SessionStore } from '../../src/storage/session-store.js';
import type { PreparedRequest, Transport, TransportRequest } from '../../src/transports/shared/transport.js';
import type { JsonObject } from '../../src/core/json.js';
import type { RouteProfile } from '../../src/replay/replay-route-profile.js';
import type { RecoveryContext } from '../../src/runtime/runtime-recovery.js';
import { createMemorySessionStore } from '../../src/storage/memory-session-store.js';

/** A temporary workspace (real path) holding notes.txt with `alpha beta\n`. */
export function makeWorkspace(prefix = 'hermes-runtime-'): string {
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  writeFileSync(join(workspace, 'notes.txt'), 'alpha beta\n');
  return workspace;
}

/** What every runtime test names for a turn: where it stores, the route, the workspace, the one transport. */
export interface TurnSetup {
  store: SessionStore;
  sessionId: string;
  route: Route;
  workspace: string;
  transport: Transport;
}

/**
 * Agent-turn options for `setup`: reasoning on, tool calls refused, a silent logger, every route
 * sent through `setup.transport`; `extra` overrides any of them.
 */
export function turnOptions(setup: TurnSetup, extra: Partial<AgentTurnOptions> = {}): AgentTurnOptions {
  const { store, sessionId, route, workspace, transport } = setup;
  return {
    store,
    sessionId,
    route,
    reasoning: { enabled: true },
    workspace,
    approve: async () => false,
    logger: silentLogger(),
    transportFor: () => transport,
    ...extra,
  };
}

/**
 * A transport that answers each request with the next of `replies` (`done` when they run out),
 * after `onSend` settles, and records a copy of every request it was sent.
 */
export function transportAnswering(
  replies: AssistantMessage[],
  onSend?: () => Promise<void>,
  wire: { api: Transport['api']; routeKey: string } = { api: 'chat_completions', routeKey: 'acme|x|m1' },
) {
  const requests: TransportRequest[] = [];
  const transport: Transport = {
    api: wire.api,
    prepare: () => ({ url: 'http://x', body: {}, decisions: [], carriersSent: [], routeKey: wire.routeKey }),
    send(request) {
      requests.push({ ...request, history: structuredClone([...request.history]) });
      const stream = new EventStream();
      const reply = replies.shift() ?? { role: 'assistant', content: 'done' };
      void (async () => {
        await onSend?.();
        stream.end({ type: 'finish', message: reply, finishReason: { unified: 'stop', raw: 'stop' }, usage: null });
      })();
      return stream;
    },
  };
  return { transport, requests };
}

/**
 * What a recovery row sees when `profile`'s request, whose wire body was `body`, was answered with
 * `error` (HTTP 400): a fresh in-memory store holding one session, nothing learned yet.
 */
export async function recoveryContext(
  profile: RouteProfile,
  body: JsonObject,
  error: string,
  config: JsonObject = {},
): Promise<RecoveryContext> {
  const store = createMemorySessionStore();
  const session = await store.createSession({});
  const prepared: PreparedRequest = { url: '', body, decisions: [], carriersSent: [], routeKey: profile.routeKey };
  return {
    body: error,
    status: 400,
    prepared,
    profile,
    store,
    sessionId: session.id,
    config,
    rejected: [],
    reasoning: { enabled: true },
    rejectedEfforts: [],
  };
}
