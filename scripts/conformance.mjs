// `npm run conformance`: the continuity probe (SPEC §26.5) over every built-in emulator persona and
// every way in, from the build (dist/; the npm script builds first). Rewrites docs/conformance.md
// and the README's list of open defects between its markers. `--check` writes nothing and exits 1
// when either differs from what the code produces (test/docs/conformance-doc.test.ts checks the
// same from src/).
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

// As dist/cli.js does: the AWS SDK's Node 20 notice is off unless the user set the variable.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const check = process.argv.includes('--check');
const dist = (path) => import(new URL(`../dist/${path}`, import.meta.url).href);
const { runConformanceMatrix } = await dist('cli/doctor-conformance.js');
const { renderConformanceDocument, spliceReadmeDefects } = await dist('cli/doctor-conformance-render.js');

const started = performance.now();
const cpu = process.cpuUsage();
// --concurrency=N: probes at once (default 6; 1 runs them one after another, for measuring).
const concurrency = Number(process.argv.find((arg) => arg.startsWith('--concurrency='))?.split('=')[1] ?? 6);
const matrix = await runConformanceMatrix({
  concurrency,
  progress: (done, total) => process.stderr.isTTY && process.stderr.write(`\rcontinuity probes: ${done}/${total}`),
});
if (process.stderr.isTTY) process.stderr.write('\n');
const used = process.cpuUsage(cpu);
const rendered = renderConformanceDocument(matrix);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
const cpuSeconds = ((used.user + used.system) / 1e6).toFixed(1);
const counts = Object.entries(rendered.counts)
  .map(([verdict, count]) => `${count} ${verdict}`)
  .join(', ');
console.log(
  // CPU of this process; the `hermes acp` processes of the ACP column count apart (`time npm run conformance`).
  `${matrix.rows.length} routes × ${matrix.ways.length} ways in: ${counts} (${seconds} s, ${cpuSeconds} s of CPU in this process)`,
);

let stale = false;
for (const [file, next] of [
  ['docs/conformance.md', () => rendered.document],
  ['README.md', (before) => spliceReadmeDefects(before, rendered.readmeDefects)],
]) {
  const path = new URL(`../${file}`, import.meta.url);
  let before = '';
  try {
    before = readFileSync(path, 'utf8');
  } catch {
    // A missing document is written (or reported stale).
  }
  const after = next(before);
  if (after === before) {
    console.log(`${file}: up to date`);
  } else if (check) {
    console.log(`${file}: out of date (run npm run conformance)`);
    stale = true;
  } else {
    writeFileSync(path, after);
    console.log(`${file}: updated`);
  }
}
if (stale) process.exitCode = 1;
