import type { JsonObject } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import type { SessionRecord, SessionStore } from './session-store.js';

/**
 * Sessions of `hermes doctor --probe continuity` (SPEC §26.5): marked in their model config, kept
 * for inspection (`hermes sessions show ID`, `hermes replay preview --session ID --explain`), and
 * left out of what lists a user's sessions: `sessions list`, `--continue`, `--resume latest`,
 * `/sessions` and the gateway's `GET /v1/sessions`. A branch or a compaction of a probe session
 * copies the model config, so it stays marked.
 */

/** The model-config key that marks a probe session. */
export const PROBE_CONFIG_KEY = 'probe';

/** The model-config entry of a probe session: which probe, by which way in, when. */
export function probeMark(wayIn: string, at: Date = new Date()): JsonObject {
  return { [PROBE_CONFIG_KEY]: { kind: 'continuity', way_in: wayIn, at: at.toISOString() } };
}

/** True when the session was stored by a probe. */
export function isProbeSession(session: Pick<SessionRecord, 'modelConfig'>): boolean {
  return isJsonObject(session.modelConfig[PROBE_CONFIG_KEY]);
}

/**
 * The newest `limit` sessions that are not probes (every one without a limit), newest first; with
 * `owner`, only that gateway user's (`store-users.ts`). Asks the store for more rows while probes
 * fill the page, so a page is full whenever the store holds that many sessions of the user.
 */
export async function listUserSessions(store: SessionStore, limit?: number, owner?: string): Promise<SessionRecord[]> {
  const only = owner === undefined ? {} : { owner };
  if (limit === undefined) return (await store.listSessions(only)).filter((session) => !isProbeSession(session));
  let asked = limit;
  for (;;) {
    const rows = await store.listSessions({ ...only, limit: asked });
    const kept = rows.filter((session) => !isProbeSession(session));
    if (kept.length >= limit || rows.length < asked) return kept.slice(0, limit);
    asked *= 4;
  }
}
