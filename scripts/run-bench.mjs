// `npm run bench`: builds, then runs every bench/<name>/run.mjs in turn (or only the names given:
// `npm run bench -- replay-build resume`). Each bench prints its own table and ratios.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
const wanted = process.argv.slice(2);
const benches = readdirSync(join(root, 'bench'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(root, 'bench', entry.name, 'run.mjs')))
  .map((entry) => entry.name)
  .filter((name) => wanted.length === 0 || wanted.includes(name))
  .sort();
if (benches.length === 0) {
  console.error(`no bench found${wanted.length ? ` named ${wanted.join(', ')}` : ''} under bench/`);
  process.exit(2);
}
for (const name of benches) {
  console.log(`\n=== bench/${name}`);
  execFileSync(process.execPath, ['--expose-gc', join(root, 'bench', name, 'run.mjs')], {
    cwd: root,
    stdio: 'inherit',
  });
}
