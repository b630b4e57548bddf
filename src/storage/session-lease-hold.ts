import { claimForThisProcess, DEFAULT_LEASE_TTL_MS, leaseLostError } from './session-lease.js';
import type { LeaseRecord } from './session-lease.js';
import type { SessionStore } from './session-store.js';

/** A lease this process holds, renewed in the background until released. */
export interface HeldSessionLease {
  readonly sessionId: string;
  readonly record: LeaseRecord;
  /** True once a renewal found the lease taken over by another process. */
  readonly lost: boolean;
  /**
   * Resolves when the lease is still this process's; throws {@link SessionLeaseLostError} when
   * another process took it. Call before every write of the turn. A lease that expired while
   * nobody else claimed it (a long blocking step) is renewed here and stays held.
   */
  ensureHeld(): Promise<void>;
  /** Stops the heartbeat and releases the lease (idempotent; a release failure is swallowed: the lease then expires). */
  release(): Promise<void>;
  /** Stops the heartbeat of a lease a write already dropped in its commit (`TurnWrite.releaseLease`). */
  releasedByWrite(): void;
}

/** Options of {@link holdSessionLease}. */
export interface HoldLeaseOptions {
  /** What holds it, shown to a process that finds the session busy (`hermes chat`, `hermes gateway`). */
  owner: string;
  ttlMs?: number;
  /** Renewal period (default a third of the lifetime, so two renewals may fail before expiry). */
  heartbeatMs?: number;
  now?: () => number;
}

/**
 * Takes the session's lease for this process (throws `SessionBusyError` naming the holder when
 * another live turn has it) and renews it every `heartbeatMs` until released. The timer is
 * unref'd: a lease never keeps the process alive.
 */
export async function holdSessionLease(
  store: SessionStore,
  sessionId: string,
  options: HoldLeaseOptions,
): Promise<HeldSessionLease> {
  const claim = claimForThisProcess(options.owner, options.ttlMs ?? DEFAULT_LEASE_TTL_MS);
  return keepLeaseAlive(store, await store.acquireLease(sessionId, claim), claim.ttlMs, options);
}

/**
 * Renews `acquired`, a lease this process just took (by `acquireLease` or a turn write's
 * `acquireLease`), every `heartbeatMs` until released. The timer is unref'd.
 */
export function keepLeaseAlive(
  store: SessionStore,
  acquired: LeaseRecord,
  ttlMs: number,
  options: Omit<HoldLeaseOptions, 'owner' | 'ttlMs'> = {},
): HeldSessionLease {
  return new KeptLease(store, acquired, ttlMs, options);
}

/**
 * A class rather than an object literal with getters: a literal's getters give every lease a
 * hidden class of its own (core/lazy-property.ts), and a turn takes a lease each time.
 */
class KeptLease implements HeldSessionLease {
  readonly sessionId: string;
  private readonly leaseId: string;
  private current: LeaseRecord;
  private isLost = false;
  private released = false;
  private renewing: Promise<void> | null = null;
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly now: () => number;

  constructor(
    private readonly store: SessionStore,
    acquired: LeaseRecord,
    private readonly ttlMs: number,
    options: Omit<HoldLeaseOptions, 'owner' | 'ttlMs'>,
  ) {
    this.sessionId = acquired.sessionId;
    this.leaseId = acquired.leaseId;
    this.current = acquired;
    this.now = options.now ?? Date.now;
    this.timer = setInterval(
      () => {
        if (this.renewing === null && !this.released)
          this.renewing = this.renew().finally(() => (this.renewing = null));
      },
      options.heartbeatMs ?? Math.max(1, Math.floor(ttlMs / 3)),
    );
    this.timer.unref();
  }

  get record(): LeaseRecord {
    return this.current;
  }

  get lost(): boolean {
    return this.isLost;
  }

  private async renew(): Promise<void> {
    try {
      const renewed = await this.store.renewLease(this.sessionId, this.leaseId, this.ttlMs);
      if (renewed === null) this.isLost = true;
      else this.current = renewed;
    } catch {
      // A failed renewal (database briefly unreachable) is retried on the next beat; the
      // lease is only lost when it expires or another process took it.
    }
  }

  async ensureHeld(): Promise<void> {
    if (!this.isLost && this.current.expiresAt - this.ttlMs / 3 > this.now()) return;
    if (!this.isLost) await this.renew();
    if (!this.isLost) return;
    throw leaseLostError(this.sessionId);
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    clearInterval(this.timer);
    await this.renewing;
    try {
      await this.store.releaseLease(this.sessionId, this.leaseId);
    } catch {
      // The lease expires on its own.
    }
  }

  releasedByWrite(): void {
    this.released = true;
    clearInterval(this.timer);
  }
}

/** Store methods that write one session, named by their first argument. */
const SESSION_WRITES = new Set<string>([
  'appendMessage',
  'appendMessages',
  'writeTurn',
  'compactInPlace',
  'patchModelConfig',
  'updateSession',
  'recordRequest',
]);

/**
 * The store as a leased turn sees it: every write to the leased session first checks that the
 * lease is still held (`ensureHeld`), so a turn that lost its session to another process stops
 * before it interleaves with the new holder. Reads and other sessions pass straight through.
 */
export function leaseFencedStore(store: SessionStore, lease: HeldSessionLease): SessionStore {
  // One wrapper per method for the fenced store's life: a turn reads the store's methods often.
  const wrappers = new Map<string, unknown>();
  return new Proxy(store, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof key !== 'string' || typeof value !== 'function') return value;
      const cached = wrappers.get(key);
      if (cached !== undefined) return cached;
      const method = value as (...args: unknown[]) => unknown;
      const wrapper = !SESSION_WRITES.has(key)
        ? method.bind(target)
        : async (...args: unknown[]) => {
            const sessionId = key === 'recordRequest' ? (args[0] as { sessionId?: unknown })?.sessionId : args[0];
            if (sessionId === lease.sessionId) await lease.ensureHeld();
            return method.apply(target, args);
          };
      wrappers.set(key, wrapper);
      return wrapper;
    },
  });
}
