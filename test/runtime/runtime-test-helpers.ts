import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentTurnOptions } from '../../src/runtime/agent-turn.js';
import type { Route } from '../../src/core/route.js';
import { silentLogger } from '../../src/logging/logger.js';
import type { SessionStore } from '../../src/storage/session-store.js';
import type { Transport } from '../../src/transports/shared/transport.js';

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
