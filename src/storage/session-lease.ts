import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { HermesError } from '../core/errors.js';
import { randomSuffix } from '../core/ids.js';

/**
 * The session lease (SPEC §23.6): one writer per session across processes. A turn takes the
 * lease before it reads the history it will extend, renews it while it runs (heartbeat) and
 * releases it at the end. Another process asking for the lease meanwhile fails fast with
 * {@link SessionBusyError}; a lease whose holder died is taken over once it expires, or at once
 * when the holder ran on this host and its pid is gone.
 */

/** A lease as stored: who holds the session and until when. Times are epoch milliseconds. */
export interface LeaseRecord {
  sessionId: string;
  /** Unique per acquisition: renew and release name it, so a taken-over holder cannot release the new one. */
  leaseId: string;
  /** What holds it, for people: `hermes chat`, `hermes gateway`, ... */
  owner: string;
  pid: number;
  host: string;
  acquiredAt: number;
  heartbeatAt: number;
  expiresAt: number;
}

/** What `acquireLease` is asked for. */
export interface LeaseClaim {
  leaseId: string;
  owner: string;
  pid: number;
  host: string;
  /** Lease lifetime from now; each renewal extends it by as much. */
  ttlMs: number;
  /** Whether the holder of `existing` is known to be gone (default {@link holderGone}). */
  holderGone?: (existing: LeaseRecord) => boolean;
}

/** Default lease lifetime: a holder that stops renewing loses the session after this long. */
export const DEFAULT_LEASE_TTL_MS = 30_000;

/** The session is held by another live turn. The CLI exits 3 on it; the gateway answers 409. */
export class SessionBusyError extends HermesError {
  override readonly name: string = 'SessionBusyError';
  /** Process exit code of the CLI for this failure. */
  readonly exitCode = 3;

  constructor(readonly holder: LeaseRecord) {
    super(busyMessage(holder));
  }
}

/** The lease was taken over (the holder stalled past its expiry); the turn stops writing. */
export class SessionLeaseLostError extends HermesError {
  override readonly name: string = 'SessionLeaseLostError';
}

/** The error of a write under a lease that no longer holds `sessionId`. */
export function leaseLostError(sessionId: string): SessionLeaseLostError {
  return new SessionLeaseLostError(
    `the lease on session ${sessionId} was lost (this process stalled past its expiry and another ` +
      'process may have taken the session); the turn stopped and stores nothing more',
  );
}

/** `session busy in pid 4242 since 2026-12-01 05:40:12 UTC (hermes chat on host-a): …`. */
export function busyMessage(holder: LeaseRecord): string {
  const since = new Date(holder.acquiredAt)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
  return (
    `session busy in pid ${holder.pid} since ${since} (${holder.owner} on ${holder.host}): ` +
    'wait for that turn to finish, or stop that process; a holder that dies is taken over when its lease expires'
  );
}

/**
 * True when `pid` is a live process on this host (EPERM: it exists but belongs to another user).
 * A process that is exiting, or exited and not yet reaped by its parent (a zombie), is not alive:
 * a gateway killed by its supervisor holds no lease from the moment its connections close, even
 * before the supervisor collects its exit status.
 */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !hasExited(pid);
}

/** Whether Linux's `/proc/PID/stat` shows `pid` exiting or exited; false where /proc is absent. */
function hasExited(pid: number): boolean {
  try {
    return statShowsExit(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * `PF_EXITING` (Linux `include/linux/sched.h`): set when a task starts to exit, before its files —
 * its sockets — are closed, and kept until it is reaped.
 */
const PF_EXITING = 0x4;

/**
 * Whether a `/proc/PID/stat` line (proc(5)) shows a process that is exiting or exited: state (field
 * 3) `Z` zombie or `X` dead, or `PF_EXITING` in its flags (field 9). A client sees a killed
 * process's connections close while it is still exiting, before it turns into a zombie; the flag
 * covers that moment.
 */
export function statShowsExit(stat: string): boolean {
  // The command name (field 2) is in parentheses and may hold spaces: fields count from its end.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  if (state === 'Z' || state === 'X' || state === 'x') return true;
  const flags = Number(fields[6]);
  return Number.isSafeInteger(flags) && (flags & PF_EXITING) !== 0;
}

/** The holder ran on this host and its process is gone (a pid can only be checked locally). */
export function holderGone(existing: LeaseRecord): boolean {
  return existing.host === hostname() && existing.pid !== process.pid && !processAlive(existing.pid);
}

/**
 * Whether `claim` may take the session from `existing` at `now` (the rule every store applies
 * inside its acquire transaction): no lease, the claimant's own lease, an expired lease, or a
 * holder that is gone.
 */
export function mayTakeLease(existing: LeaseRecord | null, claim: LeaseClaim, now: number): boolean {
  if (existing === null) return true;
  if (existing.leaseId === claim.leaseId) return true;
  if (existing.expiresAt <= now) return true;
  return (claim.holderGone ?? holderGone)(existing);
}

/** What a turn write does to the session's lease, once {@link checkTurnWrite} allowed it. */
export interface TurnWriteLease {
  /** The lease to store (a claim that won), or null. */
  acquired: LeaseRecord | null;
  /** The lease id to delete in the same commit, or null. */
  releaseId: string | null;
}

/**
 * The checks every store applies inside a turn write's transaction (`SessionStore.writeTurn`),
 * in this order: a claim must win (`SessionBusyError`), a named lease must still hold the
 * session ({@link SessionLeaseLostError}), the version must be the expected one
 * (`SessionChangedError`, thrown by `changed`). `existing` is the stored lease, `version` the
 * session's version, both read under the transaction's lock.
 */
export function checkTurnWrite(
  sessionId: string,
  write: { acquireLease?: LeaseClaim | undefined; leaseId?: string | undefined; releaseLease?: boolean | undefined },
  existing: LeaseRecord | null,
  now: number,
): TurnWriteLease {
  let acquired: LeaseRecord | null = null;
  if (write.acquireLease !== undefined) {
    if (!mayTakeLease(existing, write.acquireLease, now)) throw new SessionBusyError(existing as LeaseRecord);
    // Taken and released in one commit: the claim only had to win. Nothing is stored, and the
    // stale lease it displaced, if any, is deleted (what storing then deleting the claim left).
    if (write.releaseLease === true) return { acquired: null, releaseId: existing?.leaseId ?? null };
    acquired = leaseFromClaim(sessionId, write.acquireLease, now);
  } else if (write.leaseId !== undefined && existing?.leaseId !== write.leaseId) {
    throw leaseLostError(sessionId);
  }
  const held = acquired?.leaseId ?? write.leaseId ?? null;
  return { acquired, releaseId: write.releaseLease === true ? held : null };
}

/** The record a successful claim writes. */
export function leaseFromClaim(sessionId: string, claim: LeaseClaim, now: number): LeaseRecord {
  return {
    sessionId,
    leaseId: claim.leaseId,
    owner: claim.owner,
    pid: claim.pid,
    host: claim.host,
    acquiredAt: now,
    heartbeatAt: now,
    expiresAt: now + claim.ttlMs,
  };
}

/** A lease's columns in the order both stores' lease upsert binds them. */
export type LeaseColumns = [string, string, string, number, string, number, number, number];

export function leaseColumns(lease: LeaseRecord): LeaseColumns {
  const { sessionId, leaseId, owner, pid, host, acquiredAt, heartbeatAt, expiresAt } = lease;
  return [sessionId, leaseId, owner, pid, host, acquiredAt, heartbeatAt, expiresAt];
}

/** This host's name and a random prefix of this process's lease ids, made once. */
let thisProcess: { host: string; prefix: string } | undefined;
let claims = 0;

/**
 * A claim for this process. Its lease id is unique per claim: the pid, a random prefix drawn once
 * per process (pids are reused) and a counter.
 */
export function claimForThisProcess(owner: string, ttlMs: number = DEFAULT_LEASE_TTL_MS): LeaseClaim {
  thisProcess ??= { host: hostname(), prefix: randomSuffix(12) };
  claims += 1;
  const leaseId = `${process.pid}-${thisProcess.prefix}-${claims.toString(36)}`;
  return { leaseId, owner, pid: process.pid, host: thisProcess.host, ttlMs };
}
