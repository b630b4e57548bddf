import type { JsonObject } from '../core/json.js';
import { storedBaseUrl } from './session-store-rules.js';
import type { Message } from '../core/message.js';
import type { SessionRecord, SessionStore } from './session-store.js';

/**
 * The JSON documents every surface prints for sessions (`hermes sessions list|show --json`,
 * the gateway's `/v1/sessions` endpoints), so the CLI and the gateway cannot drift apart.
 */

/** One row of a session listing (snake_case keys, ISO times). */
export interface SessionSummaryDocument {
  id: string;
  title: string | null;
  parent_session_id: string | null;
  provider: string | null;
  model: string | null;
  api: string | null;
  message_count: number;
  created_at: string;
  updated_at: string;
}

/**
 * The `sessions show --json` document: session fields, model_config, lineage and every stored
 * message of the live history (SPEC §2 shape), those taken back by `/undo` marked `_undone: true`;
 * optionally the archived ones too, marked `_archived: N`.
 */
export interface SessionDocument {
  id: string;
  title: string | null;
  parent_session_id: string | null;
  children: string[];
  provider: string | null;
  model: string | null;
  base_url: string | null;
  api: string | null;
  created_at: string;
  updated_at: string;
  model_config: JsonObject;
  messages: Message[];
}

/** A listing row for one session. */
export function sessionSummaryDocument(session: SessionRecord): SessionSummaryDocument {
  return {
    id: session.id,
    title: session.title,
    parent_session_id: session.parentSessionId,
    provider: session.provider,
    model: session.model,
    api: session.api,
    message_count: session.messageCount,
    created_at: new Date(session.createdAt).toISOString(),
    updated_at: new Date(session.updatedAt).toISOString(),
  };
}

/**
 * Builds the show document; throws when the session does not exist (callers check first). With
 * `includeArchived` the messages compaction archived are listed too, each with `_archived: N`
 * (`sessions show --archived`, `sessions export`).
 */
export async function sessionDocument(
  store: SessionStore,
  id: string,
  options: { includeArchived?: boolean } = {},
): Promise<SessionDocument> {
  const session = await store.getSession(id);
  if (!session) throw new Error(`no session ${id}`);
  const children = await store.childSessions(id);
  // Stored history in full: messages `/undo` took back carry `_undone: true` (session-undo.ts).
  const messages = await store.listMessages(id, {
    includeUndone: true,
    includeArchived: options.includeArchived === true,
  });
  return {
    id: session.id,
    title: session.title,
    parent_session_id: session.parentSessionId,
    children: children.map((child) => child.id),
    provider: session.provider,
    model: session.model,
    // Stored without credentials already; a row an older version wrote is redacted here.
    base_url: storedBaseUrl(session.baseUrl),
    api: session.api,
    created_at: new Date(session.createdAt).toISOString(),
    updated_at: new Date(session.updatedAt).toISOString(),
    model_config: session.modelConfig,
    messages,
  };
}
