import { spawn, type ChildProcess } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';

/**
 * A workspace whose directory `d` is swapped, as fast as another process can, with a symlink
 * to a directory outside the workspace: `d` is the real directory, then (two renames later) the
 * link, then the real directory again. A tool that checks a path and then opens it by name
 * again reads or writes outside whenever a swap lands between the two.
 */

/** What the outside directory holds; anything else found there afterwards is an outside write. */
const OUTSIDE_FILES: Record<string, string> = {
  'f.txt': 'OUTSIDE needle\n',
  'outside-only.txt': 'OUTSIDE\n',
};

/** The workspace, the outside directory and the swapping process. */
export interface SwappedWorkspace {
  workspace: string;
  outside: string;
  /** Names and contents now in the outside directory differ from what it started with. */
  outsideChanged(): boolean;
  /** Puts the outside directory back as it started (after a detected outside write). */
  restoreOutside(): void;
  stop(): Promise<void>;
}

/**
 * The swapping loop, bounded: it stops after its iterations or when killed. A tool that writes
 * while `d` is missing creates a new `d` (inside the workspace, as it should): the loop removes
 * it, so the swapping goes on.
 */
const SWAPPER = `
const { renameSync, rmSync, lstatSync } = require('node:fs');
const [real, hidden, link] = process.argv.slice(1);
const present = (path) => { try { lstatSync(path); return true; } catch { return false; } };
const move = (from, to) => { try { renameSync(from, to); } catch {} };
const pause = new Int32Array(new SharedArrayBuffer(4));
process.stdout.write('ready\\n');
for (let index = 0; index < 20_000_000; index += 1) {
  move(real, hidden);
  if (present(real)) rmSync(real, { recursive: true, force: true });
  move(link, real);
  // \`d\` stays the outside link a moment too, so a gap between check and use finds it.
  Atomics.wait(pause, 0, 0, 0.2);
  move(real, link);
  if (present(real)) rmSync(real, { recursive: true, force: true });
  move(hidden, real);
  // \`d\` stays the real directory a little longer, so calls also find it whole and succeed.
  Atomics.wait(pause, 0, 0, 0.5);
}
`;

/** Creates the workspace (`d/f.txt` holds "inside needle") and starts swapping `d`. */
export async function startSwappedWorkspace(): Promise<SwappedWorkspace> {
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-swap-ws-')));
  const outside = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-swap-outside-')));
  const restoreOutside = () => {
    for (const name of readdirSync(outside)) {
      if (!(name in OUTSIDE_FILES)) rmSync(join(outside, name), { recursive: true, force: true });
    }
    for (const [name, text] of Object.entries(OUTSIDE_FILES)) writeFileSync(join(outside, name), text);
  };
  restoreOutside();
  const snapshot = () =>
    readdirSync(outside)
      .sort()
      .map((name) => {
        const path = join(outside, name);
        return `${name}=${statSync(path).isFile() ? readFileSync(path, 'utf8') : '(directory)'}`;
      })
      .join('|');
  const pristine = snapshot();
  mkdirSync(join(workspace, 'd'));
  writeFileSync(join(workspace, 'd', 'f.txt'), 'inside needle\n');
  symlinkSync(outside, join(workspace, '.d-link'));
  const swapper: ChildProcess = spawn(
    process.execPath,
    ['-e', SWAPPER, join(workspace, 'd'), join(workspace, '.d-real'), join(workspace, '.d-link')],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await once(swapper.stdout as NodeJS.ReadableStream, 'data');
  return {
    workspace,
    outside,
    outsideChanged: () => snapshot() !== pristine,
    restoreOutside,
    async stop() {
      if (swapper.exitCode === null) {
        const exited = once(swapper, 'exit');
        swapper.kill('SIGKILL');
        await exited;
      }
    },
  };
}
