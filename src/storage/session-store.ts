import type { JsonObject } from '../core/json.js';
import type { Message } from '../core/message.js';
import type { LeaseClaim, LeaseRecord } from './session-lease.js';
import type { InPlaceCompaction, InPlaceCompactionResult } from './session-archive.js';
import type { MessageSearchHit, MessageSearchOptions } from './session-search.js';
import type { GatewayUserStore } from './store-users.js';

export type { InPlaceCompaction, InPlaceCompactionResult } from './session-archive.js';
export type { MessageSearchHit, MessageSearchOptions, SearchField } from './session-search.js';

/** A stored session (without its messages). Times are epoch milliseconds. */
export interface SessionRecord {
  id: string;
  title: string | null;
  parentSessionId: string | null;
  createdAt: number;
  updatedAt: number;
  /** Provider id / model / base URL the session last ran on (never an API key). */
  provider: string | null;
  model: string | null;
  baseUrl: string | null;
  /** Wire API the session last ran on. */
  api: string | null;
  /** Session model config (SPEC §18): learned verdicts, rejected-signature fingerprints, ... */
  modelConfig: JsonObject;
  /** Messages of the live history: every stored message but those compaction archived (`/undo`ne ones count). */
  messageCount: number;
  /**
   * The session's write version: 1 when created, one more after every write that changes its
   * row or its messages (appends, `/undo`, title or route fields, model config, {@link TurnWrite}s
   * with messages or fields). Taking or releasing its lease and recording a request leave it.
   * A process that kept the session's history compares it (`runtime-warm-history.ts`).
   */
  version: number;
}

/** Fields a new session may be created with. */
export interface NewSession {
  /** Defaults to a fresh sortable id. */
  id?: string;
  title?: string | null;
  parentSessionId?: string | null;
  provider?: string | null;
  model?: string | null;
  baseUrl?: string | null;
  api?: string | null;
  modelConfig?: JsonObject;
}

/** A store-wide learned verdict (SPEC §23.1): a route that rejects some reasoning carriers. */
export interface VerdictRecord {
  /** `provider|host|model` (SPEC §3.3). */
  routeKey: string;
  provider: string;
  host: string;
  model: string;
  /** Rejected carrier fields, sorted. */
  fields: string[];
  /** When the first field was learned (epoch ms). */
  firstSeen: number;
  /** When the record last changed (epoch ms). */
  updatedAt: number;
  /** The provider error text that taught it (trimmed, never a key). */
  errorText: string;
}

/** One request Hermes sent for a session: the route and the replay decisions (SPEC §23.3), never values. */
export interface RequestRecord {
  id: number;
  sessionId: string;
  at: number;
  api: string;
  routeKey: string;
  /** HTTP status or 0 when the request never got an answer. */
  status: number;
  /** Replay decisions as recorded (CarrierDecision[] JSON). */
  decisions: JsonObject[];
  /**
   * What the provider answered when the request failed: its complaint, redacted and cut to a few
   * KiB (SPEC §26.2: a failing request shows why); absent for an answered request.
   */
  error?: string;
}

/**
 * A key that seals the gateway's reasoning handles (SPEC §25.6, docs/gateway.md). The store keeps
 * every key a handle may still name: the newest seals, all of them open. The secret never reaches
 * a log, an export or a gateway response.
 */
export interface HandleKeyRecord {
  /** Short public id, written in clear at the head of every handle the key seals. */
  id: string;
  /** The 32-byte AES-256-GCM key, base64url. */
  secret: string;
  /** When the key was made (epoch ms); the newest key seals. */
  createdAt: number;
}

/** What a store says about itself (`hermes doctor`). Never holds a password. */
export interface StoreDescription {
  kind: 'sqlite' | 'postgres' | 'memory';
  /** Schema version stored in the database (null for the memory store). */
  schemaVersion: number | null;
  /** The file path, or the database URL without credentials. */
  location: string;
}

/** A stored message that cannot be decoded (damaged row): skipped by `listMessages`, reported here. */
export interface UndecodableMessage {
  sessionId: string;
  /** 1-based position of the row in the session. */
  seq: number;
  /** Why it cannot be decoded. */
  reason: string;
}

/** Session fields a caller may change (`updateSession`, `appendMessages`). */
export type SessionFields = Partial<Pick<SessionRecord, 'title' | 'provider' | 'model' | 'baseUrl' | 'api'>>;

/** Options of `appendMessages`. */
export interface AppendMessagesOptions {
  /** Also sets these session fields, in the same transaction as the messages. */
  session?: SessionFields;
}

/**
 * One write transaction of a turn (`writeTurn`): every part is optional and all of them are
 * applied, or none. A turn on an existing session writes twice (SPEC §23.6): the lease with its
 * question (`acquireLease`, `expectedVersion`, `messages`, `session`), then its answer with the
 * request record and the lease's release (`leaseId`, `messages`, `requests`, `releaseLease`).
 */
export interface TurnWrite {
  /**
   * Creates the session, with the write's id and these fields, in the same transaction: a new
   * session is stored with its first messages, never empty (a process killed before the write
   * leaves nothing). The session must not exist yet: when it does, `SessionChangedError` (found
   * version: the stored one, expected: 0) and nothing is written; the caller reads it and writes again.
   */
  createSession?: Omit<NewSession, 'id'> | undefined;
  /**
   * Takes the session's lease first, as `acquireLease` does (`SessionBusyError` naming the live
   * holder otherwise, and nothing is written).
   */
  acquireLease?: LeaseClaim | undefined;
  /** Writes only while this lease holds the session; otherwise `SessionLeaseLostError` and nothing is written. */
  leaseId?: string | undefined;
  /**
   * Writes only while the session's {@link SessionRecord.version} is this one: otherwise
   * `SessionChangedError` and nothing is written (the history the caller read is no longer the
   * stored one: read it again).
   */
  expectedVersion?: number | undefined;
  /** Appended in order after the session's last message. */
  messages?: readonly Message[] | undefined;
  /** Session fields set; given (even `{}`), the session is marked as used now. */
  session?: SessionFields | undefined;
  /** Request records of the session (SPEC §23.3), in order. */
  requests?: readonly Omit<RequestRecord, 'id' | 'sessionId'>[] | undefined;
  /** Turn fingerprints noted for the session in the same commit (as `addTurnFingerprint`). */
  fingerprints?: readonly string[] | undefined;
  /** Drops the lease named by `leaseId` (or taken by `acquireLease`) in the same commit. */
  releaseLease?: boolean | undefined;
}

/** What a {@link TurnWrite} left. */
export interface TurnWriteResult {
  /** The session's version after the write. */
  version: number;
  /** The lease `acquireLease` took (null without one, or when `releaseLease` dropped it again). */
  lease: LeaseRecord | null;
}

/** Options of `listMessages`. */
export interface ListMessagesOptions {
  /** Called for each row that cannot be decoded; the other rows are returned. */
  onUndecodable?: (row: UndecodableMessage) => void;
  /**
   * Also return the messages `/undo` took back, each carrying `_undone: true` (`sessions show`).
   * Default false: the history a request is built from (`session-undo.ts`).
   */
  includeUndone?: boolean;
  /**
   * Also return the messages an in-place compaction archived, each carrying `_archived: N`
   * (`sessions show --archived`, export). Default false: the history a request is built from
   * (`session-archive.ts`).
   */
  includeArchived?: boolean;
}

/**
 * The session store (STYLE rule 6 (docs/architecture.md)). Implementations: SQLite at `$HERMES_HOME/state.db`
 * (`sqlite-session-store.ts`), PostgreSQL for gateway fleets (`postgres-session-store.ts`) and
 * in-memory (`memory-session-store.ts`), all run through one conformance suite. Messages are
 * returned exactly as appended (every SPEC §2 key, the origin stamp, private `_` keys), in
 * append order. Every write is its own transaction; `writeTurn` combines the writes of one turn step.
 * The gateway's users (`store-users.ts`) live in the same store.
 */
export interface SessionStore extends GatewayUserStore {
  createSession(input?: NewSession): Promise<SessionRecord>;
  getSession(id: string): Promise<SessionRecord | null>;
  /**
   * Newest first (by updatedAt). `owner`: only the sessions of that gateway user (ids beginning
   * with `OWNER/`, `store-users.ts`).
   */
  listSessions(options?: { limit?: number; owner?: string }): Promise<SessionRecord[]>;
  /** The most recently updated session, for `--continue`. */
  latestSession(): Promise<SessionRecord | null>;
  /** Updates provider/model/baseUrl/api/title. */
  updateSession(id: string, fields: SessionFields): Promise<void>;
  /** Deletes the session and its messages; children keep existing with parentSessionId set to null. Returns false when unknown. */
  deleteSession(id: string): Promise<boolean>;
  /** Sessions whose parent is `id`. */
  childSessions(id: string): Promise<SessionRecord[]>;

  /** Appends one message in its own transaction; returns its sequence number (1-based). */
  appendMessage(sessionId: string, message: Message): Promise<number>;
  /**
   * Appends several messages in one transaction (all or none), with `options.session` fields
   * set in that same transaction (a turn stores its question and the session's route at once).
   */
  appendMessages(sessionId: string, messages: readonly Message[], options?: AppendMessagesOptions): Promise<void>;
  /**
   * Every stored message of the session, in order. A row that cannot be decoded is left out and
   * reported to `options.onUndecodable` (or to the store's own warning sink), never thrown.
   */
  listMessages(sessionId: string, options?: ListMessagesOptions): Promise<Message[]>;
  /**
   * `/undo`, in one transaction: marks the last user message that is not undone yet and every
   * later message `_undone: true` (`session-undo.ts`). They stay stored; `listMessages` leaves
   * them out unless `includeUndone`. Returns how many messages it marked: 0 when no exchange is
   * left to undo. Throws the unknown-session usage error for an unknown id.
   */
  undoLastExchange(sessionId: string): Promise<number>;

  /**
   * Compacts the session in place (SPEC §26.6), in one transaction: the messages from position
   * `from` of the live history are archived (kept, marked `_archived: N`, left out of
   * `listMessages`), the live messages from `to` on are replaced by their copies in
   * `compaction.messages`, which follow the head, and the model config patch is merged. The
   * session keeps its id. Checks the lease and version like {@link TurnWrite}; throws the
   * unknown-session usage error for an unknown id and a usage error for positions that do not fit.
   */
  compactInPlace(sessionId: string, compaction: InPlaceCompaction): Promise<InPlaceCompactionResult>;

  /**
   * Messages of every session (or one) whose text, tool calls or reasoning hold `text`
   * (case-insensitive substring), live and archived alike: newest session first, then in stored
   * order, at most `options.limit` (default 20) hits (`session-search.ts`).
   */
  searchMessages(text: string, options?: MessageSearchOptions): Promise<MessageSearchHit[]>;

  /**
   * One transaction of a turn ({@link TurnWrite}): the lease, messages, session fields, request
   * records and the lease's release, checked and applied together. Throws the unknown-session
   * usage error for an unknown id.
   */
  writeTurn(sessionId: string, write: TurnWrite): Promise<TurnWriteResult>;

  /** Merges `patch` into the session's model config; a `null` value deletes that key (SPEC §18). Returns the new config. */
  patchModelConfig(sessionId: string, patch: JsonObject): Promise<JsonObject>;

  /**
   * Creates a child session (parentSessionId = source, its id in the source's owner namespace:
   * `childSessionId`) holding a copy of every source message,
   * and the source's model config, in one transaction: a failure leaves no child.
   * `messages` replaces the copied list when given (compaction writes summary + retained turns).
   */
  forkSession(
    sourceId: string,
    options?: { title?: string | null; messages?: readonly Message[]; modelConfig?: JsonObject },
  ): Promise<SessionRecord>;

  /** Records (merges) a store-wide verdict. */
  recordVerdict(verdict: Omit<VerdictRecord, 'firstSeen' | 'updatedAt'> & { at?: number }): Promise<VerdictRecord>;
  listVerdicts(): Promise<VerdictRecord[]>;
  getVerdict(routeKey: string): Promise<VerdictRecord | null>;
  /** Returns how many verdicts were removed. */
  forgetVerdicts(routeKey: string | 'all'): Promise<number>;

  /** Records one request's route and decisions. */
  recordRequest(record: Omit<RequestRecord, 'id'>): Promise<void>;
  listRequests(sessionId: string): Promise<RequestRecord[]>;

  /** Every handle key (SPEC §25.6), oldest first (by `createdAt`, then `id`). */
  listHandleKeys(): Promise<HandleKeyRecord[]>;
  /**
   * Adds a handle key; a key whose id is already stored is left as it is (the call changes
   * nothing). Returns every key, oldest first, so gateways that add one at once all see both.
   */
  addHandleKey(key: HandleKeyRecord): Promise<HandleKeyRecord[]>;
  /** Deletes every handle key except `keepId`; returns how many it deleted. */
  retireHandleKeys(keepId: string): Promise<number>;

  /**
   * Notes that the session holds an assistant turn whose visible content digests to
   * `fingerprint` (a front door that gets no session id finds the conversation by it,
   * `gateway-front-door-conversations.ts`); noting the same pair again changes nothing. Deleting the
   * session deletes its notes. Throws the unknown-session usage error for an unknown id.
   */
  addTurnFingerprint(sessionId: string, fingerprint: string): Promise<void>;
  /** The sessions holding a turn of `fingerprint` (at most `limit`, most recently noted first): one indexed read. */
  sessionsWithTurn(fingerprint: string, limit: number): Promise<string[]>;
  /** Whether the session holds a turn of `fingerprint`: one indexed read. */
  sessionHoldsTurn(sessionId: string, fingerprint: string): Promise<boolean>;

  /**
   * Takes the session's lease (SPEC §23.6: one writer per session across processes) or throws
   * `SessionBusyError` naming the live holder. The claim wins when the session has no lease,
   * holds the claimant's own, an expired one, or one whose holder is gone (`mayTakeLease`).
   * Throws the unknown-session usage error for an unknown id.
   */
  acquireLease(sessionId: string, claim: LeaseClaim): Promise<LeaseRecord>;
  /** Extends the lease by `ttlMs` from now; null when `leaseId` no longer holds it (taken over or released). */
  renewLease(sessionId: string, leaseId: string, ttlMs: number): Promise<LeaseRecord | null>;
  /** Drops the lease when `leaseId` still holds it; returns whether it did. */
  releaseLease(sessionId: string, leaseId: string): Promise<boolean>;
  /** The session's current lease (expired ones included), or null. */
  readLease(sessionId: string): Promise<LeaseRecord | null>;

  /** Kind, schema version and location (without credentials), for `hermes doctor`. */
  describe(): Promise<StoreDescription>;

  /**
   * Reads from the database itself (no cache answers it): resolves when it answers, throws a
   * one-line `StorageError` when it does not (the gateway's `/readyz`, SPEC §26.10).
   */
  ping(): Promise<void>;

  close(): Promise<void>;
}
