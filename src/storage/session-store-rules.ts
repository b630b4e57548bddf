import { HermesError, UsageError } from '../core/errors.js';
import { isJsonObject } from '../core/json.js';
import { redactUrl } from '../core/redact.js';
import type { JsonObject } from '../core/json.js';
import type { HandleKeyRecord, SessionRecord, VerdictRecord } from './session-store.js';

/**
 * Semantics both `SessionStore` implementations share (SQLite and memory), kept in one place so
 * the conformance suite tests one set of rules rather than two copies of them.
 */

/** The error every write on an unknown session id raises. */
export function unknownSessionError(sessionId: string): UsageError {
  return new UsageError(`no session "${sessionId}" (see hermes sessions list)`);
}

/** The error `createSession` raises when the id is taken. */
export function duplicateSessionError(sessionId: string): UsageError {
  return new UsageError(`a session "${sessionId}" already exists; pick another id or omit it`);
}

/** Longest session title stored, in characters (a title is one line in `sessions list`). */
export const MAX_SESSION_TITLE_LENGTH = 200;

/** `title` cut to `room` characters with a trailing `…`, so a derived title stays under the cap. */
export function shortenedTitle(title: string, room: number): string {
  return title.length <= room ? title : `${title.slice(0, Math.max(0, room - 1))}…`;
}

/**
 * A turn write (`SessionStore.writeTurn`) found the session at another version than the one its
 * caller read: another writer changed it in between, nothing was written, and the
 * caller reads the session again.
 */
export class SessionChangedError extends HermesError {
  override readonly name: string = 'SessionChangedError';

  constructor(
    readonly sessionId: string,
    readonly expectedVersion: number,
    readonly foundVersion: number,
  ) {
    super(
      `session ${sessionId} changed while this turn read it (another process writes it: version ${foundVersion}, ` +
        `expected ${expectedVersion}); nothing was stored, send the turn again`,
    );
  }
}

/** Title of a branch created without one: `"<source title or id> (branch)"`. */
export function defaultBranchTitle(source: Pick<SessionRecord, 'id' | 'title'>): string {
  const suffix = ' (branch)';
  return `${shortenedTitle(source.title ?? source.id, MAX_SESSION_TITLE_LENGTH - suffix.length)}${suffix}`;
}

/** `title` when it fits {@link MAX_SESSION_TITLE_LENGTH}; a usage error naming the cap otherwise. */
export function checkedTitle<T extends string | null | undefined>(title: T): T {
  if (typeof title === 'string' && title.length > MAX_SESSION_TITLE_LENGTH) {
    throw new UsageError(
      `a session title is at most ${MAX_SESSION_TITLE_LENGTH} characters (this one has ${title.length})`,
    );
  }
  return title;
}

/**
 * A base URL as the store keeps it: without credentials (core/redact.ts rule 3: a user-info
 * password and secret-named query values become `[redacted]`), so `sessions show`, `--json`,
 * export and the gateway's session endpoints never show a key. A resumed session whose stored
 * URL lost a credential takes the configured URL it came from (`runtime-route.ts`).
 */
export function storedBaseUrl<T extends string | null | undefined>(baseUrl: T): T {
  if (typeof baseUrl !== 'string') return baseUrl;
  // Every turn asks for its route's URL again: the last answer is kept (the redaction is pure).
  if (lastStoredUrl?.url !== baseUrl) lastStoredUrl = { url: baseUrl, stored: redactUrl(baseUrl) };
  return lastStoredUrl.stored as T;
}

let lastStoredUrl: { url: string; stored: string } | null = null;

/**
 * Parses a stored `model_config`. SPEC §18: readers tolerate missing or invalid JSON (a file
 * written by another tool, a truncated manual edit), which reads as an empty config.
 */
export function parseModelConfig(text: string | null | undefined): JsonObject {
  if (typeof text !== 'string') return {};
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : {};
  } catch {
    return {};
  }
}

/**
 * SPEC §18 `patch_session_model_config`: top-level keys of `patch` replace those of `config`; a
 * `null` value deletes the key; an `undefined` value is ignored. Returns a new object.
 */
export function mergeModelConfig(config: JsonObject, patch: JsonObject): JsonObject {
  const merged: JsonObject = { ...config };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/** What `recordVerdict` receives. */
export type VerdictInput = Omit<VerdictRecord, 'firstSeen' | 'updatedAt'> & { at?: number };

/**
 * Merges a newly learned verdict into the stored one (SPEC §23.1): fields are the sorted union,
 * `firstSeen` and the first error text that taught the route are kept, `updatedAt` moves on.
 */
export function mergeVerdict(existing: VerdictRecord | null, input: VerdictInput, now: number): VerdictRecord {
  const at = input.at ?? now;
  const fields = [...new Set([...(existing?.fields ?? []), ...input.fields])].sort();
  return {
    routeKey: input.routeKey,
    provider: existing?.provider ?? input.provider,
    host: existing?.host ?? input.host,
    model: existing?.model ?? input.model,
    fields,
    firstSeen: existing?.firstSeen ?? at,
    updatedAt: at,
    errorText: existing !== null && existing.errorText !== '' ? existing.errorText : input.errorText,
  };
}

/** `JSON.stringify` that turns a non-JSON value (BigInt, a cycle) into a clear usage error. */
export function stringifyJson(value: unknown, what: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new UsageError(`cannot store ${what}: it is not JSON (${(error as Error).message})`, { cause: error });
  }
  if (text === undefined) throw new UsageError(`cannot store ${what}: it is not JSON`);
  return text;
}

/** A `handle_keys` row as both SQL stores read it. */
export interface HandleKeyRow {
  id: string;
  secret: string;
  created_at: number | string;
}

/** Maps a `handle_keys` row to the store record. */
export function handleKeyFromRow(row: HandleKeyRow): HandleKeyRecord {
  return { id: row.id, secret: row.secret, createdAt: Number(row.created_at) };
}

/** Checks a key before it is stored: an id and a secret, a whole-number time. */
export function validHandleKey(key: HandleKeyRecord): HandleKeyRecord {
  if (typeof key.id !== 'string' || key.id === '' || typeof key.secret !== 'string' || key.secret === '') {
    throw new UsageError('a handle key needs a non-empty id and secret');
  }
  if (!Number.isSafeInteger(key.createdAt)) throw new UsageError('a handle key needs a whole-number createdAt');
  return { id: key.id, secret: key.secret, createdAt: key.createdAt };
}

/** Oldest first: by `createdAt`, then `id` (the order every store lists keys in). */
export function compareHandleKeys(a: HandleKeyRecord, b: HandleKeyRecord): number {
  return a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
