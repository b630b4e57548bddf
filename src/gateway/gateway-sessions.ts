import {
  sessionDocument,
  sessionSummaryDocument,
  type SessionDocument,
  type SessionSummaryDocument,
} from '../storage/session-documents.js';
import { listUserSessions } from '../storage/session-probe.js';
import type { SessionStore } from '../storage/session-store.js';
import { badRequest, GatewayHttpError, unknownSession } from './gateway-errors.js';
import type { SessionTurnLock } from './gateway-session-lock.js';
import type { RequestRouteDocument } from '../runtime/runtime-request-routes.js';
import { nextBranchTitle } from '../storage/session-branch-title.js';
import { MAX_SESSION_TITLE_LENGTH } from '../storage/session-store-rules.js';

/**
 * Session endpoints: list, show (SPEC §2 message shape, `model_config`,
 * lineage), branch (SPEC §17) and the request records with their replay decisions (SPEC §23.3).
 */

/** One row of `GET /v1/sessions`. */
export type GatewaySessionSummary = SessionSummaryDocument;

/** `GET /v1/sessions?limit=N`: newest first, without the continuity probe's sessions; a gateway user's own only (`owner`). */
export async function listSessionsBody(
  store: SessionStore,
  limitText: string | undefined,
  owner: string | null = null,
): Promise<{ object: 'list'; data: GatewaySessionSummary[] }> {
  const limit = limitText === undefined ? 100 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1) throw badRequest('"limit" must be a positive whole number', 'limit');
  const sessions = await listUserSessions(store, limit, owner ?? undefined);
  return {
    object: 'list',
    data: sessions.map(sessionSummaryDocument),
  };
}

/** `GET /v1/sessions/{id}`: the `sessions show --json` document. */
export async function showSessionBody(store: SessionStore, id: string): Promise<SessionDocument> {
  if (!(await store.getSession(id))) throw unknownSession(id);
  return sessionDocument(store, id);
}

/**
 * `POST /v1/sessions/{id}/branch` with an optional `{"title"}` body. Waits for a running turn
 * on the source so the copy never holds half a turn; `forkSession` is one transaction, so a
 * failure leaves no child (SPEC §17).
 */
export async function branchSessionBody(
  store: SessionStore,
  lock: SessionTurnLock,
  id: string,
  body: unknown,
): Promise<{ id: string; title: string | null; parent_session_id: string; message: string }> {
  if (!(await store.getSession(id))) throw unknownSession(id);
  const title = (body as { title?: unknown } | null)?.title;
  if (title !== undefined && title !== null && typeof title !== 'string') {
    throw badRequest('"title" must be a string', 'title');
  }
  if (typeof title === 'string' && title.length > MAX_SESSION_TITLE_LENGTH) {
    throw badRequest(
      `"title" is ${title.length} characters; a session title is at most ${MAX_SESSION_TITLE_LENGTH}`,
      'title',
      'title_too_long',
    );
  }
  const release = await lock.acquire(id);
  if (!release) {
    throw new GatewayHttpError(
      409,
      `session "${id}" is busy; branch it after its queued turns`,
      'conflict_error',
      'session_busy',
    );
  }
  try {
    const child = await store.forkSession(id, { title: title || (await nextBranchTitle(store, id)) });
    // SPEC §24.9: the reply names the title in plain text (chat clients show it verbatim).
    return {
      id: child.id,
      title: child.title,
      parent_session_id: id,
      message: `Branched to ${child.title ?? child.id}`,
    };
  } finally {
    release();
  }
}

/** One request record as the API shows it. */
export interface GatewayRequestRecord {
  id: number;
  at: string;
  api: string;
  route_key: string;
  status: number;
  decisions: unknown[];
  /** What the provider answered when the request failed (redacted). */
  error?: string;
  /** The route header (runtime-request-routes.ts), when the caller describes routes. */
  route?: RequestRouteDocument;
}

/** `GET /v1/sessions/{id}/requests`: every request sent for the session with its carrier decisions (values never). */
export async function listRequestsBody(
  store: SessionStore,
  id: string,
  describeRoute?: (api: string, routeKey: string) => RequestRouteDocument,
): Promise<{ object: 'list'; session_id: string; data: GatewayRequestRecord[] }> {
  if (!(await store.getSession(id))) throw unknownSession(id);
  const records = await store.listRequests(id);
  return {
    object: 'list',
    session_id: id,
    data: records.map((record) => {
      const shown: GatewayRequestRecord = {
        id: record.id,
        at: new Date(record.at).toISOString(),
        api: record.api,
        route_key: record.routeKey,
        status: record.status,
        decisions: record.decisions,
        ...(record.error !== undefined ? { error: record.error } : {}),
      };
      if (describeRoute) shown.route = describeRoute(record.api, record.routeKey);
      return shown;
    }),
  };
}
