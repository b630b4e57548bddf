// bench/sqlite-driver: better-sqlite3 (the store's driver) against Node's built-in `node:sqlite`
// on the same store code, on the Node running this script. The built-in driver is swapped in
// with a module hook (use-node-sqlite.mjs), so both rows run identical statements, pragmas and
// transactions; only the driver underneath differs. Rounds alternate the drivers, so a machine
// that gets busier or quieter during the run affects both alike. Reported, per driver, medians:
//   resume  – bench/resume/resume-store-load.mjs: batch append of a 10,000-message session, first
//             `listMessages` (cold), median `listMessages` wall and CPU;
//   gateway – bench/gateway/run.mjs (one round, BENCH_GATEWAY_LONG=0): turns/s and the gateway's
//             added p50 latency at 1, 8, 32 concurrent sessions, and the gateway process's CPU per
//             turn (median of the levels).
// Run after `npm run build`: node bench/sqlite-driver/run.mjs [rounds=3] [gatewayTurns=200]
// (or `npm run bench -- sqlite-driver`). On Node 20 only better-sqlite3 runs: `node:sqlite`
// does not exist there.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const rounds = Number(process.argv[2] ?? 3);
const gatewayTurns = Number(process.argv[3] ?? 200);
const root = fileURLToPath(new URL('../..', import.meta.url));
const hook = fileURLToPath(new URL('./use-node-sqlite.mjs', import.meta.url));
const cpuReport = fileURLToPath(new URL('./report-cpu.mjs', import.meta.url));

let builtIn = true;
try {
  await import('node:sqlite');
} catch {
  builtIn = false;
}
const drivers = builtIn ? ['better-sqlite3', 'node:sqlite'] : ['better-sqlite3'];

/** Runs a bench script with the given driver; returns stdout and stderr. */
function runWith(driver, script, args) {
  const imports = [`--import=${cpuReport}`, ...(driver === 'node:sqlite' ? [`--import=${hook}`] : [])];
  const output = execFileSync(process.execPath, [...imports, '--expose-gc', script, ...args], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    // The bench's emulator child inherits nothing of this: the flags are on this command line.
    env: { ...process.env, HERMES_BENCH_CPU_REPORT: script, BENCH_GATEWAY_LONG: '0' },
  });
  return output;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const samples = Object.fromEntries(drivers.map((driver) => [driver, { resume: [], gateway: [] }]));

for (let round = 1; round <= rounds; round += 1) {
  for (const driver of round % 2 === 1 ? drivers : [...drivers].reverse()) {
    const resumeOutput = runWith(driver, 'bench/resume/resume-store-load.mjs', ['10000', '15', '3']);
    const resume = JSON.parse(resumeOutput.split('\n').find((line) => line.startsWith('{')) ?? 'null');
    samples[driver].resume.push(resume);
    // One round of the gateway bench, a shorter warm-up, no long session: its `json` line holds the levels.
    const gatewayOutput = runWith(driver, 'bench/gateway/run.mjs', [String(gatewayTurns), '10', '1', '500']);
    const report = JSON.parse(/^json (.*)$/m.exec(gatewayOutput)?.[1] ?? 'null');
    const levels = report?.table?.['chat-completions'] ?? {};
    // Columns per level: 0 sessions, 1 turns/s, 2 added p50 ms (the layout the summary reads).
    const rows = ['1', '8', '32'].map((workers) => [
      Number(workers),
      levels[workers]?.turnsPerSecond,
      levels[workers]?.p50,
    ]);
    const cpuPerTurn = median(['1', '8', '32'].map((workers) => levels[workers]?.cpuMsPerTurn ?? NaN));
    samples[driver].gateway.push({ rows, cpuPerTurn });
    console.error(`round ${round} ${driver}: done`);
  }
}

console.log(`\nSQLite driver bench on Node ${process.version}, ${rounds} alternating rounds, medians`);
if (!builtIn) console.log('node:sqlite is not available on this Node: better-sqlite3 only');
console.log(
  'driver           append ms  first load ms  load ms  load CPU ms  ' +
    'turns/s 1/8/32  added p50 ms 1/8/32  gateway CPU ms/turn',
);
for (const driver of drivers) {
  const resume = samples[driver].resume;
  const gateway = samples[driver].gateway;
  const perLevel = (column) =>
    [0, 1, 2].map((level) => median(gateway.map((sample) => sample.rows[level]?.[column] ?? NaN)));
  console.log(
    [
      driver.padEnd(15),
      String(median(resume.map((sample) => sample.batchAppendMs))).padStart(10),
      median(resume.map((sample) => sample.firstLoadMs))
        .toFixed(1)
        .padStart(14),
      median(resume.map((sample) => sample.listMessagesMedianMs))
        .toFixed(1)
        .padStart(8),
      median(resume.map((sample) => sample.listMessagesCpuMedianMs))
        .toFixed(1)
        .padStart(12),
      perLevel(1)
        .map((value) => value.toFixed(0))
        .join('/')
        .padStart(16),
      perLevel(2)
        .map((value) => value.toFixed(2))
        .join('/')
        .padStart(20),
      median(gateway.map((sample) => sample.cpuPerTurn))
        .toFixed(2)
        .padStart(20),
    ].join(' '),
  );
}
