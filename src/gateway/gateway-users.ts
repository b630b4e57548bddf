import { createHash, randomBytes } from 'node:crypto';
import { UsageError } from '../core/errors.js';
import type { SessionStore } from '../storage/session-store.js';
import { userNameProblem, type GatewayUserRecord } from '../storage/store-users.js';

/**
 * Gateway users' keys (SPEC §26.10, docs/operations.md "Users"): `hermes gateway users add`
 * makes a key, prints it once and stores its SHA-256 only. A key is 32 random bytes behind a
 * fixed prefix, so a leaked one is recognisable (secret scanners, logs) and the gateway tells a
 * user key from its single token without a store read.
 */

/** How every user key begins. */
export const USER_KEY_PREFIX = 'hermes-user-';

/** A new user key: the prefix and 32 random bytes, base64url. */
export function newUserKey(): string {
  return USER_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** SHA-256 of a key, lower-case hex: what the store keeps and looks keys up by. */
export function userKeyHash(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** True when `credential` has the shape of a user key (it may still be unknown or revoked). */
export function looksLikeUserKey(credential: string): boolean {
  return credential.startsWith(USER_KEY_PREFIX);
}

/** Adds a user with a new key; returns the record and the key (shown once, never stored). */
export async function addGatewayUser(
  store: SessionStore,
  name: string,
  requestsPerMinute: number | null,
  now: number = Date.now(),
): Promise<{ user: GatewayUserRecord; key: string }> {
  const problem = userNameProblem(name);
  if (problem) throw new UsageError(problem);
  const key = newUserKey();
  const user = await store.addGatewayUser({
    name,
    keyHash: userKeyHash(key),
    requestsPerMinute,
    createdAt: now,
    revokedAt: null,
  });
  return { user, key };
}
