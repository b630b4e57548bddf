import { createHash } from 'node:crypto';
import type { AssistantMessage, Message } from '../core/message.js';
import type { Logger } from '../logging/logger.js';
import type { SessionStore } from '../storage/session-store.js';
import { newOwnedSessionId, sessionOwner } from '../storage/store-users.js';
import type { ClientHistory } from './gateway-front-door-handles.js';
import { visibleKey } from './gateway-front-door-restore.js';

/**
 * Which stored conversation a front-door request continues (SPEC §26.1). Every door indexes the
 * answers it mirrors; a request that names a session it never used before with a history that was
 * answered elsewhere (a fork: the client copied the conversation under a new id) restores from
 * the session that holds it. The Gemini door (docs/gateway.md "Gemini CLI") relies on the index
 * alone. Gemini CLI names no session in any header or body, drops every thought part,
 * and on `--resume` replaces each call's signature with Google's placeholder and drops the
 * others, so neither a header nor a handle can say which session holds the reasoning. What the
 * client keeps is what it saw: the text of each answer and each call's name, id and arguments.
 *
 * Every answer the door mirrors is noted in the store under a fingerprint of exactly that — a
 * SHA-256 of the door, the caller and the visible turn (in the mirror's own commit, `TurnWrite.fingerprints`). A
 * request is matched by looking up its assistant turns, newest first, one indexed read each
 * (at most {@link MAX_LOOKUPS}), never a scan of the sessions:
 *
 * - the newest turn held by exactly one session names it;
 * - a turn held by more sessions than one lookup reads (a short answer many conversations share)
 *   narrows nothing: earlier turns decide, and the session they name must hold it too;
 * - held by several (two conversations whose visible turns are identical so far), earlier turns
 *   narrow the candidates; still several, no session is used: reasoning is restored only from
 *   the one conversation the history can belong to, never from a look-alike;
 * - held by none (a new conversation, or history from elsewhere), the request starts a new
 *   session.
 *
 * The caller is part of the fingerprint (a gateway user's name, else a digest of the key it
 * presented when the gateway requires one: {@link requestCaller}), so one caller's history never
 * matches another's conversation. A gateway user's lookups also keep only sessions of its own
 * namespace (SPEC §26.10, `store-users.ts`), and its new sessions are made there: another user
 * presenting the same history gets a new, separate session with nothing restored. A structured
 * side request (`responseMimeType: "application/json"`: Gemini CLI's helpers) is answered
 * without a session.
 */

/** Lookups one request makes at most (each one indexed read). */
export const MAX_LOOKUPS = 8;

/** Sessions read per lookup: two are enough to tell one from several. */
const CANDIDATES_PER_LOOKUP = 4;

/** The conversation a request continues, and how to note its answer. */
export interface FoundConversation {
  /** The session to mirror into (new or matched). */
  id: string;
  /** True when an earlier answer of this conversation was found (restoration applies). */
  matched: boolean;
}

/** What the finder reads and notes. */
export interface ConversationIndex {
  store: SessionStore;
  logger: Logger;
}

/**
 * The session a request with `history` continues, for `caller` among the sessions of `owner`
 * (a gateway user, or null: the sessions outside every user's namespace); a new session id in
 * `owner`'s namespace when none matches, or when several do (see the module comment).
 */
export async function findConversation(
  index: ConversationIndex,
  history: readonly Message[],
  caller: string,
  owner: string | null,
  door = 'gemini',
): Promise<FoundConversation> {
  const turns = history.filter((message): message is AssistantMessage => message.role === 'assistant');
  let candidates: string[] | null = null;
  // Turns held by more sessions than one lookup reads: every candidate must hold them too.
  const shared: string[] = [];
  let lookups = 0;
  for (let position = turns.length - 1; position >= 0 && lookups < MAX_LOOKUPS; position -= 1) {
    lookups += 1;
    const fingerprint = turnFingerprint(caller, turns[position] as AssistantMessage, door);
    const read = await index.store.sessionsWithTurn(fingerprint, CANDIDATES_PER_LOOKUP);
    // A full read may leave holders out: it narrows nothing, and is checked per candidate below.
    if (read.length >= CANDIDATES_PER_LOOKUP) {
      shared.push(fingerprint);
      continue;
    }
    const holders = read.filter((id) => sessionOwner(id) === owner);
    if (holders.length === 0) continue;
    candidates = candidates === null ? holders : candidates.filter((id) => holders.includes(id));
    if (candidates.length <= 1) break;
  }
  if (candidates !== null && candidates.length === 1) {
    const id = candidates[0] as string;
    if (await holdsAll(index.store, id, shared)) return { id, matched: true };
    return { id: newOwnedSessionId(owner, new Date()), matched: false };
  }
  if (candidates !== null && candidates.length > 1) {
    index.logger.info(
      { sessions: candidates.length },
      `${door} door: ${candidates.length} stored conversations hold this history; no reasoning is restored from them`,
    );
  }
  return { id: newOwnedSessionId(owner, new Date()), matched: false };
}

/** Whether the session holds every turn of `fingerprints` (one indexed read each). */
async function holdsAll(store: SessionStore, sessionId: string, fingerprints: readonly string[]): Promise<boolean> {
  for (const fingerprint of fingerprints) if (!(await store.sessionHoldsTurn(sessionId, fingerprint))) return false;
  return true;
}

/**
 * The title of a new conversation's session: the user's words, the last text part of the first
 * user content (Gemini CLI puts its `<session_context>` note in the first). The session is
 * created with it by the turn's mirror write, so a turn the client abandons stores none.
 */
export function conversationTitle(request: { history: ClientHistory }): string {
  const question = request.history.messages.find((message) => message.role === 'user');
  const parts =
    typeof question?.content === 'string'
      ? [question.content]
      : (question?.content ?? []).map((part) => String(part['text'] ?? ''));
  const line = (parts.filter((part) => part.trim() !== '').at(-1) ?? '').trim().split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 57)}...` : line || 'untitled';
}

/**
 * The caller part of a request's fingerprints: `user:NAME` for a gateway user (its key may be
 * replaced; a digest never holds a colon, so no key digest can equal it), else {@link callerOf}
 * the key it presented.
 */
export function requestCaller(
  source: { owner: string | null; header(name: string): string | null },
  keyRequired: boolean,
): string {
  if (source.owner !== null) return `user:${source.owner}`;
  return callerOf(
    presentedKey((name) => source.header(name)),
    keyRequired,
  );
}

/** The caller part of a fingerprint: a digest of the presented key, or `""` when the gateway takes any. */
export function callerOf(presentedKey: string | null | undefined, keyRequired: boolean): string {
  if (!keyRequired || !presentedKey) return '';
  return createHash('sha256').update(presentedKey, 'utf8').digest('base64url');
}

/**
 * The fingerprint of a turn as the client sees it (text, and each call's id, name and arguments),
 * on one door for one caller.
 */
export function turnFingerprint(caller: string, turn: AssistantMessage, door = 'gemini'): string {
  return createHash('sha256')
    .update(`${door}\n${caller}\n${visibleKey(turn)}`, 'utf8')
    .digest('base64url');
}

/** The key a request presented (`x-api-key`, else a bearer token), for {@link callerOf}. */
export function presentedKey(header: (name: string) => string | null): string | null {
  const bearer = /^Bearer\s+(.+)$/i.exec(header('authorization') ?? '')?.[1];
  return header('x-api-key') ?? bearer ?? null;
}
