// bench/turn-cost: the per-turn cost goals of SPEC §26.7 side by side, in one run. Runs, one
// after the other (each in its own process, its own output shown as it goes):
//   bench/turn-growth   warm gateway turn and front-door request growth against a plain proxy
//   bench/replay-build  next-turn request build against a full build
//   bench/gateway       gateway and each front door against the proxy floor at 32 sessions, and
//                       one 10,000-message session turning beside 31 short ones
// then prints every ratio next to its goal. Run after `npm run build`:
//   node bench/turn-cost/run.mjs [gatewayTurnsPerLevel=1000] [gatewayRounds=5]   (or: npm run bench -- turn-cost)
// Smaller gateway levels finish sooner and move more from run to run (the machine is shared).
import { spawn } from 'node:child_process';

const gatewayTurns = process.argv[2] ?? '1000';
const gatewayRounds = process.argv[3] ?? '5';

/** Runs `node --expose-gc bench/NAME/run.mjs ARGS`, echoing its output; resolves with its `json` line. */
function runBench(name, args = []) {
  const script = new URL(`../${name}/run.mjs`, import.meta.url).pathname;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      process.stdout.write(chunk);
    });
    child.once('exit', (code) => {
      const line = output.split('\n').findLast((text) => text.startsWith('json '));
      if (code !== 0 || !line) reject(new Error(`bench/${name} failed (exit ${code})`));
      else resolve(JSON.parse(line.slice(5)));
    });
  });
}

const fixed = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
const rows = [];
const goal = (name, value, limit) =>
  rows.push([name, `×${fixed(value)}`, `≤ ${limit}×`, Number.isFinite(value) && value <= limit ? 'met' : 'not met']);

console.log('=== bench/turn-growth');
const growth = await runBench('turn-growth');
console.log('\n=== bench/replay-build');
const build = await runBench('replay-build');
console.log('\n=== bench/gateway');
const gateway = await runBench('gateway', [gatewayTurns, '10', gatewayRounds]);

const above = (cells, size) => cells[size].above;
goal(
  'warm gateway turn CPU above the proxy, 10,000 vs 10 messages',
  above(growth.warm, 10000) / above(growth.warm, 10),
  1.5,
);
goal(
  'front-door Messages CPU above the proxy, 1,000 vs 10 messages',
  above(growth.door, 1000) / above(growth.door, 10),
  2.5,
);
const last = build.incremental.at(-1);
goal(`next-turn build / full build, bytes as sent (${last.size} messages)`, last.warmSent / last.fullSent, 0.1);
const table = gateway.table;
// bench/gateway pairs each row with the floor run just before it (`cpuPerFloor`, the median of
// those ratios over the rounds).
const perFloor = (name) => table[name][32].cpuPerFloor ?? table[name][32].cpuMsPerTurn / table.floor[32].cpuMsPerTurn;
goal('chat-completions gateway CPU / proxy floor, 32 sessions', perFloor('chat-completions'), 2.5);
for (const name of Object.keys(table)) {
  if (name === 'floor' || name === 'chat-completions') continue;
  goal(`front door ${name} CPU / proxy floor, 32 sessions`, perFloor(name), 3);
}
if (gateway.mixed) {
  goal(
    'short sessions added p99 beside one 10,000-message session / without it (32 sessions)',
    gateway.mixed.ratio,
    1.3,
  );
}
const width = Math.max(...rows.map((row) => row[0].length));
console.log('\nturn-cost: the goals of SPEC §26.7 (one run; medians as each bench reports them)');
for (const [name, value, limit, verdict] of rows) {
  console.log(`${name.padEnd(width)}  ${value.padStart(7)}  ${limit.padStart(7)}  ${verdict}`);
}
