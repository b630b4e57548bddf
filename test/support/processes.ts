import { readFileSync } from 'node:fs';

/** True while `pid` runs on Linux: a zombie, or no such process, is not running (`/proc/PID/stat`). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.charAt(stat.lastIndexOf(')') + 2) !== 'Z';
  } catch {
    return false;
  }
}
