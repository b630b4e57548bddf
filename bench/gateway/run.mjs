// bench/gateway: turns per second and the latency the gateway ADDS to a turn, with a
// zero-latency provider (the in-repo chat emulator, DeepSeek persona, in its own process so it
// does not share the gateway's event loop), at 1, 8 and 32 concurrent
// sessions. Run after `npm run build`: node bench/gateway/run.mjs [turnsPerLevel=200] [turnsPerSession=10]
//
// Everything is on loopback (127.0.0.1, ephemeral ports) and bounded: each level runs exactly
// `turnsPerLevel` non-streaming text turns after a 20-turn warm-up. Each of the N workers owns
// one session at a time and sends its turns one after another (turns on one session are
// serialized by design), starting a fresh session every `turnsPerSession` turns so history size
// is the same at every level.
//
// Added latency = client round trip (fetch start → JSON body read) − provider time, where
// provider time is what the gateway reports in `Server-Timing: provider;dur=…` (request sent
// to the emulator → response decoded). So it is the gateway's own cost: HTTP in and out, the
// session load from state.db, replay shaping, persisting the user and assistant messages, and
// queueing behind other sessions' work on the one Node thread.
/* global fetch */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startGateway } from '../../dist/gateway/gateway-serve.js';
import { silentLogger } from '../../dist/logging/logger.js';
import { openSqliteSessionStore } from '../../dist/storage/sqlite-session-store.js';

const turnsPerLevel = Number(process.argv[2] ?? 200);
const turnsPerSession = Number(process.argv[3] ?? 10);
const LEVELS = [1, 8, 32];

const home = mkdtempSync(join(tmpdir(), 'hermes-bench-gateway-'));
const emulator = await startEmulatorProcess();
const store = openSqliteSessionStore(join(home, 'state.db'));
const gateway = await startGateway({
  host: '127.0.0.1',
  port: 0,
  store,
  route: {
    route: { api: 'chat_completions', provider: 'deepseek', model: 'deepseek-v4-flash', baseUrl: emulator.baseUrl },
    apiKey: 'bench',
  },
  workspace: home,
  yolo: false,
  logger: silentLogger(),
});

/** `hermes emulate chat --persona deepseek` in a child process; resolves with its base URL. */
function startEmulatorProcess() {
  const cli = new URL('../../dist/cli.js', import.meta.url).pathname;
  const child = spawn(
    process.execPath,
    [cli, 'emulate', 'chat', '--persona', 'deepseek', '--host', '127.0.0.1', '--port', '0'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(output);
      if (match) {
        resolve({
          baseUrl: match[1],
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
    child.once('exit', (code) => reject(new Error(`emulator exited (${code}): ${output}`)));
  });
}

/** One non-streaming turn; returns the round trip and the provider share in ms. */
async function turn(sessionId, text) {
  const started = performance.now();
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
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

/** Runs `turns` turns with `workers` concurrent sessions; returns samples and wall time. */
async function level(workers, turns) {
  const samples = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      let sessionId;
      let inSession = 0;
      while (next < turns) {
        next += 1;
        if (inSession === turnsPerSession) {
          sessionId = undefined;
          inSession = 0;
        }
        const sample = await turn(sessionId, `worker ${worker} turn ${inSession + 1}`);
        sessionId = sample.sessionId;
        inSession += 1;
        samples.push(sample);
      }
    }),
  );
  return { samples, wallMs: performance.now() - started };
}

function percentile(sorted, fraction) {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}

try {
  await level(4, 20); // warm-up: JIT, SQLite page cache, keep-alive sockets
  console.log(
    `gateway bench: ${turnsPerLevel} non-streaming turns per level, fresh session every ${turnsPerSession} turns, DeepSeek emulator, SQLite state.db, Node ${process.version}`,
  );
  console.log('sessions  turns/s  added p50 ms  added p99 ms  round trip p50 ms  provider p50 ms');
  for (const workers of LEVELS) {
    const { samples, wallMs } = await level(workers, turnsPerLevel);
    const added = samples.map((sample) => sample.total - sample.provider).sort((a, b) => a - b);
    const totals = samples.map((sample) => sample.total).sort((a, b) => a - b);
    const providers = samples.map((sample) => sample.provider).sort((a, b) => a - b);
    console.log(
      [
        String(workers).padStart(8),
        ((samples.length / wallMs) * 1000).toFixed(0).padStart(8),
        percentile(added, 0.5).toFixed(2).padStart(13),
        percentile(added, 0.99).toFixed(2).padStart(13),
        percentile(totals, 0.5).toFixed(2).padStart(18),
        percentile(providers, 0.5).toFixed(2).padStart(16),
      ].join(''),
    );
  }
} finally {
  await gateway.close();
  await store.close();
  await emulator.close();
  rmSync(home, { recursive: true, force: true });
}
