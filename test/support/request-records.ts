import type { RequestRecord } from '../../src/storage/session-store.js';
import { openSqliteSessionStore } from '../../src/storage/sqlite-session-store.js';
import { stateDbPath } from '../../src/storage/store-paths.js';
import type { Sandbox } from './e2e.js';

/** The request records (`state.db`) of a session in a sandbox, oldest first. */
export async function requestRecords(sandbox: Sandbox, sessionId: string): Promise<RequestRecord[]> {
  const store = openSqliteSessionStore(stateDbPath(sandbox.home));
  try {
    return await store.listRequests(sessionId);
  } finally {
    await store.close();
  }
}

/** `<action>: <reason>` of the decisions on `field` of a session's newest request. */
export async function lastRequestDecisions(sandbox: Sandbox, sessionId: string, field: string): Promise<string[]> {
  const last = (await requestRecords(sandbox, sessionId)).at(-1);
  return (last?.decisions ?? [])
    .filter((decision) => decision['field'] === field)
    .map((decision) => `${String(decision['action'])}: ${String(decision['reason'])}`);
}
