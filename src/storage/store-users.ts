import { UsageError } from '../core/errors.js';
import { newSessionId } from '../core/ids.js';

/**
 * Gateway users (SPEC §26.10, docs/operations.md "Users"): named keys beside the gateway's single
 * token. The store keeps each key's SHA-256 only (the key is shown once, when it is made), an
 * optional requests-per-minute limit counted in the store (so a fleet on one PostgreSQL database
 * shares one count per user), and the sessions each user owns: a user's session ids begin with
 * `NAME/`, so two users naming the same session id get two sessions.
 */

/** One gateway user. Times are epoch milliseconds. */
export interface GatewayUserRecord {
  /** 1-64 letters, digits, `.`, `_` or `-`, beginning with a letter or digit. */
  name: string;
  /** SHA-256 of the user's key, lower-case hex. The key itself is never stored. */
  keyHash: string;
  /** Requests admitted per minute (sliding window); null: no limit. */
  requestsPerMinute: number | null;
  createdAt: number;
  /** When the key was revoked (it then opens nothing); null while it works. */
  revokedAt: number | null;
}

/** What {@link GatewayUserStore.admitGatewayRequest} decided. */
export interface RateAdmission {
  admitted: boolean;
  /** When refused: milliseconds until a request would be admitted (0 when admitted). */
  retryAfterMs: number;
}

/** The users part of the session store, implemented by every store and its conformance suite. */
export interface GatewayUserStore {
  /**
   * Adds a user. A name held by a user whose key works is a usage error; a revoked user of that
   * name is replaced (a new key for the same name, who keeps the name's sessions).
   */
  addGatewayUser(user: GatewayUserRecord): Promise<GatewayUserRecord>;
  /** Every user, revoked ones included, by name. */
  listGatewayUsers(): Promise<GatewayUserRecord[]>;
  /** The user whose key hashes to `keyHash` (revoked or not), or null. */
  gatewayUserByKeyHash(keyHash: string): Promise<GatewayUserRecord | null>;
  /** Revokes the user's key at `at`; false when no user of that name has a working key. */
  revokeGatewayUser(name: string, at: number): Promise<boolean>;
  /**
   * Counts one request of `name` at `at` when fewer than `limit` were admitted in the minute
   * before it (a sliding window: {@link slidingWindowCap}); a refused request is not counted.
   * Atomic across processes sharing the store.
   */
  admitGatewayRequest(name: string, limit: number, at: number): Promise<RateAdmission>;
}

/** Length of one rate window. */
export const RATE_WINDOW_MS = 60_000;

const USER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const KEY_HASH = /^[0-9a-f]{64}$/;

/** A usage error naming what is wrong with `name`, or null when it is a valid user name. */
export function userNameProblem(name: string): string | null {
  if (USER_NAME.test(name)) return null;
  return `user name "${name.slice(0, 80)}" must be 1-64 letters, digits, ".", "_" or "-", beginning with a letter or digit`;
}

/** Checks a user before it is stored. */
export function validGatewayUser(user: GatewayUserRecord): GatewayUserRecord {
  const problem = userNameProblem(user.name);
  if (problem) throw new UsageError(problem);
  if (!KEY_HASH.test(user.keyHash)) throw new UsageError('a gateway user needs the SHA-256 of its key (64 hex digits)');
  const limit = user.requestsPerMinute;
  if (limit !== null && (!Number.isSafeInteger(limit) || limit < 1)) {
    throw new UsageError('--requests-per-minute must be a whole number of at least 1');
  }
  if (!Number.isSafeInteger(user.createdAt)) throw new UsageError('a gateway user needs a whole-number createdAt');
  if (user.revokedAt !== null && !Number.isSafeInteger(user.revokedAt)) {
    throw new UsageError('a gateway user needs a whole-number revokedAt or null');
  }
  return { ...user };
}

/** The error adding a user whose name is held by a working key raises. */
export function duplicateUserError(name: string): UsageError {
  return new UsageError(`a user "${name}" already exists; revoke it first (hermes gateway users revoke ${name})`);
}

/** The columns of `gateway_users`, in the order both SQL stores read and write them. */
export const GATEWAY_USER_COLUMNS = 'name, key_hash, requests_per_minute, created_at, revoked_at';

/** A `gateway_users` row as both SQL stores read it. */
export interface GatewayUserRow {
  name: string;
  key_hash: string;
  requests_per_minute: number | string | null;
  created_at: number | string;
  revoked_at: number | string | null;
}

/** Maps a `gateway_users` row to the store record. */
export function gatewayUserFromRow(row: GatewayUserRow): GatewayUserRecord {
  return {
    name: row.name,
    keyHash: row.key_hash,
    requestsPerMinute: row.requests_per_minute === null ? null : Number(row.requests_per_minute),
    createdAt: Number(row.created_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  };
}

/** Start of the rate window holding `at`. */
export function rateWindowStart(at: number): number {
  return at - (at % RATE_WINDOW_MS);
}

/**
 * The largest count the current window may reach when admitting a request at `at`: the window
 * before it counts for the part of the last minute it still covers (the sliding-window counter:
 * `previous × (1 − elapsed) + current ≤ limit`).
 */
export function slidingWindowCap(previous: number, limit: number, at: number): number {
  const elapsed = (at - rateWindowStart(at)) / RATE_WINDOW_MS;
  return Math.floor(limit - previous * (1 - elapsed) + 1e-9);
}

/**
 * Milliseconds from `at` until one more request fits, given the counts of the window before
 * and the current one: the previous window's weight shrinks as time passes, and at the next
 * window the current count becomes the previous one.
 */
export function rateRetryAfterMs(previous: number, current: number, limit: number, at: number): number {
  const start = rateWindowStart(at);
  const remaining = start + RATE_WINDOW_MS - at;
  const elapsed = (at - start) / RATE_WINDOW_MS;
  if (current + 1 <= limit && previous > 0) {
    // Within this window: previous × (1 − elapsed − t/W) + current + 1 ≤ limit.
    const fraction = 1 - elapsed - (limit - current - 1) / previous;
    const wait = wholeMs(Math.max(0, fraction) * RATE_WINDOW_MS);
    if (wait < remaining) return Math.max(1, wait);
  }
  // In the next window: current × (1 − t'/W) + 1 ≤ limit.
  const next = current > 0 ? Math.max(0, 1 - (limit - 1) / current) : 0;
  return remaining + wholeMs(next * RATE_WINDOW_MS);
}

/** Milliseconds rounded up, ignoring floating-point dust (20000.000000000004 is 20000). */
function wholeMs(value: number): number {
  return Math.ceil(value - 1e-6);
}

/** The admission decided from the two windows' counts, before any write. */
export function rateAdmission(
  previous: number,
  current: number,
  limit: number,
  at: number,
): RateAdmission & { cap: number } {
  const cap = slidingWindowCap(previous, limit, at);
  if (current + 1 <= cap) return { admitted: true, retryAfterMs: 0, cap };
  return { admitted: false, retryAfterMs: rateRetryAfterMs(previous, current, limit, at), cap };
}

/** The owner of a session: the user name before the first `/` of its id, or null. */
export function sessionOwner(sessionId: string): string | null {
  const slash = sessionId.indexOf('/');
  return slash > 0 ? sessionId.slice(0, slash) : null;
}

/**
 * The stored id of the session `owner` names `sessionId`: the id itself when it already lies in
 * the owner's namespace (`NAME/…`, what the gateway answered), else `NAME/` + the id. Null
 * `owner` (the gateway's token, or no token): the id as given.
 */
export function ownedSessionId(owner: string | null, sessionId: string): string {
  if (owner === null || sessionId.startsWith(`${owner}/`)) return sessionId;
  return `${owner}/${sessionId}`;
}

/** A new session id in the namespace of `owner` (none: a plain new id). */
export function newOwnedSessionId(owner: string | null, now: Date): string {
  return ownedSessionId(owner, newSessionId(now));
}

/** The id of a child session (branch, compaction) of `parentId`: a new id in its parent's owner's namespace. */
export function childSessionId(parentId: string, now: Date): string {
  return newOwnedSessionId(sessionOwner(parentId), now);
}
