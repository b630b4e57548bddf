// bench/operations: what the gateway's Prometheus metrics and OpenTelemetry tracing cost per turn
// (SPEC §26.10, docs/operations.md). Run after `npm run build`:
//   node bench/operations/run.mjs [turnsPerRound=600] [rounds=7] [workers=8] [warmupTurns=3000]
// (or `npm run bench -- operations`).
//
// Gateways run side by side in child processes (bench/gateway/bench-server.mjs) against one
// zero-latency emulator (DeepSeek persona), each over its own SQLite state.db, streaming
// chat-completions turns from `workers` concurrent sessions (a fresh session every 10 turns):
//   baseline   BENCH_BASELINE_DIR, a built checkout of the code before metrics and tracing existed
//              (its own bench/gateway/bench-server.mjs and dist/); without it, this build with
//              metrics off (BENCH_GATEWAY_METRICS=0): everything else of this build still runs;
//   metrics    this build as `hermes gateway` runs it: metrics on, no OTEL_* variable (tracing off);
//   tracing    metrics on and OTLP/HTTP protobuf export to a local receiver that answers 200.
// Rounds interleave the gateways, each round in another order, so a load change on a shared
// machine falls on all of them; printed: the median CPU ms per turn of each (process.cpuUsage of
// the child), the median over rounds of its ratio to the baseline in the same round (the paired
// ratio: the steadier figure while load or the JIT drifts between rounds), and every round's
// values, so the spread is visible.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startChild, startDeepseekEmulator } from '../bench-child.mjs';
import { chatCompletionsScenario, client, runLevel, summarize } from '../gateway/bench-client.mjs';

const turnsPerRound = Number(process.argv[2] ?? 600);
const rounds = Number(process.argv[3] ?? 7);
const workers = Number(process.argv[4] ?? 8);
const warmupTurns = Number(process.argv[5] ?? 3000);
const baselineDir = process.env.BENCH_BASELINE_DIR ? resolve(process.env.BENCH_BASELINE_DIR) : null;
const here = new URL('../gateway/bench-server.mjs', import.meta.url).pathname;

/** A collector stand-in: answers every export 200 and counts the bytes. */
const received = { requests: 0, bytes: 0 };
const collector = createServer((request, response) => {
  request.on('data', (chunk) => (received.bytes += chunk.length));
  request.on('end', () => {
    received.requests += 1;
    response.writeHead(200, { 'content-type': 'application/x-protobuf' });
    response.end();
  });
});
await new Promise((done) => collector.listen(0, '127.0.0.1', done));
const collectorUrl = `http://127.0.0.1:${collector.address().port}`;

const home = mkdtempSync(join(tmpdir(), 'hermes-bench-operations-'));
const emulator = await startDeepseekEmulator();
const variants = [
  {
    name: 'baseline',
    what: baselineDir ? `the build in ${baselineDir}` : 'this build, metrics off',
    script: baselineDir ? join(baselineDir, 'bench/gateway/bench-server.mjs') : here,
    env: { BENCH_GATEWAY_METRICS: '0' },
  },
  { name: 'metrics', what: 'metrics on, tracing off', script: here, env: {} },
  {
    name: 'tracing',
    what: 'metrics on, tracing to a local OTLP receiver',
    script: here,
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl, OTEL_SERVICE_NAME: 'hermes-bench' },
  },
];
const withoutOtel = Object.fromEntries(
  Object.keys(process.env)
    .filter((key) => key.startsWith('OTEL_'))
    .map((key) => [key, '']),
);

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const level = (server, turns) =>
  runLevel(server, { scenario: chatCompletionsScenario, workers, turns, turnsPerSession: 10, stream: true });

const loadBefore = loadavg();
const servers = [];
try {
  for (const [index, variant] of variants.entries()) {
    const state = join(home, `state-${index}.db`);
    variant.server = await startChild([variant.script, 'gateway', emulator.url, state], true, {
      ...withoutOtel,
      ...variant.env,
    });
    servers.push(variant.server);
    variant.cpu = [];
  }
  // Warm-up: JIT, SQLite page cache, keep-alive sockets, the exporter's first batches.
  for (const variant of variants) await level(variant.server, warmupTurns);
  for (let round = 0; round < rounds; round += 1) {
    const order = variants.map((_unused, index) => variants[(index + round) % variants.length]);
    for (const variant of order) variant.cpu.push(summarize(await level(variant.server, turnsPerRound)).cpuMsPerTurn);
  }
  const loadAfter = loadavg();
  const base = median(variants[0].cpu);
  console.log(
    `operations bench: ${rounds} interleaved rounds of ${turnsPerRound} streaming chat-completions turns, ${workers} sessions, ` +
      `after ${warmupTurns} warm-up turns each; DeepSeek emulator, SQLite state.db, Node ${process.version}; load average ` +
      `${loadBefore.map((value) => value.toFixed(2)).join(' ')} before, ${loadAfter.map((value) => value.toFixed(2)).join(' ')} after`,
  );
  console.log(
    `${'gateway'.padEnd(10)}${'CPU ms/turn'.padStart(12)}${'/baseline'.padStart(11)}${'paired'.padStart(8)}   rounds (CPU ms/turn)   what`,
  );
  for (const variant of variants) {
    const cpu = median(variant.cpu);
    const paired = median(variant.cpu.map((value, round) => value / variants[0].cpu[round]));
    console.log(
      `${variant.name.padEnd(10)}${cpu.toFixed(3).padStart(12)}${(cpu / base).toFixed(3).padStart(11)}${paired.toFixed(3).padStart(8)}   ` +
        `${variant.cpu.map((value) => value.toFixed(2)).join(' ')}   ${variant.what}`,
    );
  }
  console.log(`the OTLP receiver took ${received.requests} exports, ${(received.bytes / 1024).toFixed(0)} KiB`);
  console.log(
    `json ${JSON.stringify({ rounds, turnsPerRound, workers, cpu: Object.fromEntries(variants.map((variant) => [variant.name, variant.cpu])) })}`,
  );
} finally {
  for (const server of servers) await server.close();
  await emulator.close();
  await client.close();
  collector.close();
  rmSync(home, { recursive: true, force: true });
}
