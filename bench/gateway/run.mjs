// bench/gateway: what the gateway costs per turn next to the least a proxy can cost, with a
// zero-latency provider (the in-repo chat emulator, DeepSeek persona, in its own process).
// Run after `npm run build`: node bench/gateway/run.mjs [turnsPerLevel=200] [turnsPerSession=10]
//
// Two servers run in child processes (bench-server.mjs), one after the other, against the same
// emulator: the gateway over a SQLite state.db, and the floor, a plain `node:http` proxy that
// forwards the client's request to the emulator and pipes the answer back. Each runs exactly
// `turnsPerLevel` non-streaming text turns at 1, 8 and 32 concurrent sessions after a 20-turn
// warm-up. Each worker owns one session and sends its turns one after another (turns on one
// session are serialized by design), starting a fresh session every `turnsPerSession` turns so
// history size is the same at every level. The gateway then runs a mixed level: one worker
// continues a 10,000-message session while 31 others run short sessions, which shows how much
// one long session stalls the others.
//
// Printed per level: server CPU per turn (`process.cpuUsage` of the server child), turns/s, and
// the latency the server ADDS to a turn: client round trip (fetch start → body read) minus
// provider time, which both servers report as `Server-Timing: provider;dur=…` (request sent to
// the emulator → answer read). Ratios are gateway / floor.
/* global fetch */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openSqliteSessionStore } from '../../dist/storage/sqlite-session-store.js';

const turnsPerLevel = Number(process.argv[2] ?? 200);
const turnsPerSession = Number(process.argv[3] ?? 10);
const LEVELS = [1, 8, 32];
// BENCH_GATEWAY_LONG=0 skips the 10,000-message session (the mixed level and the long session alone),
// so a server profile covers short sessions only.
const withLongSession = process.env.BENCH_GATEWAY_LONG !== '0';
const LONG_SESSION_MESSAGES = 10_000;

const home = mkdtempSync(join(tmpdir(), 'hermes-bench-gateway-'));
const statePath = join(home, 'state.db');

/** Spawns a node child and resolves once it prints `listening on URL`. */
function startChild(args, withIpc) {
  const child = spawn(process.execPath, args, {
    stdio: withIpc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+(?:\/v1)?)/.exec(output);
      if (match) {
        child.stdout.off('data', onData);
        resolve({
          url: match[1],
          cpu: () =>
            new Promise((done) => {
              child.once('message', (message) => done(message.cpu));
              child.send('cpu');
            }),
          close: () =>
            new Promise((done) => {
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`child exited (${code}): ${output}`)));
  });
}

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

/** One non-streaming turn; returns the round trip and the provider share in ms. */
async function turn(server, sessionId, text) {
  const started = performance.now();
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(sessionId ? { 'x-hermes-session-id': sessionId } : {}) },
    body: JSON.stringify({ model: 'deepseek-v4-flash', messages: [{ role: 'user', content: text }] }),
  });
  await response.json();
  const total = performance.now() - started;
  if (response.status !== 200) throw new Error(`turn failed with HTTP ${response.status}`);
  const provider = Number(/provider;dur=([\d.]+)/.exec(response.headers.get('server-timing') ?? '')?.[1] ?? NaN);
  return { total, provider, sessionId: response.headers.get('x-hermes-session-id') };
}

/**
 * Runs `turns` turns with `workers` concurrent sessions. With `longSessionId`, worker 0 keeps
 * sending to that session until the others are done; its turns are not in `samples`.
 */
async function level(server, workers, turns, longSessionId) {
  const samples = [];
  const longSamples = [];
  let next = 0;
  let done = false;
  const cpuBefore = await server.cpu();
  const started = performance.now();
  const runWorker = async (worker) => {
    if (longSessionId && worker === 0) {
      while (!done) longSamples.push(await turn(server, longSessionId, `long session turn ${longSamples.length + 1}`));
      return;
    }
    let sessionId;
    let inSession = 0;
    while (next < turns) {
      next += 1;
      if (inSession === turnsPerSession) {
        sessionId = undefined;
        inSession = 0;
      }
      const sample = await turn(server, sessionId, `worker ${worker} turn ${inSession + 1}`);
      sessionId = sample.sessionId;
      inSession += 1;
      samples.push(sample);
    }
  };
  const workerRuns = Array.from({ length: workers }, (_, worker) => runWorker(worker));
  await Promise.all(longSessionId ? workerRuns.slice(1) : workerRuns);
  done = true;
  const wallMs = performance.now() - started;
  await workerRuns[0];
  const cpuAfter = await server.cpu();
  const cpuMs = (cpuAfter.user - cpuBefore.user + cpuAfter.system - cpuBefore.system) / 1000;
  return { samples, longSamples, wallMs, cpuMsPerTurn: cpuMs / (samples.length + longSamples.length) };
}

/** `turns` turns on the long session alone: the CPU one turn of a 10,000-message session costs. */
async function longSessionAlone(server, sessionId, turns) {
  const cpuBefore = await server.cpu();
  const samples = [];
  for (let index = 0; index < turns; index += 1) samples.push(await turn(server, sessionId, `alone turn ${index + 1}`));
  const cpuAfter = await server.cpu();
  const added = samples.map((sample) => sample.total - sample.provider).sort((a, b) => a - b);
  return {
    cpuMsPerTurn: (cpuAfter.user - cpuBefore.user + cpuAfter.system - cpuBefore.system) / 1000 / turns,
    p50: percentile(added, 0.5),
  };
}

function percentile(sorted, fraction) {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}

function summary(result) {
  const added = result.samples.map((sample) => sample.total - sample.provider).sort((a, b) => a - b);
  return {
    turnsPerSecond: ((result.samples.length + result.longSamples.length) / result.wallMs) * 1000,
    cpuMsPerTurn: result.cpuMsPerTurn,
    p50: percentile(added, 0.5),
    p99: percentile(added, 0.99),
  };
}

async function runServer(mode, emulator, mixedSessionId) {
  // BENCH_SERVER_PROFILE=DIR writes a V8 CPU profile of each server child into DIR.
  const profile = process.env.BENCH_SERVER_PROFILE;
  const server = await startChild(
    [
      ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []),
      new URL('./bench-server.mjs', import.meta.url).pathname,
      mode,
      emulator.url,
      statePath,
    ],
    true,
  );
  try {
    await level(server, 4, 20); // warm-up: JIT, SQLite page cache, keep-alive sockets
    const results = {};
    for (const workers of LEVELS) results[workers] = summary(await level(server, workers, turnsPerLevel));
    if (mixedSessionId) {
      const mixed = await level(server, 32, turnsPerLevel, mixedSessionId);
      results.mixed = summary(mixed);
      const long = mixed.longSamples.map((sample) => sample.total - sample.provider).sort((a, b) => a - b);
      results.long = { turns: long.length, p50: percentile(long, 0.5) };
      results.alone = await longSessionAlone(server, mixedSessionId, 10);
    }
    return results;
  } finally {
    await server.close();
  }
}

const row = (cells, widths) => cells.map((cell, index) => String(cell).padStart(widths[index])).join('');
const fixed = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '-');

const emulator = await startChild(
  [
    new URL('../../dist/cli.js', import.meta.url).pathname,
    'emulate',
    'chat',
    '--persona',
    'deepseek',
    '--host',
    '127.0.0.1',
    '--port',
    '0',
  ],
  false,
);
try {
  const longSessionId = withLongSession ? await seedLongSession(LONG_SESSION_MESSAGES) : undefined;
  const floor = await runServer('floor', emulator);
  const gateway = await runServer('gateway', emulator, longSessionId);
  console.log(
    `gateway bench: ${turnsPerLevel} non-streaming turns per level, fresh session every ${turnsPerSession} turns, DeepSeek emulator, SQLite state.db, Node ${process.version}`,
  );
  const widths = [9, 10, 9, 10, 10, 10, 10, 10];
  console.log(row(['sessions', 'server', 'CPU ms', 'turns/s', 'added', 'added', 'CPU', 'p99'], widths));
  console.log(row(['', '', '/turn', '', 'p50 ms', 'p99 ms', '/floor', '/floor'], widths));
  for (const workers of LEVELS) {
    for (const [name, results] of [
      ['floor', floor],
      ['gateway', gateway],
    ]) {
      const result = results[workers];
      const isGateway = name === 'gateway';
      console.log(
        row(
          [
            workers,
            name,
            fixed(result.cpuMsPerTurn),
            fixed(result.turnsPerSecond, 0),
            fixed(result.p50),
            fixed(result.p99),
            isGateway ? fixed(result.cpuMsPerTurn / floor[workers].cpuMsPerTurn, 1) : '',
            isGateway ? fixed(result.p99 / floor[workers].p99, 1) : '',
          ],
          widths,
        ),
      );
    }
  }
  const mixed = gateway.mixed;
  if (mixed)
    console.log(
      `mixed: one ${LONG_SESSION_MESSAGES}-message session beside 31 short ones (gateway): CPU ${fixed(mixed.cpuMsPerTurn)} ms/turn, ` +
        `${fixed(mixed.turnsPerSecond, 0)} turns/s, short sessions added p50 ${fixed(mixed.p50)} ms p99 ${fixed(mixed.p99)} ms ` +
        `(+${fixed(mixed.p99 - gateway[32].p99)} ms p99 over 32 short sessions); long session ${gateway.long.turns} turns, added p50 ${fixed(gateway.long.p50)} ms`,
    );
  if (mixed)
    console.log(
      `the ${LONG_SESSION_MESSAGES}-message session alone, 10 turns (gateway): CPU ${fixed(gateway.alone.cpuMsPerTurn)} ms/turn, added p50 ${fixed(gateway.alone.p50)} ms`,
    );
} finally {
  await emulator.close();
  rmSync(home, { recursive: true, force: true });
}
