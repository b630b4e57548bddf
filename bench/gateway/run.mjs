// bench/gateway: what the gateway costs per turn next to the least a proxy can cost, with a
// zero-latency provider (the in-repo chat emulator, DeepSeek persona, in its own process).
// Run after `npm run build`:
//   node bench/gateway/run.mjs [turnsPerLevel=1000] [turnsPerSession=10] [rounds=5] [warmupTurns=1500]
// (or `npm run bench -- gateway`). Environment: BENCH_GATEWAY_STREAM=0 sends non-streaming
// turns (default: streaming); BENCH_GATEWAY_LONG=0 skips the 10,000-message session;
// BENCH_GATEWAY_MIXED_ROUNDS=5 sets the pairs of levels behind the mixed ratio;
// BENCH_GATEWAY_DOORS=0 skips the front doors; BENCH_GATEWAY_ONLY=DOOR,… measures those doors only;
// BENCH_SERVER_PROFILE=DIR writes a V8 CPU profile of each server child into DIR;
// BENCH_GATEWAY_NODE_ARGS='--max-semi-space-size=64' runs the gateway child with those Node flags;
// BENCH_GATEWAY_STORE=memory runs the gateway over the in-memory session store instead of
// state.db (no long session then), which shows how much of the gateway's cost is the store's;
// BENCH_GATEWAY_REFERENCES=0 leaves out the two reference servers' rows.
//
// The gateway and the floor run side by side in child processes (bench-server.mjs) against the
// same emulator: the gateway over a SQLite state.db, and the floor, a plain `node:http` proxy that forwards the
// client's request to the emulator and pipes the answer back. For every round and every level
// (1, 8 and 32 concurrent sessions) the gateway runs `turnsPerLevel` turns of chat-completions,
// then of each front door, and the floor runs as many right before each of them: a row's CPU
// ratio is the median over the rounds of its CPU against that adjacent floor run, so a shared
// machine's speed, which drifts over minutes, moves both sides of each ratio alike. Each
// worker owns one session and starts a fresh one every `turnsPerSession` turns, so history size
// is the same at every level. Printed per level (medians over the rounds): server CPU per turn
// (`process.cpuUsage` of the child), turns/s, and the latency the server ADDS to a turn (client
// round trip minus the provider's share, bench-client.mjs); ratios are server / floor. Then the
// gateway runs mixed levels: one worker continues a 10,000-message session while 31 others run
// short sessions, each right after a level of short sessions alone, which shows how much one long
// session stalls the others (the median of the paired p99 ratios).
//
// Reference rows come from two more child processes (proxies.mjs), measured at every level
// against their own adjacent floor run: `reader`, a proxy that parses the client's JSON and every event of the answer and
// writes them again, and `minimal`, the reader keeping each session's history in memory, sending
// all of it upstream and appending each turn to a SQLite file. Between the floor and the gateway
// they show how much of the gateway's cost any gateway that reads the stream and keeps sessions
// pays, and how much is the gateway's own.
//
// Front doors: a module `gateway-front-door-turns.mjs` next to this file, when present, adds
// rows against the same floor. Either it exports `frontDoorScenarios`, a list of
// `{ name, turn(url, { text, sessionId, stream }) }` like `chatCompletionsScenario` in
// bench-client.mjs (measured like chat-completions, added latency included), or it exports
// `GATEWAY_DOORS` and `measureDoor(server, door, { workers, requests, requestsPerConversation })`
// (bench/front-doors' client-held conversations): those rows show CPU per request and requests/s.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteSessionStore } from '../../dist/storage/sqlite-session-store.js';
import { startChild, startDeepseekEmulator } from '../bench-child.mjs';
import {
  chatCompletionsScenario,
  client,
  percentile,
  addedLatencies,
  runAlone,
  runLevel,
  summarize,
} from './bench-client.mjs';

// The floor spends about 0.2 ms per turn: 300 turns are 60 ms of its CPU, which moved by a third
// between runs on a 2-core VM. A level of 1,000 turns and the median of 5 rounds hold the ratio
// at 32 sessions within about 10% from run to run.
const turnsPerLevel = Number(process.argv[2] ?? 1000);
const turnsPerSession = Number(process.argv[3] ?? 10);
const rounds = Number(process.argv[4] ?? 5);
// The JIT keeps optimizing a server for a thousand turns or more (the gateway runs far more code
// than the floor): each server warms up on this many turns at 32 sessions before anything counts.
const warmupTurns = Number(process.argv[5] ?? 1500);
const stream = process.env.BENCH_GATEWAY_STREAM !== '0';
const inMemory = process.env.BENCH_GATEWAY_STORE === 'memory';
// The long session is seeded into state.db: the in-memory store has no such session.
const withLongSession = process.env.BENCH_GATEWAY_LONG !== '0' && !inMemory;
const LEVELS = [1, 8, 32];
const REFERENCES = process.env.BENCH_GATEWAY_REFERENCES === '0' ? [] : ['reader', 'minimal'];
const REFERENCE_LABELS = { reader: 'reading proxy', minimal: 'minimal session proxy' };
const LONG_SESSION_MESSAGES = 10_000;
// Pairs of levels (short sessions alone, then beside the long session) behind the mixed ratio.
const mixedRounds = Number(process.env.BENCH_GATEWAY_MIXED_ROUNDS ?? 5);

const home = mkdtempSync(join(tmpdir(), 'hermes-bench-gateway-'));
const statePath = join(home, 'state.db');
const frontDoorModule = new URL('./gateway-front-door-turns.mjs', import.meta.url);
// BENCH_GATEWAY_DOORS=0 leaves the front doors out (chat-completions rows only).
const withDoors = process.env.BENCH_GATEWAY_DOORS !== '0' && existsSync(frontDoorModule);
const doors = withDoors ? await import(frontDoorModule.href) : {};
const scenarios = [chatCompletionsScenario, ...(doors.frontDoorScenarios ?? [])];
/** Doors measured by the module's own `measureDoor` (CPU per request, no latency split). */
// BENCH_GATEWAY_ONLY=gemini-json,gemini-sse measures those doors only (beside chat-completions).
const onlyDoors = process.env.BENCH_GATEWAY_ONLY?.split(',');
const measuredDoors = (typeof doors.measureDoor === 'function' ? (doors.GATEWAY_DOORS ?? []) : []).filter(
  (door) => !onlyDoors || onlyDoors.includes(door),
);

/** A session of `count` alternating user/assistant messages, written straight into state.db. */
async function seedLongSession(count) {
  const store = openSqliteSessionStore(statePath);
  const session = await store.createSession({
    provider: 'deepseek',
    model: 'deepseek-v4-flash',
    api: 'chat_completions',
  });
  const messages = [{ role: 'system', content: 'You are a helpful assistant.', timestamp: 1 }];
  for (let index = 1; index < count; index += 1) {
    messages.push(
      index % 2
        ? { role: 'user', content: `question ${index}: ${'lorem ipsum '.repeat(8)}`, timestamp: index }
        : {
            role: 'assistant',
            content: `answer ${index}: ${'dolor sit amet '.repeat(12)}`,
            reasoning_content: `thinking ${index}`,
            timestamp: index,
          },
    );
  }
  await store.appendMessages(session.id, messages);
  await store.close();
  return session.id;
}

/** BENCH_GATEWAY_NODE_ARGS: Node flags for the gateway child only (the floor runs with none). */
const gatewayNodeArgs = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean);

function startServer(mode, emulator, path = statePath) {
  const profile = process.env.BENCH_SERVER_PROFILE;
  const script = new URL('./bench-server.mjs', import.meta.url).pathname;
  return startChild(
    [
      ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []),
      ...(mode === 'gateway' ? gatewayNodeArgs : []),
      script,
      mode,
      emulator.url,
      path,
    ],
    true,
  );
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const row = (cells, widths) => cells.map((cell, index) => String(cell).padStart(widths[index])).join('');
const fixed = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
const level = (server, scenario, workers, turns = turnsPerLevel, longSessionId = undefined, watchLoop = false) =>
  runLevel(server, { scenario, workers, turns, turnsPerSession, stream, longSessionId, watchLoop });
/** A 32-session chat-completions level of the gateway with its event loop timed (the mixed pairs). */
const watchedLevel = (server, longSessionId) =>
  level(server, chatCompletionsScenario, 32, turnsPerLevel, longSessionId, true);

const emulator = await startDeepseekEmulator();
const loadBefore = loadavg();
const servers = [];
try {
  const longSessionId = withLongSession ? await seedLongSession(LONG_SESSION_MESSAGES) : undefined;
  const floor = await startServer('floor', emulator);
  servers.push(floor);
  const gateway = await startServer('gateway', emulator);
  servers.push(gateway);
  const references = {};
  for (const name of REFERENCES) {
    references[name] = await startServer(name, emulator, join(home, `${name}.db`));
    servers.push(references[name]);
  }
  // Warm-up: JIT, SQLite page cache, keep-alive sockets.
  await level(floor, chatCompletionsScenario, 32, warmupTurns);
  for (const name of REFERENCES) await level(references[name], chatCompletionsScenario, 32, warmupTurns);
  for (const scenario of scenarios) await level(gateway, scenario, 32, warmupTurns);
  const doorLevel = (door, workers, requests = turnsPerLevel) =>
    doors.measureDoor(gateway, door, { workers, requests, requestsPerConversation: turnsPerSession });
  for (const door of measuredDoors) await doorLevel(door, 32, warmupTurns);
  /** rows[name][workers] = summaries, one per round. */
  const rows = { floor: {} };
  for (const name of REFERENCES) rows[name] = {};
  for (const scenario of scenarios) rows[scenario.name] = {};
  for (const door of measuredDoors) rows[door] = {};
  /** ratios[name][workers] = CPU per turn / the floor's run just before it, one per round. */
  const ratios = {};
  /** The floor's level right before a gateway row: the two run minutes apart at most, not a whole round. */
  const pairedFloor = async (workers) => {
    const summary = summarize(await level(floor, chatCompletionsScenario, workers));
    (rows.floor[workers] ??= []).push(summary);
    return summary.cpuMsPerTurn;
  };
  const addRow = (name, workers, summary, floorCpu) => {
    (rows[name][workers] ??= []).push(summary);
    ((ratios[name] ??= {})[workers] ??= []).push(summary.cpuMsPerTurn / floorCpu);
  };
  for (let round = 0; round < rounds; round += 1) {
    for (const workers of LEVELS) {
      for (const name of REFERENCES) {
        const floorCpu = await pairedFloor(workers);
        addRow(name, workers, summarize(await level(references[name], chatCompletionsScenario, workers)), floorCpu);
      }
      for (const scenario of scenarios) {
        const floorCpu = await pairedFloor(workers);
        addRow(scenario.name, workers, summarize(await level(gateway, scenario, workers)), floorCpu);
      }
      for (const door of measuredDoors) {
        const floorCpu = await pairedFloor(workers);
        const measured = await doorLevel(door, workers);
        const summary = {
          cpuMsPerTurn: measured.cpuMsPerRequest,
          turnsPerSecond: measured.requestsPerSecond,
          p50: NaN,
          p99: NaN,
        };
        addRow(door, workers, summary, floorCpu);
      }
    }
  }
  let mixed;
  let alone;
  if (longSessionId) {
    // Paired rounds: a 32-session level of short sessions, then the same with one worker on the
    // long session. One level's p99 is about its tenth-worst turn, and two identical short levels
    // moved between 23 and 69 ms on this 2-core VM, so the ratio is the median over the pairs.
    const pairs = [];
    for (let round = 0; round < mixedRounds; round += 1) {
      const short = summarize(await watchedLevel(gateway));
      const result = await watchedLevel(gateway, longSessionId);
      const beside = { ...summarize(result), longTurns: result.longSamples.length };
      beside.longP50 = percentile(addedLatencies(result.longSamples), 0.5);
      pairs.push({ short, beside, ratio: beside.p99 / short.p99 });
    }
    const ratios = pairs.map((pair) => pair.ratio);
    mixed = { pairs, ratio: median(ratios), minRatio: Math.min(...ratios), maxRatio: Math.max(...ratios) };
    alone = await runAlone(gateway, chatCompletionsScenario, longSessionId, 10, stream);
  }
  const loadAfter = loadavg();

  const mode = stream ? 'streaming' : 'non-streaming';
  console.log(
    `gateway bench: ${turnsPerLevel} ${mode} turns per level and server after ${warmupTurns} warm-up turns, ${rounds} rounds (medians), fresh session every ` +
      `${turnsPerSession} turns, DeepSeek emulator, ${inMemory ? 'in-memory store' : 'SQLite state.db'}, Node ${process.version}` +
      `${gatewayNodeArgs.length ? ` (gateway with ${gatewayNodeArgs.join(' ')})` : ''}; load average ` +
      `${loadBefore.map((value) => value.toFixed(2)).join(' ')} before, ${loadAfter.map((value) => value.toFixed(2)).join(' ')} after`,
  );
  const widths = [9, 26, 9, 9, 9, 9, 8, 8];
  console.log(row(['sessions', 'server', 'CPU ms', 'turns/s', 'added', 'added', 'CPU', 'p99'], widths));
  console.log(row(['', '', '/turn', '', 'p50 ms', 'p99 ms', '/floor', '/floor'], widths));
  const table = {};
  for (const workers of LEVELS) {
    const floorP99 = median(rows.floor[workers].map((summary) => summary.p99));
    for (const name of Object.keys(rows)) {
      const summaries = rows[name][workers];
      const cpu = median(summaries.map((summary) => summary.cpuMsPerTurn));
      const p99 = median(summaries.map((summary) => summary.p99));
      const cells = {
        cpuMsPerTurn: cpu,
        // Median of the paired ratios (each row against the floor run just before it).
        ...(name === 'floor' ? {} : { cpuPerFloor: median(ratios[name][workers]) }),
        turnsPerSecond: median(summaries.map((summary) => summary.turnsPerSecond)),
        p50: median(summaries.map((summary) => summary.p50)),
        p99,
      };
      (table[name] ??= {})[workers] = cells;
      const isFloor = name === 'floor';
      console.log(
        row(
          [
            workers,
            isFloor ? 'floor' : (REFERENCE_LABELS[name] ?? `gateway ${name}`),
            fixed(cpu),
            fixed(cells.turnsPerSecond, 0),
            fixed(cells.p50),
            fixed(p99),
            isFloor ? '' : fixed(cells.cpuPerFloor, 1),
            isFloor ? '' : fixed(p99 / floorP99, 1),
          ],
          widths,
        ),
      );
    }
  }
  if (mixed) {
    console.log(
      `mixed: one ${LONG_SESSION_MESSAGES}-message session beside 31 short ones (gateway), ${mixedRounds} pairs of levels; ` +
        'short sessions added p99, event-loop delay p99 / max and OS preemptions per turn of the gateway process:',
    );
    const loop = (summary) => `${fixed(summary.loop?.p99, 1)} / ${fixed(summary.loop?.max, 1)} ms`;
    for (const { short, beside, ratio } of mixed.pairs) {
      console.log(
        `  without it p99 ${fixed(short.p99)} ms (loop ${loop(short)}, ${fixed(short.preemptedPerTurn)} preempted), ` +
          `beside it ${fixed(beside.p99)} ms (loop ${loop(beside)}, ${fixed(beside.preemptedPerTurn)} preempted): ${fixed(ratio)}×; ` +
          `CPU ${fixed(beside.cpuMsPerTurn)} ms/turn, long session ${beside.longTurns} turns, added p50 ${fixed(beside.longP50)} ms`,
      );
    }
    console.log(
      `  short sessions' added p99 beside it / without it: ${fixed(mixed.ratio)}× (median; ${fixed(mixed.minRatio)}–${fixed(mixed.maxRatio)}×)`,
    );
    console.log(
      `the ${LONG_SESSION_MESSAGES}-message session alone, 10 turns (gateway): CPU ${fixed(alone.cpuMsPerTurn)} ms/turn, added p50 ${fixed(alone.p50)} ms`,
    );
  }
  // One machine-readable line for other benches (bench/sqlite-driver).
  console.log(`json ${JSON.stringify({ stream, turnsPerLevel, rounds, table, mixed, alone })}`);
} finally {
  for (const server of servers) await server.close();
  await emulator.close();
  await client.close();
  rmSync(home, { recursive: true, force: true });
}
