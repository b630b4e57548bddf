import type { Route } from '../core/route.js';
import { createMemorySessionStore } from '../storage/memory-session-store.js';
import type { SessionStore } from '../storage/session-store.js';

/**
 * Where the AI SDK provider keeps what it learns about its route (runtime-route-memory.ts):
 * an AI SDK app owns its conversation, so there is no Hermes session. The session-level record
 * (verdicts, rejected signature fingerprints, kill switches, refused efforts) lives in memory
 * for the life of the model object, in one session of an in-memory store; the store-wide verdict
 * table is the caller's store when one is given (e.g. `openSessionStore()`: the verdicts every
 * `hermes` command and other processes share), else that same memory store. Nothing else of
 * the caller's store is touched: no sessions, no messages, no request records.
 */

/** The route memory of one model object. */
export interface AiSdkRouteMemory {
  store: SessionStore;
  sessionId: string;
}

/** Opens the route memory for `route`; `verdicts` is the store whose verdict table is used store-wide. */
export async function openRouteMemory(route: Route, verdicts: SessionStore | undefined): Promise<AiSdkRouteMemory> {
  const memory = createMemorySessionStore();
  const session = await memory.createSession({
    title: 'hermes-ts/ai-sdk route memory',
    provider: route.provider,
    model: route.model,
    baseUrl: route.baseUrl ?? null,
    api: route.api,
  });
  const shared = verdicts ?? memory;
  const store: SessionStore = {
    ...memory,
    recordVerdict: (verdict) => shared.recordVerdict(verdict),
    getVerdict: (routeKey) => shared.getVerdict(routeKey),
    listVerdicts: () => shared.listVerdicts(),
    forgetVerdicts: (routeKey) => shared.forgetVerdicts(routeKey),
    // A failed request's diagnostics have no session to belong to: not kept.
    recordRequest: async () => {},
  };
  return { store, sessionId: session.id };
}
