import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { arch, release, type } from 'node:os';
import { dirname, join } from 'node:path';

/** Largest instruction file included, in bytes; a longer one is cut and says so. */
export const INSTRUCTION_FILE_CAP = 16 * 1024;

/** Instruction file names, by precedence: the first one present in a directory is used. */
export const INSTRUCTION_FILE_NAMES = ['AGENTS.md', 'HERMES.md', 'CLAUDE.md'] as const;

/** One project instruction file as it goes into the prompt. */
export interface InstructionFile {
  /** Absolute path. */
  path: string;
  /** Its text, cut at {@link INSTRUCTION_FILE_CAP} bytes. */
  text: string;
  truncated: boolean;
}

/** The facts about the working directory the system prompt states. */
export interface ProjectContext {
  cwd: string;
  os: string;
  /** `YYYY-MM-DD` (local date). */
  date: string;
  /** Null outside a git repository. */
  git: { root: string; branch: string | null; dirty: boolean | null } | null;
  /** Outermost (repository root) first, the working directory's own last. */
  instructionFiles: InstructionFile[];
}

/** Longest a git query may take before the prompt says "status unknown". */
const GIT_TIMEOUT_MS = 3_000;

/** Gathers the project context of `cwd` (reads files, asks git; never throws). */
export function gatherProjectContext(cwd: string, now: Date = new Date()): ProjectContext {
  const root = repositoryRoot(cwd);
  return {
    cwd,
    os: `${type()} ${release()} ${arch()}`,
    date: localDate(now),
    git: root ? { root, branch: gitBranch(cwd), dirty: gitDirty(cwd) } : null,
    instructionFiles: instructionFiles(cwd, root),
  };
}

/** The nearest directory at or above `cwd` holding `.git` (a directory, or a file in a worktree). */
export function repositoryRoot(cwd: string): string | null {
  for (let dir = cwd, depth = 0; depth < 256; depth += 1) {
    if (existsSync(join(dir, '.git'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
  return null;
}

/** Instruction files from the repository root (or `cwd` alone outside a repository) down to `cwd`. */
function instructionFiles(cwd: string, root: string | null): InstructionFile[] {
  const dirs: string[] = [];
  for (let dir = cwd; ; dir = dirname(dir)) {
    dirs.push(dir);
    if (!root || dir === root || dirname(dir) === dir || dirs.length >= 256) break;
  }
  const files: InstructionFile[] = [];
  for (const dir of dirs.reverse()) {
    for (const name of INSTRUCTION_FILE_NAMES) {
      const file = readCapped(join(dir, name));
      if (file) {
        files.push(file);
        break;
      }
    }
  }
  return files;
}

/** Reads at most {@link INSTRUCTION_FILE_CAP} bytes of a regular file; null when absent or unreadable. */
function readCapped(path: string): InstructionFile | null {
  try {
    const stats = statSync(path);
    if (!stats.isFile()) return null;
    const buffer = Buffer.alloc(Math.min(stats.size, INSTRUCTION_FILE_CAP));
    const fd = openSync(path, 'r');
    let read = 0;
    try {
      while (read < buffer.length) {
        const count = readSync(fd, buffer, read, buffer.length - read, read);
        if (count === 0) break;
        read += count;
      }
    } finally {
      closeSync(fd);
    }
    const truncated = stats.size > INSTRUCTION_FILE_CAP;
    // A cut inside a multi-byte character drops that character rather than inventing U+FFFD.
    let text = new TextDecoder().decode(buffer.subarray(0, read));
    if (truncated) text = text.replace(/\uFFFD+$/, '');
    return { path, text, truncated };
  } catch {
    return null;
  }
}

function git(cwd: string, args: string[]): string | null {
  try {
    return execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      timeout: GIT_TIMEOUT_MS,
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 4 * 1024 * 1024,
    });
  } catch {
    return null;
  }
}

function gitBranch(cwd: string): string | null {
  // symbolic-ref names the branch before its first commit too; a detached HEAD has none.
  const name = git(cwd, ['symbolic-ref', '--short', '-q', 'HEAD'])?.trim();
  return name || null;
}

function gitDirty(cwd: string): boolean | null {
  const status = git(cwd, ['status', '--porcelain']);
  return status === null ? null : status.trim() !== '';
}

function localDate(now: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}
