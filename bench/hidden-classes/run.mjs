// bench/hidden-classes: what three object shapes cost per request on this Node, next to the
// shape the code base uses instead (core/with-fields.ts, core/lazy-property.ts,
// transports/shared/transport-request-abort.ts). Run: `node bench/hidden-classes/run.mjs [ops=200000]`
// (or `npm run bench -- hidden-classes`).
//
// Each case runs in its own child process under `--trace-gc-nvp`, with a young-generation
// collection forced every 32 operations (as a request's objects would meet one), and reports
// what one operation allocated in the young generation and what of it was promoted to the old
// one, averaged over the last 2,000 collections. On Node 20 the first shape of each pair builds
// fresh hidden classes every time it runs, which then stay in the old generation until a full
// collection. Node 22 and 24 fixed the spread and the signal; a getter in a literal still costs
// a hidden class per object there.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CASES = {
  'spread, then 3 fields': (i, base) => ({ ...base, x: i, y: i, z: i }),
  'withFields (Object.assign)': (i, base) => Object.assign({}, base, { x: i, y: i, z: i }),
  'literal with a getter': (i) => ({
    id: i,
    get value() {
      return i;
    },
  }),
  'shared getter (defineProperty)': (i) => Object.defineProperty({ id: i, held: i }, 'value', SHARED_GETTER),
  'AbortController + signal': () => new globalThis.AbortController().signal,
  'plain abort object': () => ({ aborted: false, reason: undefined, listeners: [] }),
};
const SHARED_GETTER = {
  get() {
    return this.held;
  },
  enumerable: true,
  configurable: true,
};
const PAIRS = [
  ['spread, then 3 fields', 'withFields (Object.assign)'],
  ['literal with a getter', 'shared getter (defineProperty)'],
  ['AbortController + signal', 'plain abort object'],
];

const [, , role, name, opsArg] = process.argv;
if (role === 'child') {
  const make = CASES[name];
  const base = { reasoning: { enabled: true }, transportFor: () => 1 };
  const keep = new Array(16);
  const ops = Number(opsArg);
  for (let i = 0; i < ops; i++) {
    keep[i & 15] = make(i, base);
    if (i % 32 === 31) globalThis.gc({ type: 'minor' });
  }
  process.exit(0);
}

const ops = Number(process.argv[2] ?? 200_000);
const self = fileURLToPath(import.meta.url);
function measure(name) {
  const out = execFileSync(process.execPath, ['--expose-gc', '--trace-gc-nvp', self, 'child', name, String(ops)], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const scavenges = out
    .split('\n')
    .filter((line) => line.includes('gc=s '))
    .slice(-2000)
    .map((line) =>
      Object.fromEntries(
        line
          .trim()
          .split(/\s+/)
          .map((pair) => pair.split('=')),
      ),
    );
  const mean = (key) => scavenges.reduce((sum, gc) => sum + Number(gc[key]), 0) / scavenges.length / 32;
  return { allocated: mean('allocated'), promoted: mean('promoted') };
}

console.log(`hidden-classes bench: ${ops} operations per case, Node ${process.version}; bytes per operation`);
console.log(`${'case'.padEnd(32)} ${'allocated'.padStart(10)} ${'promoted'.padStart(9)}   ratio to the pair's second`);
for (const [bad, good] of PAIRS) {
  const worse = measure(bad);
  const better = measure(good);
  console.log(
    `${bad.padEnd(32)} ${worse.allocated.toFixed(0).padStart(10)} ${worse.promoted.toFixed(0).padStart(9)}   ` +
      `${(worse.allocated / better.allocated).toFixed(1)}x allocated`,
  );
  console.log(
    `${good.padEnd(32)} ${better.allocated.toFixed(0).padStart(10)} ${better.promoted.toFixed(0).padStart(9)}`,
  );
}
