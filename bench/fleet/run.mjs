// bench/fleet: a gateway fleet on PostgreSQL next to one gateway on SQLite, in one run.
//   npm run bench -- fleet          (or, after `npm run build`: node bench/fleet/run.mjs [turnsPerLevel=200])
//
// Part 1, turns: turns per second and the latency the gateway ADDS to a turn (client round trip
// minus the provider time the gateway reports in `Server-Timing: provider;dur=…`), for
//   - 1 `hermes gateway` process on SQLite (state.db),
//   - 1 process on PostgreSQL,
//   - 2 processes on one PostgreSQL database, turns sent alternately to both,
// at 8 and 32 concurrent sessions. Each gateway is a real `hermes gateway` child process; the
// provider is the chat emulator (DeepSeek persona) in its own process. Each level runs exactly
// `turnsPerLevel` non-streaming text turns after a 20-turn warm-up; every worker owns one session
// and starts a fresh one every 10 turns, so history size is the same everywhere.
//
// Part 2, resume: loading a 10,000-message session (half assistant turns with 2–8 KB of
// reasoning in three carriers) through `listMessages`, median of 5, SQLite vs PostgreSQL.
//
// PostgreSQL: HERMES_BENCH_DATABASE_URL or HERMES_TEST_DATABASE_URL (a server the bench may
// create databases on); without either, a throwaway server from scripts/ci-postgres.sh. All on
// 127.0.0.1, ephemeral ports; every loop is bounded.
/* global fetch */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { openPostgresSessionStore } from '../../dist/storage/postgres-session-store.js';
import { openSqliteSessionStore } from '../../dist/storage/sqlite-session-store.js';

const root = new URL('../..', import.meta.url).pathname;
const cli = join(root, 'dist/cli.js');
const turnsPerLevel = Number(process.argv[2] ?? 200);
const turnsPerSession = 10;
const LEVELS = [8, 32];
const RESUME_MESSAGES = 10_000;
const RESUME_RUNS = 5;

const scratch = mkdtempSync(join(tmpdir(), 'hermes-bench-fleet-'));
const children = [];
let throwaway = null;

/** Spawns `hermes ARGS` and resolves with the URL it prints as "listening on URL". */
function startCli(args, env, pattern) {
  const child = spawn(process.execPath, [cli, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk) => {
      output += chunk.toString();
      const match = pattern.exec(output);
      if (match) resolve({ url: match[1], child });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`hermes ${args[0]} exited (${code}): ${output}`)));
  });
}

function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** A PostgreSQL server URL the bench may create databases on. */
function serverUrl() {
  const given = process.env.HERMES_BENCH_DATABASE_URL || process.env.HERMES_TEST_DATABASE_URL;
  if (given) return given;
  const output = execFileSync('bash', [join(root, 'scripts/ci-postgres.sh'), 'start'], { encoding: 'utf8' });
  const url = /HERMES_TEST_DATABASE_URL=(\S+)/.exec(output)?.[1];
  throwaway = /HERMES_TEST_POSTGRES_DIR=(\S+)/.exec(output)?.[1] ?? null;
  if (!url) throw new Error(`no PostgreSQL server: ${output}`);
  return url;
}

async function createDatabase(server, name) {
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const admin = new pg.Client({ connectionString: server });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => admin.end());
    },
  };
}

/** One non-streaming turn; returns the round trip and the provider share in ms. */
async function turn(gatewayUrl, sessionId, text) {
  const started = performance.now();
  const response = await fetch(`${gatewayUrl}/v1/chat/completions`, {
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

/** `turns` turns over `workers` concurrent sessions, each turn to the next gateway in turn. */
async function level(gatewayUrls, workers, turns) {
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
        const target = gatewayUrls[(worker + inSession) % gatewayUrls.length];
        const sample = await turn(target, sessionId, `worker ${worker} turn ${inSession + 1}`);
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

function resumeMessage(index) {
  if (index % 4 === 0) return { role: 'user', content: `question ${index}`, timestamp: 1_764_444_000 + index };
  if (index % 4 === 2)
    return { role: 'tool', tool_call_id: `call_${index - 1}`, tool_name: 'read_file', content: `result ${index}` };
  const size = 2048 + ((index * 2_654_435_761) % 6144);
  const unit = `step ${index}: weigh the options and check the arithmetic; `;
  const reasoning = unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  return {
    role: 'assistant',
    content: index % 4 === 1 ? null : `answer ${index}`,
    reasoning_content: reasoning,
    reasoning,
    reasoning_details: [{ type: 'reasoning.text', text: reasoning, signature: `sig-${index}`, index: 0 }],
    ...(index % 4 === 1
      ? { tool_calls: [{ id: `call_${index}`, type: 'function', function: { name: 'read_file', arguments: '{}' } }] }
      : {}),
    finish_reason: index % 4 === 1 ? 'tool_calls' : 'stop',
  };
}

/** Median `listMessages` wall time of a RESUME_MESSAGES-message session in `store`. */
async function resumeMedian(store) {
  const session = await store.createSession({ title: 'resume bench' });
  for (let start = 0; start < RESUME_MESSAGES; start += 1000) {
    const batch = Array.from({ length: Math.min(1000, RESUME_MESSAGES - start) }, (_, offset) =>
      resumeMessage(start + offset),
    );
    await store.appendMessages(session.id, batch);
  }
  await store.listMessages(session.id); // warm-up
  const times = [];
  for (let run = 0; run < RESUME_RUNS; run += 1) {
    const started = performance.now();
    const messages = await store.listMessages(session.id);
    times.push(performance.now() - started);
    if (messages.length !== RESUME_MESSAGES) throw new Error(`loaded ${messages.length} messages`);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}

const databases = [];
try {
  const server = serverUrl();
  const emulator = await startCli(
    ['emulate', 'chat', '--persona', 'deepseek', '--host', '127.0.0.1', '--port', '0'],
    {},
    /listening on (http:\/\/127\.0\.0\.1:\d+\/v1)/,
  );
  const gatewayArgs = ['gateway', '--port', '0', '--provider', 'deepseek', '--model', 'deepseek-v4-flash'];
  const gatewayFlags = [...gatewayArgs, '--base-url', emulator.url, '--api-key', 'bench'];
  const startGateway = (name, env) =>
    startCli(gatewayFlags, { HERMES_HOME: join(scratch, name), ...env }, /listening on (http:\/\/127\.0\.0\.1:\d+)/);

  const configurations = [];
  configurations.push({ label: '1 x SQLite', gateways: [await startGateway('sqlite', {})] });
  const single = await createDatabase(server, 'hermes_bench_fleet_one');
  databases.push(single);
  configurations.push({
    label: '1 x PostgreSQL',
    gateways: [await startGateway('pg-one', { HERMES_DATABASE_URL: single.url })],
  });
  const shared = await createDatabase(server, 'hermes_bench_fleet_two');
  databases.push(shared);
  configurations.push({
    label: '2 x PostgreSQL',
    gateways: [
      await startGateway('pg-a', { HERMES_DATABASE_URL: shared.url }),
      await startGateway('pg-b', { HERMES_DATABASE_URL: shared.url }),
    ],
  });

  console.log(
    `fleet bench: ${turnsPerLevel} non-streaming turns per level, fresh session every ${turnsPerSession} turns, DeepSeek emulator, Node ${process.version}`,
  );
  console.log('store            gateways  sessions  turns/s  added p50 ms  added p99 ms  round trip p50 ms');
  for (const configuration of configurations) {
    const urls = configuration.gateways.map((gateway) => gateway.url);
    await level(urls, 4, 20); // warm-up: JIT, page caches, pool connections, keep-alive sockets
    for (const workers of LEVELS) {
      const { samples, wallMs } = await level(urls, workers, turnsPerLevel);
      const added = samples.map((sample) => sample.total - sample.provider).sort((a, b) => a - b);
      const totals = samples.map((sample) => sample.total).sort((a, b) => a - b);
      console.log(
        [
          configuration.label.padEnd(17),
          String(urls.length).padStart(8),
          String(workers).padStart(10),
          ((samples.length / wallMs) * 1000).toFixed(0).padStart(9),
          percentile(added, 0.5).toFixed(2).padStart(14),
          percentile(added, 0.99).toFixed(2).padStart(14),
          percentile(totals, 0.5).toFixed(2).padStart(19),
        ].join(''),
      );
    }
    for (const gateway of configuration.gateways) await stop(gateway.child);
  }
  await stop(emulator.child);

  const sqlite = openSqliteSessionStore(join(scratch, 'resume.db'));
  const resumeDatabase = await createDatabase(server, 'hermes_bench_fleet_resume');
  databases.push(resumeDatabase);
  const postgres = openPostgresSessionStore(resumeDatabase.url);
  try {
    const sqliteMs = await resumeMedian(sqlite);
    const postgresMs = await resumeMedian(postgres);
    console.log(`\nresume of a ${RESUME_MESSAGES}-message session (listMessages, median of ${RESUME_RUNS})`);
    console.log(`SQLite      ${sqliteMs.toFixed(1).padStart(8)} ms`);
    console.log(
      `PostgreSQL  ${postgresMs.toFixed(1).padStart(8)} ms   (${(postgresMs / sqliteMs).toFixed(2)}x SQLite)`,
    );
  } finally {
    await sqlite.close();
    await postgres.close();
  }
} finally {
  for (const child of children) await stop(child);
  for (const database of databases) await database.drop().catch(() => undefined);
  if (throwaway) execFileSync('bash', [join(root, 'scripts/ci-postgres.sh'), 'stop', throwaway]);
  rmSync(scratch, { recursive: true, force: true });
}
