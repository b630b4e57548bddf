import { randomBytes } from 'node:crypto';
import type { HandleKeyRecord, SessionStore } from '../storage/session-store.js';
import type { HandleKey } from './gateway-handle-seal.js';

/**
 * The handle keys a gateway seals and opens with (SPEC §25.6). They live in the session store's
 * `handle_keys` table: `$HERMES_HOME/state.db` (mode 0600, beside the sessions whose carriers it
 * protects) for one gateway, the shared PostgreSQL database for a fleet, so every gateway opens
 * every handle. The first gateway that needs a key makes one; `hermes gateway rotate-key` adds a
 * newer one. The newest key seals; every stored key opens.
 *
 * The store is the only authority on which keys are alive: a gateway reads the key table (a few
 * rows) before it seals a handle and before it opens a request's handles, so a key that
 * `rotate-key --retire-old` deleted seals and opens nothing on any gateway of a fleet from the
 * moment the command returned. Only the decoded secrets and the opened handles are kept in
 * memory, each tied to its key id and dropped when that key is no longer stored.
 */

/** Opened handles a gateway remembers (clients send every earlier turn's handle on each request). */
export const OPENED_HANDLES_CACHED = 4096;

/** Characters of remembered handles at most (their carriers take about as much again). */
export const OPENED_HANDLE_CHARS_CACHED = 32 * 1024 * 1024;

/** A fresh key record: 32 random bytes and a random 8-character id. */
export function newHandleKeyRecord(now: number = Date.now()): HandleKeyRecord {
  return { id: randomBytes(6).toString('base64url'), secret: randomBytes(32).toString('base64url'), createdAt: now };
}

/** The sealing and opening keys of one gateway process, read from its store. */
export class HandleKeyring {
  private keys = new Map<string, Buffer>();
  private newest: HandleKey | null = null;
  /**
   * Opened handles by their text (a handle opens for one purpose only: its envelope is bound to
   * it), least recently used first.
   */
  private readonly opened = new Map<string, { purpose: string; keyId: string; value: unknown; chars: number }>();
  private openedChars = 0;
  /** Moves each time a refresh finds another set of stored keys: what was opened before may not open now. */
  generation = 0;

  constructor(
    private readonly store: SessionStore,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Reads the stored keys (made and stored when there is none): what the seals and opens that
   * follow use. Called before each seal and before opening a request's handles.
   */
  async refresh(): Promise<void> {
    let records = await this.store.listHandleKeys();
    if (records.length === 0) records = await this.store.addHandleKey(newHandleKeyRecord(this.now()));
    if (!this.sameKeys(records)) {
      this.generation += 1;
      // Secrets of keys still stored are decoded once; a key gone from the store is gone here.
      this.keys = new Map(
        records.map((record) => [record.id, this.keys.get(record.id) ?? Buffer.from(record.secret, 'base64url')]),
      );
    }
    const newest = records.at(-1) as HandleKeyRecord;
    if (this.newest?.id !== newest.id) this.newest = { id: newest.id, key: this.keys.get(newest.id) as Buffer };
  }

  /** The key a new handle is sealed with: the newest stored key, read from the store now. */
  async sealingKey(): Promise<HandleKey> {
    await this.refresh();
    return this.newest as HandleKey;
  }

  /**
   * The key named by a handle among the keys read by the last {@link refresh} (the store is read
   * first when it was never read), or undefined when the store does not hold it.
   */
  async openingKey(id: string): Promise<Buffer | undefined> {
    if (!this.newest) await this.refresh();
    return this.keys.get(id);
  }

  /**
   * What an earlier `remember` kept for this exact handle and field, while its key is still
   * stored as of the last {@link refresh}, or undefined. Clients send every earlier turn's handle
   * with each request: each is decrypted and parsed once per gateway.
   */
  recall(handle: string, purpose: string): unknown {
    const entry = this.opened.get(handle);
    if (!entry || entry.purpose !== purpose) return undefined;
    if (!this.keys.has(entry.keyId)) {
      this.forget(handle);
      return undefined;
    }
    // Most recently used last: the oldest entry is the first one dropped.
    this.opened.delete(handle);
    this.opened.set(handle, entry);
    return entry.value;
  }

  /** Keeps an opened handle's contents for {@link recall}, least recently used dropped first. */
  remember(handle: string, purpose: string, keyId: string, value: unknown): void {
    if (this.opened.has(handle) || handle.length > OPENED_HANDLE_CHARS_CACHED / 16) return;
    this.opened.set(handle, { purpose, keyId, value, chars: handle.length });
    this.openedChars += handle.length;
    for (const [oldest] of this.opened) {
      if (this.opened.size <= OPENED_HANDLES_CACHED && this.openedChars <= OPENED_HANDLE_CHARS_CACHED) break;
      this.forget(oldest);
    }
  }

  private forget(key: string): void {
    const entry = this.opened.get(key);
    if (!entry) return;
    this.opened.delete(key);
    this.openedChars -= entry.chars;
  }

  private sameKeys(records: readonly HandleKeyRecord[]): boolean {
    if (records.length !== this.keys.size) return false;
    return records.every((record) => this.keys.has(record.id));
  }
}

/** What `hermes gateway rotate-key` did. */
export interface KeyRotation {
  created: Pick<HandleKeyRecord, 'id' | 'createdAt'>;
  /** Older keys deleted (`--retire-old`); their handles no longer open. */
  retired: number;
  /** Keys stored after the rotation. */
  total: number;
}

/**
 * Adds a newer key (it seals from then on; older keys keep opening) and, with `retireOld`,
 * deletes every other key. The new key is one millisecond newer than any stored key, so it
 * seals even when clocks of a fleet disagree slightly.
 */
export async function rotateHandleKey(store: SessionStore, options: { retireOld: boolean }): Promise<KeyRotation> {
  const existing = await store.listHandleKeys();
  const newestAt = existing.at(-1)?.createdAt ?? 0;
  const record = newHandleKeyRecord(Math.max(Date.now(), newestAt + 1));
  const all = await store.addHandleKey(record);
  const retired = options.retireOld ? await store.retireHandleKeys(record.id) : 0;
  return { created: { id: record.id, createdAt: record.createdAt }, retired, total: all.length - retired };
}
