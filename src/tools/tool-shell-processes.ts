import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

/**
 * The processes `run_shell` commands start, found and ended when the turn ends (or, with no
 * turn around the call, when the call ends). Unprivileged and without cgroups:
 *
 * - each command runs in a process group of its own, so `server &` is signalled with it;
 * - each command's environment carries {@link SHELL_MARKER_VARIABLE} with the call's marker, which
 *   every process it starts inherits — also one that left the group (`setsid server &`,
 *   `nohup`, a daemon that double-forks). On Linux the marker is found by reading
 *   `/proc/PID/environ` of this user's processes.
 *
 * What this cannot find (docs/architecture.md "Security"): elsewhere than Linux, a process that
 * left the group; anywhere, one that also cleared its environment (`env -i`) after leaving it.
 */

/** The environment variable holding the marker of the `run_shell` call a process descends from. */
export const SHELL_MARKER_VARIABLE = 'HERMES_SHELL_RUN';

/** Time processes get between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 2_000;
/** How often the survivors of a SIGTERM are looked for during the grace. */
const POLL_MS = 50;

/** Every tracker with processes possibly alive: the exit hook ends them if the process exits first. */
const live = new Set<ShellProcesses>();
let exitHooked = false;

/** One marker's processes, as the command that started them is known. */
interface TrackedCall {
  marker: string;
  group: number | undefined;
}

/** The processes the `run_shell` calls of one turn started. */
export class ShellProcesses {
  private readonly calls: TrackedCall[] = [];

  /** A new call: the marker its environment carries. */
  startCall(): { marker: string; environment: NodeJS.ProcessEnv } {
    const marker = randomUUID();
    this.calls.push({ marker, group: undefined });
    live.add(this);
    if (!exitHooked) {
      exitHooked = true;
      process.once('exit', () => {
        for (const tracker of live) tracker.killNow();
      });
    }
    return { marker, environment: { ...process.env, [SHELL_MARKER_VARIABLE]: marker } };
  }

  /** Records the process group (the shell's pid) of the call with `marker`. */
  trackGroup(marker: string, group: number | undefined): void {
    const call = this.calls.find((candidate) => candidate.marker === marker);
    if (call) call.group = group;
  }

  /**
   * The pids still running that a call started (only the call with `marker` when given): on
   * Linux the processes carrying the marker or in the call's group; elsewhere the live groups.
   */
  async running(marker?: string): Promise<number[]> {
    const markers = this.markersOf(marker);
    const groups = this.groupsOf(markers);
    if (process.platform === 'linux') return (await trackedProcesses(markers, groups)).sort((a, b) => a - b);
    return [...groups].filter(isGroupAlive).sort((left, right) => left - right);
  }

  /**
   * Ends what the calls started (only the call with `marker` when given): SIGTERM to each
   * group and each marked process, SIGKILL to what is left after {@link KILL_GRACE_MS}. Returns
   * how many marked processes or groups were signalled.
   */
  async end(marker?: string): Promise<number> {
    // A turn that ran no shell command has nothing to end (the common gateway turn).
    if (this.calls.length === 0) return 0;
    const markers = this.markersOf(marker);
    const groups = this.groupsOf(markers);
    const signal = async (name: NodeJS.Signals): Promise<number> => {
      let signalled = 0;
      for (const group of groups) if (signalGroup(group, name)) signalled += 1;
      for (const pid of await trackedProcesses(markers, groups)) if (signalProcess(pid, name)) signalled += 1;
      return signalled;
    };
    const signalled = await signal('SIGTERM');
    for (let waited = 0; waited < KILL_GRACE_MS && (await this.running(marker)).length; waited += POLL_MS) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    if ((await this.running(marker)).length) await signal('SIGKILL');
    if (marker === undefined) {
      this.calls.length = 0;
      live.delete(this);
    }
    return signalled;
  }

  /** SIGKILL to everything tracked, synchronously (the process is exiting). */
  killNow(): void {
    const markers = this.markersOf(undefined);
    for (const group of this.groupsOf(markers)) signalGroup(group, 'SIGKILL');
    for (const pid of markedProcessesNow(markers)) signalProcess(pid, 'SIGKILL');
  }

  private markersOf(marker: string | undefined): Set<string> {
    return new Set(marker === undefined ? this.calls.map((call) => call.marker) : [marker]);
  }

  private groupsOf(markers: ReadonlySet<string>): Set<number> {
    const groups = new Set<number>();
    for (const call of this.calls) if (markers.has(call.marker) && call.group !== undefined) groups.add(call.group);
    return groups;
  }
}

function signalGroup(group: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-group, signal);
    return true;
  } catch {
    return false;
  }
}

function signalProcess(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** True while the group has a member (zombies count until reaped: only the marker scan skips them). */
function isGroupAlive(group: number): boolean {
  return signalGroup(group, 0);
}

/** The `/proc` entries that are processes (Linux); none elsewhere. */
function processIds(names: readonly string[]): number[] {
  return names.filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid).map(Number);
}

/** True when `environ` (NUL-separated `NAME=value`) carries one of `markers`, for a live, non-zombie process. */
function carriesMarker(environ: string, markers: ReadonlySet<string>): boolean {
  const prefix = `${SHELL_MARKER_VARIABLE}=`;
  for (const entry of environ.split('\0')) {
    if (entry.startsWith(prefix) && markers.has(entry.slice(prefix.length))) return true;
  }
  return false;
}

/**
 * Running (not zombie) processes of this user whose environment carries one of `markers` or
 * whose process group is one of `groups` (Linux `/proc`; none elsewhere).
 */
async function trackedProcesses(markers: ReadonlySet<string>, groups: ReadonlySet<number>): Promise<number[]> {
  if (process.platform !== 'linux' || markers.size === 0) return [];
  const pids = processIds(await readdir('/proc').catch(() => []));
  const found: number[] = [];
  await Promise.all(
    pids.map(async (pid) => {
      const stat = await readFile(`/proc/${pid}/stat`, 'latin1').catch(() => '');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // After the command name: state, ppid, pgrp (proc(5)).
      if (!stat || fields[0] === 'Z') return;
      if (groups.has(Number(fields[2]))) found.push(pid);
      else if (carriesMarker(await readFile(`/proc/${pid}/environ`, 'latin1').catch(() => ''), markers))
        found.push(pid);
    }),
  );
  return found;
}

/** The processes carrying one of `markers`, synchronously (their groups are signalled separately). */
function markedProcessesNow(markers: ReadonlySet<string>): number[] {
  if (process.platform !== 'linux' || markers.size === 0) return [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  return processIds(names).filter((pid) => {
    try {
      return carriesMarker(readFileSync(`/proc/${pid}/environ`, 'latin1'), markers);
    } catch {
      return false;
    }
  });
}
