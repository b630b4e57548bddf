import type { JsonObject } from '../core/json.js';
import type { AssistantMessage, Message } from '../core/message.js';
import type { Logger } from '../logging/logger.js';
import type { RequestRecordInput } from '../runtime/runtime-request.js';
import { claimForThisProcess, SessionBusyError } from '../storage/session-lease.js';
import { SessionChangedError } from '../storage/session-store-rules.js';
import type { NewSession, SessionFields, SessionStore } from '../storage/session-store.js';
import { badRequest } from './gateway-errors.js';
import { liveMessages, type FrontDoorSessionCopies } from './gateway-front-door-copies.js';
import type { SessionTurnLock } from './gateway-session-lock.js';
import { GATEWAY_LEASE_OWNER } from './gateway-turn.js';
import type { GatewayRoute } from './gateway-types.js';

/**
 * Front-door sessions (docs/gateway.md "Sessions of Claude Code and Codex"). A client that names
 * its session — `X-Hermes-Session-Id`, Claude Code's `x-claude-code-session-id`, Codex's
 * `session-id` (or `session_id`), OpenCode's `x-session-id` — gets its turns mirrored into a
 * gateway session with that id, so `hermes sessions show`, `hermes replay preview --session ID
 * --explain`, the inspector and learned verdicts work for them. The client still holds the history: each request is built from
 * what it sent; the session keeps a copy. Without a header the turn is stateless.
 *
 * What a turn appends: the client's whole history when the session is empty; the client's
 * messages past the stored ones when the stored ones are a prefix of the client's history; else
 * (the client compacted, edited, or sent a side request) the client's messages after its last
 * assistant turn. Then the answer. The request runs without holding the session; only the
 * append is serialized (the gateway's per-session queue and the store's lease), so a client's
 * parallel requests on one session are not queued behind each other.
 */

/** Headers naming a front-door session, first present wins. */
export const CLIENT_SESSION_HEADERS = [
  'x-hermes-session-id',
  'x-claude-code-session-id',
  'session-id',
  'session_id',
  'x-session-id',
];

const SESSION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The session a request names, or undefined (stateless); a malformed id is a 400. */
export function clientSessionId(header: (name: string) => string | null): string | undefined {
  for (const name of CLIENT_SESSION_HEADERS) {
    const value = header(name)?.trim();
    if (!value) continue;
    if (!SESSION_ID.test(value)) {
      throw badRequest(
        `the ${name} header must be 1-128 letters, digits or . _ : - (it names the gateway session mirroring this conversation)`,
        name,
        'invalid_session_id',
      );
    }
    return value;
  }
  return undefined;
}

/** The session record's route fields for `route`. */
export function sessionFieldsFor(route: GatewayRoute): SessionFields {
  return {
    provider: route.sessionRoute?.provider ?? route.route.provider,
    model: route.route.model,
    baseUrl: route.sessionRoute ? route.sessionRoute.baseUrl : (route.route.baseUrl ?? null),
    api: route.route.api,
  };
}

/** What {@link mirrorClientTurn} stores. */
export interface MirroredTurn {
  sessionId: string;
  history: readonly Message[];
  answer: AssistantMessage;
  record: RequestRecordInput;
  route: GatewayRoute;
  /** The answer's fingerprints in the conversation index, noted in the same commit. */
  fingerprints?: readonly string[];
  /** The gateway's copies of front-door sessions: read instead of the store, and followed through the write. */
  copies?: FrontDoorSessionCopies;
  /** What the turn learned for its session (verdicts): a new session starts with it. */
  modelConfig?: JsonObject | undefined;
  /** The title a new session gets (the Gemini door's), else the first user message's first line. */
  title?: string | undefined;
}

/**
 * Appends the turn to its session: the messages, the session's route fields and the request
 * record in one write that takes and drops the session's lease (`SessionStore.writeTurn`), and
 * creates the session in that same write when it is new, so a turn the client abandoned before
 * its answer leaves no session. A diagnostic copy: a failure (a read-only or unreachable store
 * included) is logged and the client's answer goes out regardless.
 */
export async function mirrorClientTurn(
  store: SessionStore,
  lock: SessionTurnLock,
  logger: Logger,
  turn: MirroredTurn,
): Promise<void> {
  const unlock = await lock.acquire(turn.sessionId);
  if (!unlock) {
    logger.warn({ session: turn.sessionId }, 'session mirror skipped: too many turns queued on the session');
    return;
  }
  try {
    await storeMirror(store, turn);
  } catch (error) {
    logger.warn(
      { session: turn.sessionId, err: (error as Error).message },
      `session mirror failed (the answer was sent): ${(error as Error).message}`,
    );
  } finally {
    unlock();
  }
}

/** Reads of the session a mirror makes at most while another process holds or writes it. */
const MIRROR_ATTEMPTS = 10;

/**
 * The mirror's one write. The stored messages are the gateway's copy (first attempt) or read;
 * the write holds only while the session is at that version and no other live turn holds its
 * lease, else it waits a little (another process's append finishing) and reads again.
 */
async function storeMirror(store: SessionStore, turn: MirroredTurn): Promise<void> {
  const { sessionId: _sessionId, ...record } = turn.record;
  for (let attempt = 1; ; attempt += 1) {
    const kept = attempt === 1 ? turn.copies?.kept(turn.sessionId) : undefined;
    const { version, stored, known } = kept
      ? { version: kept.version, stored: liveMessages(kept), known: kept.mirrored }
      : await storedHistory(store, turn);
    const plan = mirrorPlan(stored, turn.history, known);
    const messages = [...plan.messages, turn.answer];
    try {
      const written = await store.writeTurn(turn.sessionId, {
        acquireLease: claimForThisProcess(GATEWAY_LEASE_OWNER),
        ...(version === undefined ? { createSession: newSessionFields(turn) } : { expectedVersion: version }),
        messages,
        session: sessionFieldsFor(turn.route),
        requests: [record],
        fingerprints: turn.fingerprints ?? [],
        releaseLease: true,
      });
      if (version !== undefined) {
        turn.copies?.appended(turn.sessionId, version, written.version, messages, plan.aligned);
      }
      return;
    } catch (error) {
      // A write from the unchecked copy that failed is tried again at once from the store.
      if (kept) continue;
      const again = error instanceof SessionBusyError || error instanceof SessionChangedError;
      if (!again || attempt >= MIRROR_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

/** The session's live history and its version: the gateway's copy when it has one, else read. */
async function storedHistory(
  store: SessionStore,
  turn: MirroredTurn,
): Promise<{ version: number | undefined; stored: readonly Message[]; known?: readonly Message[] | undefined }> {
  if (turn.copies) {
    // Null: the store does not hold the session (the write creates it).
    const copy = await turn.copies.read(store, turn.sessionId);
    return copy
      ? { version: copy.version, stored: liveMessages(copy), known: copy.mirrored }
      : { version: undefined, stored: [] };
  }
  const session = await store.getSession(turn.sessionId);
  return { version: session?.version, stored: await store.listMessages(turn.sessionId) };
}

/** A new session's fields: the route, the title from the client's first question, what the turn learned. */
function newSessionFields(turn: MirroredTurn): Omit<NewSession, 'id'> {
  const question = turn.history.find((message) => message.role === 'user');
  return {
    title: turn.title ?? (question ? titleOf(question.content) : null),
    ...sessionFieldsFor(turn.route),
    modelConfig: turn.modelConfig ?? {},
  };
}

/** The client's messages the session does not hold yet (rule in the module comment). */
export function newMessages(stored: readonly Message[], client: readonly Message[]): Message[] {
  return mirrorPlan(stored, client, undefined).messages;
}

/**
 * {@link newMessages}, and whether the client's turns (system messages left out) now line up
 * with the stored ones position by position (`aligned`: what the session's copy keeps as
 * `mirrored`). `known`: the client turns an earlier mirror lined up, by object; a turn that is
 * the same object at the same position equals its stored turn and is not compared again.
 */
function mirrorPlan(
  stored: readonly Message[],
  client: readonly Message[],
  known: readonly Message[] | undefined,
): { messages: Message[]; aligned: readonly Message[] | undefined } {
  const storedTurns = stored.filter((message) => message.role !== 'system');
  const clientTurns = client.filter((message) => message.role !== 'system');
  if (storedTurns.length === 0) {
    return { messages: stored.length === 0 ? [...client] : clientTurns, aligned: clientTurns };
  }
  const prefix =
    storedTurns.length <= clientTurns.length &&
    storedTurns.every((message, index) => {
      const turn = clientTurns[index] as Message;
      return (known !== undefined && known[index] === turn) || sameTurn(message, turn);
    });
  if (prefix) return { messages: clientTurns.slice(storedTurns.length), aligned: clientTurns };
  let lastAssistant = -1;
  clientTurns.forEach((message, index) => {
    if (message.role === 'assistant') lastAssistant = index;
  });
  return { messages: clientTurns.slice(lastAssistant + 1), aligned: undefined };
}

function sameTurn(stored: Message, client: Message): boolean {
  if (stored.role !== client.role) return false;
  if (stored.role === 'tool' && client.role === 'tool') {
    return stored.tool_call_id === client.tool_call_id && stored.content === client.content;
  }
  if (stored.role === 'assistant' && client.role === 'assistant') {
    const ids = (message: AssistantMessage) => (message.tool_calls ?? []).map((call) => call.id).join('\n');
    return (stored.content ?? '') === (client.content ?? '') && ids(stored) === ids(client);
  }
  return textOf(stored.content) === textOf(client.content);
}

function textOf(content: Message['content']): string {
  if (typeof content === 'string') return content;
  if (content === null) return '';
  return content.map((part) => (typeof part['text'] === 'string' ? part['text'] : '')).join('\n');
}

function titleOf(content: Message['content']): string {
  const line = textOf(content).trim().split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 57)}...` : line || 'untitled';
}
